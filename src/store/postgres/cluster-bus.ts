import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { PostgresTarget } from './connection-url.js';

/** How the bus's connections show in `pg_stat_activity`. */
export const CLUSTER_BUS_LISTENER_NAME = 'lnswap cluster bus';
export const CLUSTER_BUS_PUBLISHER_NAME = 'lnswap cluster bus publisher';

export interface ClusterBusTiming {
  /** How long to wait for a connection before calling the attempt failed. */
  readonly connectTimeoutMs: number;
  /** How long one publishing statement may take. */
  readonly queryTimeoutMs: number;
  /** First wait before reconnecting; it doubles with each failed attempt up to `maxReconnectDelayMs`. */
  readonly reconnectDelayMs: number;
  readonly maxReconnectDelayMs: number;
  /** Messages older than this when the bus is back are dropped: whatever they announced is out of date. */
  readonly maxMessageAgeMs: number;
  /** Messages kept while the bus is down; the oldest go first. */
  readonly maxQueuedMessages: number;
}

export const DEFAULT_CLUSTER_BUS_TIMING: ClusterBusTiming = {
  connectTimeoutMs: 5_000,
  queryTimeoutMs: 5_000,
  reconnectDelayMs: 250,
  maxReconnectDelayMs: 4_000,
  maxMessageAgeMs: 30_000,
  maxQueuedMessages: 10_000,
};

/**
 * A NOTIFY payload holds at most 8000 bytes. A UTF-16 code unit takes at most 3 bytes of UTF-8, so chunks of
 * this many code units, with their header, always fit.
 */
const CHUNK_UNITS = 2_600;
/** Notifications sent in one statement (one transaction) at most. */
const NOTIFICATIONS_PER_STATEMENT = 500;
/** One statement, so one transaction: its notifications are delivered together and in this order. */
const NOTIFY_ALL = 'SELECT pg_notify(channel, payload) FROM unnest($1::text[], $2::text[]) AS m(channel, payload)';
/** Messages whose chunks are still arriving; more than this means chunks were lost, and the oldest go. */
const MAX_PARTIAL_MESSAGES = 1_000;

interface QueuedMessage {
  readonly channel: string;
  readonly chunks: readonly string[];
  readonly queuedAt: number;
}

interface PartialMessage {
  readonly chunks: string[];
  received: number;
}

/**
 * Instances sharing one PostgreSQL database reach each other through LISTEN/NOTIFY: one connection listens,
 * a pool of one publishes (one connection keeps this instance's messages in the order they were sent). Either
 * may break at any time; the listener is opened again with growing delays and the queued messages go out when
 * it is back. Channels carry the schema's hash, so services kept apart by schema do not hear each other.
 */
export class PostgresClusterBus {
  private readonly instanceId = randomBytes(8).toString('hex');
  private readonly channelPrefix: string;
  private readonly publisher: pg.Pool;
  private readonly subscribers = new Map<string, Set<(payload: string) => void>>();
  private readonly reconnectListeners = new Set<() => void>();
  private readonly queue: QueuedMessage[] = [];
  private readonly partials = new Map<string, PartialMessage>();
  private listener: pg.Client | undefined;
  private listeningSince: number | undefined;
  private everConnected = false;
  private failedAttempts = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private pendingListens: Promise<void> = Promise.resolve();
  private nextMessageId = 0;
  private droppedSinceConnected = 0;
  private closed = false;

  constructor(
    private readonly target: PostgresTarget,
    private readonly logger: Logger,
    private readonly timing: ClusterBusTiming = DEFAULT_CLUSTER_BUS_TIMING,
  ) {
    this.channelPrefix = `lnswap-bus-${createHash('sha256')
      .update(target.schema ?? '')
      .digest('hex')
      .slice(0, 16)}`;
    this.publisher = new pg.Pool({
      connectionString: target.connectionString,
      application_name: CLUSTER_BUS_PUBLISHER_NAME,
      max: 1,
      connectionTimeoutMillis: timing.connectTimeoutMs,
      query_timeout: timing.queryTimeoutMs,
      keepAlive: true,
    });
    // A connection that breaks while idle is dropped by the pool; the next publish opens another.
    this.publisher.on('error', () => {});
  }

