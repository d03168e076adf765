import type { ChangeFeed } from './change-feed.js';
import type { StoreConfiguration } from './store.js';

/**
 * The configuration is read on almost every request (fund details, refunds, requirements, quote
 * requests) and changes rarely, so it is read once and kept until the change feed reports a
 * change that can touch it. A read that was under way when such a change arrived is handed to its
 * callers but not kept.
 */
export class ConfigurationCache {
  private cached: Promise<StoreConfiguration> | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly changes: ChangeFeed,
    private readonly read: () => Promise<StoreConfiguration>,
  ) {}

  get(): Promise<StoreConfiguration> {
    this.unsubscribe ??= this.changes.subscribe((change) => {
      if (change.kind === 'configuration' || change.kind === 'anything') this.cached = undefined;
    });
    if (!this.changes.isCurrent()) return this.read();
    if (this.cached === undefined) {
      const reading = this.read();
      this.cached = reading;
      reading.catch(() => {
        if (this.cached === reading) this.cached = undefined;
      });
    }
    return this.cached;
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.cached = undefined;
  }
}
