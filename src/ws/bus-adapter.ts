import type { Namespace } from 'socket.io';
import {
  ClusterAdapterWithHeartbeat,
  type BroadcastOptions,
  type ClusterMessage,
  type ClusterResponse,
  type Offset,
} from 'socket.io-adapter';
import type { ClusterBus } from './cluster-bus.js';

export interface ClusterTiming {
  readonly heartbeatIntervalMs: number;
  readonly heartbeatTimeoutMs: number;
}

/**
 * The adapter factory for instances sharing `bus`. socket.io calls it with `new`, so it is a function
 * expression (which may return the object to construct), never an arrow function.
 */
export function busAdapter(bus: ClusterBus, timing: ClusterTiming): (namespace: Namespace) => BusAdapter {
  return function adapterFor(namespace: Namespace) {
    return new BusAdapter(namespace, bus, timing);
  };
}

/**
 * socket.io's cluster adapter over a ClusterBus. Publishing only queues on the bus, so an emit reaches this
 * instance's own sockets at once whether or not the database answers; the maintained PostgreSQL adapter waits
 * for its NOTIFY first, and a hung connection stopped local delivery with it (docs/websocket.md).
 */
export class BusAdapter extends ClusterAdapterWithHeartbeat {
  private readonly stopDelivery: () => void;
  private readonly stopReconnects: () => void;

  constructor(
    namespace: Namespace,
    private readonly bus: ClusterBus,
    private readonly timing: ClusterTiming,
  ) {
    super(namespace, { heartbeatInterval: timing.heartbeatIntervalMs, heartbeatTimeout: timing.heartbeatTimeoutMs });
    this.stopDelivery = bus.subscribe(namespace.name, (payload) => this.deliver(payload));
    // Peers dropped this instance while the bus was down: announcing it again makes them answer at once.
    this.stopReconnects = bus.onReconnect(() => this.init());
  }

  /**
   * Refused while the bus is down and for one heartbeat interval after it returns, until every peer has
   * been heard from: a lookup answered by this instance alone would look as if the others had no sockets.
   */
  override fetchSockets(opts: BroadcastOptions): ReturnType<ClusterAdapterWithHeartbeat['fetchSockets']> {
    if (opts.flags?.local !== true && !this.hearsEveryPeer()) {
      return Promise.reject(new Error('the cluster bus has not heard from every instance yet'));
    }
    return super.fetchSockets(opts);
  }

  override close(): void {
    this.stopDelivery();
    this.stopReconnects();
    super.close();
  }

  protected override doPublish(message: ClusterMessage): Promise<Offset> {
    this.bus.publish(this.namespaceName(), JSON.stringify(message));
    // No connection state recovery, so no offset.
    return Promise.resolve('');
  }

  protected override doPublishResponse(_requesterUid: string, response: ClusterResponse): Promise<void> {
    this.bus.publish(this.namespaceName(), JSON.stringify(response));
    return Promise.resolve();
  }

  /** socket.io-adapter types its namespace loosely: it does not depend on socket.io. */
  private namespaceName(): string {
    return (this.nsp as { readonly name: string }).name;
  }

  private hearsEveryPeer(): boolean {
    const since = this.bus.connectedSince();
    return since !== undefined && Date.now() - since >= this.timing.heartbeatIntervalMs;
  }

  private deliver(payload: string): void {
    let message: ClusterMessage;
    try {
      message = JSON.parse(payload) as ClusterMessage;
    } catch {
      return;
    }
    this.onMessage(message);
  }
}