  /** Resolves once the first connection listens; rejects (and closes the bus) when it cannot be made. */
  async start(): Promise<void> {
    try {
      await this.connect();
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  publish(topic: string, payload: string): void {
    if (this.closed) return;
    this.queue.push({ channel: this.channelOf(topic), chunks: this.chunksOf(payload), queuedAt: Date.now() });
    if (this.queue.length > this.timing.maxQueuedMessages) {
      this.queue.shift();
      if (this.droppedSinceConnected++ === 0) {
        this.logger.warn({ kept: this.timing.maxQueuedMessages }, 'cluster bus down: dropping its oldest messages');
      }
    }
    void this.drain();
  }

  subscribe(topic: string, deliver: (payload: string) => void): () => void {
    const channel = this.channelOf(topic);
    let deliveries = this.subscribers.get(channel);
    if (deliveries === undefined) {
      deliveries = new Set();
      this.subscribers.set(channel, deliveries);
      // While the connection opens, its own loop over the subscribed channels (a live Map iteration) reaches this one.
      const listener = this.listener;
      if (listener !== undefined && this.listeningSince !== undefined) this.listenOn(listener, channel);
    }
    deliveries.add(deliver);
    return () => {
      deliveries.delete(deliver);
    };
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => {
      this.reconnectListeners.delete(listener);
    };
  }

  connectedSince(): number | undefined {
    return this.listeningSince;
  }

  /** Sends what is queued while the connection answers (an instance leaving says goodbye), then disconnects. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.retryTimer);
    await this.draining;
    const listener = this.listener;
    this.listener = undefined;
    this.listeningSince = undefined;
    await Promise.all([listener?.end().catch(() => {}), this.publisher.end().catch(() => {})]);
  }

  private channelOf(topic: string): string {
    return `${this.channelPrefix}#${topic}`;
  }

  /** `sender messageId index count data`: a message too large for one notification goes in several. */
  private chunksOf(payload: string): string[] {
    const messageId = (this.nextMessageId++).toString(36);
    const parts: string[] = [];
    for (let start = 0; start < payload.length || parts.length === 0;) {
      let end = Math.min(start + CHUNK_UNITS, payload.length);
      // Never split a surrogate pair: each half alone is not valid UTF-8.
      if (end < payload.length && /[\uD800-\uDBFF]/.test(payload.charAt(end - 1))) end--;
      parts.push(payload.slice(start, end));
      start = end;
    }
    return parts.map((data, index) => `${this.instanceId} ${messageId} ${index} ${parts.length} ${data}`);
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.target.connectionString,
      application_name: CLUSTER_BUS_LISTENER_NAME,
      connectionTimeoutMillis: this.timing.connectTimeoutMs,
      keepAlive: true,
    });
    this.listener = client;
    client.on('error', (error) => this.lose(client, error));
    client.on('end', () => this.lose(client, new Error('connection ended')));
    client.on('notification', (notification) => this.receive(notification.channel, notification.payload));
    try {
      await client.connect();
      for (const channel of this.subscribers.keys()) await client.query(`LISTEN "${channel}"`);
    } catch (error) {
      this.lose(client, error);
      throw error;
    }
    if (this.listener !== client) throw new Error('cluster bus connection lost while opening');
    this.listeningSince = Date.now();
    this.pendingListens = Promise.resolve();
    this.failedAttempts = 0;
    this.droppedSinceConnected = 0;
    this.partials.clear();
    if (this.everConnected) {
      this.logger.info('cluster bus connected again');
      for (const listener of this.reconnectListeners) listener();
    }
    this.everConnected = true;
    void this.drain();
  }

  /** pg deprecates a query sent while another runs on the same client, so LISTENs go one after another. */
  private listenOn(client: pg.Client, channel: string): void {
    this.pendingListens = this.pendingListens
      .then(() => client.query(`LISTEN "${channel}"`))
      .then(
        () => undefined,
        (error: unknown) => this.lose(client, error),
      );
  }

