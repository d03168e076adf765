import { createHash } from 'node:crypto';
import pg from 'pg';
import { ChangeListeners, type ChangeFeed, type StoreChange, type StoreChangeListener } from '../change-feed.js';
import type { PostgresTarget } from './connection-url.js';
import { CONNECT_TIMEOUT_MS, type Queryable } from './pool.js';

const RECONNECT_DELAY_MS = 1000;
/** How the listening connection shows in `pg_stat_activity`. */
export const LISTENER_NAME = 'lnswap change feed';

/** One channel per schema, so stores in different schemas of a database do not hear each other. */
export function changeChannel(target: PostgresTarget): string {
  if (target.schema === undefined) return 'lnswap_changes';
  // Channel names are identifiers (at most 63 bytes); a schema name alone can take all of them.
  return `lnswap_changes_${createHash('sha256').update(target.schema).digest('hex').slice(0, 16)}`;
}

/** Sent inside the writing transaction: PostgreSQL delivers it when, and only if, that transaction commits. */
export async function notifyChange(client: Queryable, channel: string, change: StoreChange): Promise<void> {
  await client.query('SELECT pg_notify($1, $2)', [channel, JSON.stringify(change)]);
}

function parseChange(payload: string | undefined): StoreChange {
  try {
    const change = JSON.parse(payload ?? '') as StoreChange;
    if (change.kind === 'configuration' || change.kind === 'anything') return change;
    if (change.kind === 'orderCreated' && typeof change.invoiceHash === 'string') return change;
    if (change.kind === 'orderMoved' && typeof change.orderId === 'string') return change;
  } catch {
    // A payload this version cannot read is treated as the widest change below.
  }
  return { kind: 'anything' };
}

/**
 * Every instance sharing the database hears every instance's writes by LISTEN on one dedicated
 * connection, opened when the first cache subscribes. While that connection is down nothing is
 * vouched for, and when it is back every cache starts over, since notifications may have been missed.
 * The writing instance also reports its own changes at once, so its own next read never waits on
 * the round trip of its notification.
 */
export class PostgresChangeFeed implements ChangeFeed {
  private readonly listeners = new ChangeListeners();
  private client: pg.Client | undefined;
  private listening = false;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: PostgresTarget,
    readonly channel: string,
  ) {}

  subscribe(listener: StoreChangeListener): () => void {
    const unsubscribe = this.listeners.add(listener);
    if (this.client === undefined && !this.closed) this.connect();
    return unsubscribe;
  }

  isCurrent(): boolean {
    return this.listening;
  }

  report(change: StoreChange): void {
    this.listeners.emit(change);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private connect(): void {
    const client = new pg.Client({
      connectionString: this.target.connectionString,
      application_name: LISTENER_NAME,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel === this.channel) this.listeners.emit(parseChange(message.payload));
    });
    client.on('error', () => this.lose(client));
    client.on('end', () => this.lose(client));
    client
      .connect()
      .then(() => client.query(`LISTEN "${this.channel}"`))
      .then(() => {
        if (this.client !== client) return;
        this.listening = true;
        this.listeners.emit({ kind: 'anything' });
      })
      .catch(() => this.lose(client));
  }

  private lose(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.listening = false;
    this.listeners.emit({ kind: 'anything' });
    client.end().catch(() => {});
    if (this.closed) return;
    this.reconnectTimer = setTimeout(() => {
      if (this.client === undefined && !this.closed) this.connect();
    }, RECONNECT_DELAY_MS);
    this.reconnectTimer.unref();
  }
}
