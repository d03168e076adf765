/**
 * How instances serving one database reach each other: messages per topic, fire and forget. The service
 * injects an implementation (PostgreSQL LISTEN/NOTIFY for a PostgreSQL store); src/ws knows only this.
 */
export interface ClusterBus {
  /**
   * Queues `payload` for every other instance subscribed to `topic` and returns at once: it never waits for
   * the database and never throws. While the bus is down, messages wait (bounded in number and age).
   */
  publish(topic: string, payload: string): void;
  /** Hands `deliver` each message another instance publishes on `topic`; returns the function that stops it. */
  subscribe(topic: string, deliver: (payload: string) => void): () => void;
  /** Calls `listener` each time the bus is back after losing its connection; returns the function that stops it. */
  onReconnect(listener: () => void): () => void;
  /** Since when, by Date.now(), other instances' messages reach this one; undefined while they cannot. */
  connectedSince(): number | undefined;
  close(): Promise<void>;
}
