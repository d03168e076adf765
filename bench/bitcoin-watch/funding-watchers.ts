import { io, type Socket } from 'socket.io-client';

interface StateChanged {
  readonly orderId: string;
  readonly state: string;
}

/** When an order's first `stateChanged` arrived (ms, `performance.now()`), and the state it named. */
export interface FirstEvent {
  readonly at: number;
  readonly state: string;
}

const ACK_TIMEOUT_MS = 10_000;

/**
 * One `/user/v1` connection per funded order, subscribed to it as the wallet paying it would be, noting the
 * first `stateChanged` each order's wallet hears.
 */
export class FundingWatchers {
  readonly firstEvents = new Map<string, FirstEvent>();

  private constructor(private readonly sockets: readonly Socket[]) {}

  static async connect(serviceUrl: string, orderIds: readonly string[]): Promise<FundingWatchers> {
    const sockets: Socket[] = [];
    const watchers = new FundingWatchers(sockets);
    try {
      for (const orderId of orderIds) {
        const socket = io(`${serviceUrl}/user/v1`, { transports: ['websocket'], forceNew: true, reconnection: false });
        sockets.push(socket);
        socket.on('stateChanged', (event: StateChanged) => {
          if (event.orderId === orderId && !watchers.firstEvents.has(orderId)) {
            watchers.firstEvents.set(orderId, { at: performance.now(), state: event.state });
          }
        });
        const ack = (await socket.timeout(ACK_TIMEOUT_MS).emitWithAck('subscribeToOrderState', { orderId })) as {
          success: boolean;
          message?: unknown;
        };
        if (!ack.success) throw new Error(`subscribeToOrderState ${orderId} refused: ${String(ack.message)}`);
      }
    } catch (error) {
      watchers.close();
      throw error;
    }
    return watchers;
  }

  close(): void {
    for (const socket of this.sockets) socket.close();
  }
}
