import pg from 'pg';
import type { Leadership, LeadershipOptions } from '../leadership.js';
import type { PostgresTarget } from './connection-url.js';

// Two 32-bit keys: the schema's and the job's, so instances of different schemas on one database never
// contend, and one schema's jobs (one per chain) lead independently.
const TRY_LOCK = 'SELECT pg_try_advisory_lock(hashtext(current_schema()), hashtext($1)) AS locked';
const UNLOCK = 'SELECT pg_advisory_unlock(hashtext(current_schema()), hashtext($1))';

/**
 * A session-level advisory lock held on a connection of its own. PostgreSQL releases it when that
 * session ends, so a leader that dies (or whose connection drops) frees the lead for another instance;
 * the leader notices its own loss from the connection's error or a failed keep-alive query.
 */
export function openPostgresLeadership(target: PostgresTarget, name: string, options: LeadershipOptions): Leadership {
  return new PostgresLeadership(target, name, options);
}

class PostgresLeadership implements Leadership {
  private client: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private isLeading = false;
  private closed = false;
  private attempt: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(leading: boolean) => void>();

  constructor(
    private readonly target: PostgresTarget,
    private readonly name: string,
    private readonly options: LeadershipOptions,
  ) {
    this.schedule(0);
  }

  get leading(): boolean {
    return this.isLeading;
  }

  onChange(listener: (leading: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    await this.attempt;
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      if (this.isLeading) await client.query(UNLOCK, [this.name]).catch(() => undefined);
      await client.end().catch(() => undefined);
    }
    this.setLeading(false);
  }

  private schedule(delayMs: number): void {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      this.attempt = this.step().finally(() => {
        this.schedule(this.isLeading ? this.options.keepAliveIntervalMs : this.options.retryIntervalMs);
      });
    }, delayMs);
  }

  /** One round: the leader proves its session alive; anyone else (re)connects and tries the lock. */
  private async step(): Promise<void> {
    try {
      const client = this.client ?? (await this.connect());
      if (this.isLeading) {
        await client.query('SELECT 1');
        return;
      }
      const result = await client.query<{ locked: boolean }>(TRY_LOCK, [this.name]);
      if (result.rows[0]?.locked === true && !this.closed) this.setLeading(true);
    } catch {
      this.drop();
    }
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.target.connectionString,
      keepAlive: true,
      keepAliveInitialDelayMillis: this.options.keepAliveIntervalMs,
      connectionTimeoutMillis: Math.max(this.options.retryIntervalMs, 1_000),
      query_timeout: Math.max(this.options.keepAliveIntervalMs, 1_000),
      ...(this.target.schema === undefined ? {} : { options: `-c search_path="${this.target.schema}"` }),
    });
    // A session that ends takes its lock with it: the lead is lost the moment the connection is.
    client.on('error', () => this.drop(client));
    client.on('end', () => this.drop(client));
    this.client = client;
    try {
      await client.connect();
    } catch (error) {
      this.drop(client);
      throw error;
    }
    return client;
  }

  private drop(client: pg.Client | undefined = this.client): void {
    if (client === undefined || client !== this.client) return;
    this.client = undefined;
    client.end().catch(() => undefined);
    this.setLeading(false);
  }

  private setLeading(leading: boolean): void {
    if (this.isLeading === leading) return;
    this.isLeading = leading;
    for (const listener of this.listeners) listener(leading);
  }
}