  private lose(client: pg.Client | undefined, error: unknown): void {
    if (client === undefined || this.listener !== client) return;
    this.listener = undefined;
    if (this.listeningSince !== undefined) {
      this.logger.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'cluster bus connection lost: serving local sockets only until it is back',
      );
    }
    this.listeningSince = undefined;
    client.end().catch(() => {});
    if (this.closed || !this.everConnected) return;
    const delay = Math.min(this.timing.maxReconnectDelayMs, this.timing.reconnectDelayMs * 2 ** this.failedAttempts);
    this.failedAttempts++;
    // Jitter, so instances that lost the database together do not all come back in the same instant.
    this.reconnectTimer = setTimeout(
      () => {
        this.connect().catch(() => {});
      },
      delay * (0.5 + Math.random() / 2),
    );
    this.reconnectTimer.unref();
  }

  private receive(channel: string, payload: string | undefined): void {
    const deliveries = this.subscribers.get(channel);
    if (deliveries === undefined || payload === undefined) return;
    const message = this.reassemble(payload);
    if (message === undefined) return;
    for (const deliver of deliveries) deliver(message);
  }

  private reassemble(payload: string): string | undefined {
    const match = /^([0-9a-f]+) ([0-9a-z]+) (\d+) (\d+) /.exec(payload);
    if (match === null) return undefined;
    const [header = '', sender, messageId, indexText, countText] = match;
    if (sender === this.instanceId) return undefined;
    const data = payload.slice(header.length);
    const count = Number(countText);
    if (count === 1) return data;
    const key = `${sender} ${messageId}`;
    let partial = this.partials.get(key);
    if (partial === undefined) {
      if (this.partials.size >= MAX_PARTIAL_MESSAGES) this.partials.delete(this.partials.keys().next().value!);
      partial = { chunks: new Array<string>(count), received: 0 };
      this.partials.set(key, partial);
    }
    const index = Number(indexText);
    if (index >= count || partial.chunks[index] !== undefined) return undefined;
    partial.chunks[index] = data;
    if (++partial.received < count) return undefined;
    this.partials.delete(key);
    return partial.chunks.join('');
  }

  /** Sends the queue in order, one statement at a time, while the bus is connected. */
  private drain(): Promise<void> {
    this.draining ??= this.sendQueued().finally(() => {
      this.draining = undefined;
    });
    return this.draining;
  }

  private async sendQueued(): Promise<void> {
    while (this.listeningSince !== undefined && this.queue.length > 0) {
      const oldestKept = Date.now() - this.timing.maxMessageAgeMs;
      while (this.queue.length > 0 && this.queue[0]!.queuedAt < oldestKept) this.queue.shift();
      // Out of the queue while in flight, so messages dropped meanwhile for room are never these.
      const batch = this.queue.splice(0, this.batchLength());
      if (batch.length === 0) return;
      try {
        await this.publisher.query(NOTIFY_ALL, [
          batch.flatMap((message) => message.chunks.map(() => message.channel)),
          batch.flatMap((message) => message.chunks),
        ]);
      } catch {
        this.queue.unshift(...batch);
        this.queue.splice(0, Math.max(0, this.queue.length - this.timing.maxQueuedMessages));
        // The listener notices a lost database on its own; until then, try again shortly.
        if (!this.closed) {
          clearTimeout(this.retryTimer);
          this.retryTimer = setTimeout(() => void this.drain(), this.timing.reconnectDelayMs);
          this.retryTimer.unref();
        }
        return;
      }
    }
  }

  /** How many queued messages go in the next statement: as many as fit, and at least one. */
  private batchLength(): number {
    let messages = 0;
    let notifications = 0;
    for (const message of this.queue) {
      if (messages > 0 && notifications + message.chunks.length > NOTIFICATIONS_PER_STATEMENT) break;
      messages++;
      notifications += message.chunks.length;
    }
    return messages;
  }
}

/** Opens the bus of the database `target` names; resolves once it listens. */
export async function openPostgresClusterBus(target: PostgresTarget, logger: Logger): Promise<PostgresClusterBus> {
  const bus = new PostgresClusterBus(target, logger);
  await bus.start();
  return bus;
}
