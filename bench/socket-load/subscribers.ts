/**
 * The load process of the socket bench: holds many `/user/v1` connections (socket.io-client, WebSocket only),
 * each subscribed to its own order, and notes when each `stateChanged` arrives. Started by fork() from
 * bench/socket-load/run.ts with the service's URL, the first client number and the orders in argv/IPC.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { io, type Socket } from 'socket.io-client';
import { forwardedAddress } from './addresses.js';
import { preciseNow, type SubscriberMessage } from './messages.js';

const CONNECT_BATCH = 100;
const ACK_TIMEOUT_MS = 30_000;

interface StateChanged {
  orderId: string;
  sequence: number;
}

/** Resolves once the message is handed to the channel: a large one must be out before the channel closes. */
function send(message: SubscriberMessage): Promise<void> {
  return new Promise((resolve, reject) =>
    process.send!(message, undefined, {}, (error) => (error ? reject(error) : resolve())),
  );
}

function connect(url: string, clientNumber: number): Promise<Socket> {
  const socket = io(`${url}/user/v1`, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    extraHeaders: { 'x-forwarded-for': forwardedAddress(clientNumber) },
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

async function subscribe(socket: Socket, orderId: string): Promise<string | undefined> {
  const ack = (await socket.timeout(ACK_TIMEOUT_MS).emitWithAck('subscribeToOrderState', { orderId })) as {
    success: boolean;
    message?: unknown;
  };
  return ack.success ? undefined : String(ack.message);
}

async function main(): Promise<void> {
  const [url, firstClient] = [process.argv[2]!, Number(process.argv[3])];
  // The bench that started this process is gone: nothing will stop it otherwise.
  const orphaned = () => process.exit(1);
  process.on('disconnect', orphaned);
  const orderIds = await new Promise<string[]>((resolve) => process.once('message', (ids: string[]) => resolve(ids)));
  const receipts: (string | number)[] = [];
  const sockets: Socket[] = [];
  let disconnects = 0;
  const refusals: string[] = [];
  for (let start = 0; start < orderIds.length; start += CONNECT_BATCH) {
    const batch = orderIds.slice(start, start + CONNECT_BATCH);
    const connected = await Promise.all(batch.map((_, offset) => connect(url, firstClient + start + offset)));
    for (const socket of connected) {
      socket.on('stateChanged', (event: StateChanged) => receipts.push(event.orderId, event.sequence, preciseNow()));
      socket.on('disconnect', () => disconnects++);
      sockets.push(socket);
    }
    const refused = await Promise.all(connected.map((socket, offset) => subscribe(socket, batch[offset]!)));
    refusals.push(...refused.filter((token): token is string => token !== undefined));
  }
  const delay = monitorEventLoopDelay({ resolution: 10 });
  await send({ type: 'subscribed', count: sockets.length, refusals });
  delay.enable();
  await new Promise((resolve) => process.once('message', resolve));
  delay.disable();
  await send({ type: 'received', receipts, eventLoopDelayP99Ms: delay.percentile(99) / 1e6, disconnects });
  for (const socket of sockets) socket.close();
  process.off('disconnect', orphaned);
  process.disconnect();
}

main().catch((error: unknown) => {
  process.stderr.write(
    `[socket-load subscribers] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
