import { createReadStream } from 'node:fs';
import pino from 'pino';
import type { EngineOptions } from '../../src/engine/operations/options.js';
import { startService, type RunningService } from '../../src/service.js';
import { importSnapshot } from '../../src/snapshot/import-snapshot.js';
import { openFreshStore, type FreshStore } from './stores.js';
import { repositoryPath } from './repository.js';

export const DEMO_SNAPSHOT = repositoryPath('demo', 'snapshot.json');

export interface DemoService {
  readonly fresh: FreshStore;
  readonly service: RunningService;
  close(): Promise<void>;
}

/** The service on a fresh SQLite store loaded with the demo snapshot, as `lnswap demo` serves it, on a free port. */
export async function startDemoService(engine: Partial<EngineOptions> = {}): Promise<DemoService> {
  const fresh = await openFreshStore('sqlite');
  try {
    await importSnapshot(fresh.store, createReadStream(DEMO_SNAPSHOT));
    const service = await startService({
      store: fresh.store,
      host: '127.0.0.1',
      port: 0,
      logger: pino({ level: 'silent' }),
      engine,
    });
    return {
      fresh,
      service,
      async close() {
        await service.close();
        await fresh.dispose();
      },
    };
  } catch (error) {
    await fresh.dispose();
    throw error;
  }
}
