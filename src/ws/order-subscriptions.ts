import type { Logger } from 'pino';
import type { Socket } from 'socket.io';
import type { StateChangedEvent } from '../engine/lifecycle/state-events.js';

/** Reads the events of an order's history rows after `afterSequence`, in order, from the store. */
export type MissedEvents = (orderId: string, afterSequence: number) => Promise<readonly StateChangedEvent[]>;

/** How long a subscriber waits before reading the store again after a failed catch-up (the database was away). */
const RETRY_AFTER_MS = 1000;

/**
 * This instance's subscribers of order states. Each one gets its order's events exactly once and in sequence
 * order, without gaps: an event that is not the next one it expects (an instance published out of order, or the
 * event was sent before it subscribed) makes it read what it missed from the history, while later live events
 * wait; events it already has are dropped.
 */
export class OrderSubscriptions {
  private readonly byOrder = new Map<string, Map<string, Subscriber>>();
  private readonly bySocket = new Map<string, Set<string>>();

  constructor(
    private readonly missedEvents: MissedEvents,
    private readonly logger: Logger,
  ) {}

  /**
   * Starts sending `orderId`'s events to `socket`: with `sinceSequence`, every stored state after it first;
   * without, only moves after the current state. Resolves once that first reading is sent.
   */
  async subscribe(socket: Socket, orderId: string, sinceSequence?: number): Promise<void> {
    const existing = this.byOrder.get(orderId)?.get(socket.id);
    if (existing !== undefined) {
      if (sinceSequence !== undefined) await existing.rewindTo(sinceSequence);
      return;
    }
    const subscriber = new Subscriber(socket, orderId, this.missedEvents, this.logger);
    const subscribers = this.byOrder.get(orderId) ?? new Map<string, Subscriber>();
    subscribers.set(socket.id, subscriber);
    this.byOrder.set(orderId, subscribers);
    const orders = this.bySocket.get(socket.id) ?? new Set<string>();
    orders.add(orderId);
    this.bySocket.set(socket.id, orders);
    try {
      await subscriber.start(sinceSequence);
    } catch (error) {
      this.unsubscribe(socket, orderId);
      throw error;
    }
  }

  unsubscribe(socket: Socket, orderId: string): void {
    const subscribers = this.byOrder.get(orderId);
    subscribers?.get(socket.id)?.stop();
    subscribers?.delete(socket.id);
    if (subscribers?.size === 0) this.byOrder.delete(orderId);
    const orders = this.bySocket.get(socket.id);
    orders?.delete(orderId);
    if (orders?.size === 0) this.bySocket.delete(socket.id);
  }

  /** On disconnect. */
  forget(socket: Socket): void {
    for (const orderId of [...(this.bySocket.get(socket.id) ?? [])]) this.unsubscribe(socket, orderId);
  }

  /** A live event, from this instance or another. */
  deliver(event: StateChangedEvent): void {
    for (const subscriber of this.byOrder.get(event.orderId)?.values() ?? []) subscriber.offer(event);
  }

  get size(): number {
    return this.bySocket.size;
  }
}

class Subscriber {
  /** The sequence of the last event sent (or of the state current when it subscribed). */
  private last = 0;
  /** True while reading the store; live events wait in `waiting`. */
  private reading = false;
  private waiting: StateChangedEvent[] = [];
  private stopped = false;
  private retry: NodeJS.Timeout | undefined;
  /** A rewind asked for while reading: applied when the reading is sent. */
  private rewind: number | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly orderId: string,
    private readonly missedEvents: MissedEvents,
    private readonly logger: Logger,
  ) {}

  async start(sinceSequence: number | undefined): Promise<void> {
    this.reading = true;
    try {
      const events = await this.missedEvents(this.orderId, sinceSequence ?? 0);
      if (sinceSequence === undefined) this.last = events[events.length - 1]?.sequence ?? 0;
      else {
        this.last = sinceSequence;
        this.send(events);
      }
    } finally {
      this.reading = false;
    }
    this.drainWaiting();
  }

  /** The client asked again, from an earlier point: send what follows it again, once a reading under way is sent. */
  async rewindTo(sinceSequence: number): Promise<void> {
    if (sinceSequence >= this.last) return;
    if (this.reading) {
      this.rewind = Math.min(this.rewind ?? sinceSequence, sinceSequence);
      return;
    }
    this.last = sinceSequence;
    await this.catchUp();
  }

  offer(event: StateChangedEvent): void {
    if (this.stopped || event.sequence <= this.last) return;
    if (this.reading) {
      this.waiting.push(event);
      return;
    }
    if (event.sequence === this.last + 1) {
      this.send([event]);
      return;
    }
    this.waiting.push(event);
    void this.catchUp();
  }

  stop(): void {
    this.stopped = true;
    this.waiting = [];
    clearTimeout(this.retry);
  }

  private drainWaiting(): void {
    if (this.rewind !== undefined && !this.stopped) {
      this.last = Math.min(this.last, this.rewind);
      this.rewind = undefined;
      void this.catchUp();
      return;
    }
    const waiting = this.waiting.filter((event) => event.sequence > this.last);
    this.waiting = [];
    if (waiting.length === 0 || this.stopped) return;
    waiting.sort((a, b) => a.sequence - b.sequence);
    const contiguous = waiting.every((event, index) => event.sequence === this.last + 1 + index);
    if (contiguous) this.send(waiting);
    else {
      this.waiting = waiting;
      void this.catchUp();
    }
  }

  /** Reads every row after the last sent; the waiting events are among them, stored before they were published. */
  private async catchUp(): Promise<void> {
    if (this.reading || this.stopped) return;
    this.reading = true;
    try {
      this.send(await this.missedEvents(this.orderId, this.last));
    } catch (error) {
      this.logger.warn({ err: error, orderId: this.orderId }, 'could not read missed order states; retrying');
      this.retry = setTimeout(() => void this.catchUp(), RETRY_AFTER_MS);
      this.retry.unref();
      return;
    } finally {
      this.reading = false;
    }
    this.drainWaiting();
  }

  private send(events: readonly StateChangedEvent[]): void {
    for (const event of events) {
      if (this.stopped || event.sequence <= this.last) continue;
      this.socket.emit('stateChanged', event);
      this.last = event.sequence;
    }
  }
}
