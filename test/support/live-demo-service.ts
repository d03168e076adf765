import { createReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { prepareLiveDemo, startLiveSwaps, type LiveSwaps, type PreparedLiveDemo } from '../../src/demo/live-demo.js';
import { startService, type RunningService } from '../../src/service.js';
import { importSnapshot } from '../../src/snapshot/import-snapshot.js';
import { DEMO_SNAPSHOT } from './demo-service.js';
import { openFreshStore } from './stores.js';

export interface LiveDemoService {
  readonly service: RunningService;
  readonly prepared: PreparedLiveDemo;
  readonly swaps: LiveSwaps;
  /** Every line the demo printed, as `lnswap demo` prints them. */
  readonly lines: string[];
  close(): Promise<void>;
}

/**
 * What `lnswap demo` runs, in this process: the demo snapshot, Anvil with the swap contract and the demo token, the
 * service following it and the two provider daemons on simulated Lightning nodes; without the demo's own users, so
 * only the test's swaps are quoted.
 */
export async function startLiveDemoService(): Promise<LiveDemoService> {
  const fresh = await openFreshStore('sqlite');
  const directory = await mkdtemp(join(tmpdir(), 'lnswap-live-demo-'));
  const cleanups: (() => Promise<void>)[] = [
    () => rm(directory, { recursive: true, force: true }),
    () => fresh.dispose(),
  ];
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  };
  try {
    await importSnapshot(fresh.store, createReadStream(DEMO_SNAPSHOT));
    const prepared = await prepareLiveDemo(fresh.store, process.env);
    cleanups.push(() => prepared.chain.stop());
    const service = await startService({
      store: fresh.store,
      host: '127.0.0.1',
      port: 0,
      logger: pino({ level: 'silent' }),
      ...prepared.service,
    });
    cleanups.push(() => service.close());
    const lines: string[] = [];
    const write = (text: string) => lines.push(...text.split('\n').filter((line) => line !== ''));
    const swaps = await startLiveSwaps(service.url, prepared, directory, write, { userSwaps: false });
    cleanups.push(() => swaps.stop());
    return { service, prepared, swaps, lines, close: cleanUp };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
