/**
 * The flooding process of the large-message scenario: many `/user/v1` connections (socket.io-client, WebSocket
 * only), each from its own loopback address (127.0.0.2 on), each sending `broadcastTransaction` messages just
 * under the message bound as fast as they are answered, a fixed number unanswered at a time. The packets are
 * written raw (built once): the client's own encoder would spend more on each than the flood is meant to cost
 * the server. Started by fork() from the bench or the test; reports what its messages were answered.
 *
 *   node --import tsx bench/socket-load/flooder.ts <url> <connections> <message-bytes> <in-flight> <seconds>
 */
import { io, type Socket } from 'socket.io-client';
import type { FloodMessage } from './flood-messages.js';

const NAMESPACE = '/user/v1';
const CONNECT_BATCH = 50;
/** Our own ack ids, far above the ones the client's emits would use. */
const FIRST_ACK_ID = 1_000_000;
const MAX_CONNECTIONS = 1_000;

/** The n-th flooding connection's source address: loopback only, never 127.0.0.1 (the bystander's). */
export function loopbackAddress(connection: number): string {
  const host = connection + 2;
  return `127.0.${(host >> 8) & 255}.${host & 255}`;
}

/** A `broadcastTransaction` packet's JSON of about `bytes` bytes: a hex string of that length. */
function broadcastJson(bytes: number): string {
  const envelope = '["broadcastTransaction",{"onchainTicker":"BTC","signedTxHex":""}]';
  return `["broadcastTransaction",{"onchainTicker":"BTC","signedTxHex":"${'ab'.repeat(Math.max(0, bytes - envelope.length - 64) >> 1)}"}]`;
}

function send(message: FloodMessage): void {
  process.send!(message);
}

function connect(url: string, connection: number): Promise<Socket> {
  const socket = io(`${url}${NAMESPACE}`, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    localAddress: loopbackAddress(connection),
  } as Parameters<typeof io>[1]);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

async function main(): Promise<void> {
  const [url, connectionsText, bytesText, inFlightText, secondsText] = process.argv.slice(2);
  const [connections, bytes, inFlight, seconds] = [connectionsText, bytesText, inFlightText, secondsText].map(Number);
  if (
    url === undefined ||
    !(connections! >= 1 && connections! <= MAX_CONNECTIONS) ||
    !(bytes! > 0) ||
    !(inFlight! >= 1) ||
    !(seconds! > 0)
  ) {
    throw new Error(
      `usage: flooder.ts <url> <connections 1..${MAX_CONNECTIONS}> <message-bytes> <in-flight> <seconds>`,
    );
  }
  const sockets: Socket[] = [];
  for (let first = 0; first < connections!; first += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, connections! - first) }, (_, index) =>
      connect(url, first + index),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  const json = broadcastJson(bytes!);
  const answers: Record<string, number> = {};
  let sent = 0;
  let closed = 0;
  let flooding = true;
  let nextId = FIRST_ACK_ID;
  const unanswered = new Map<Socket, Set<number>>();

  const sendOne = (socket: Socket) => {
    if (!flooding || !socket.connected) return;
    const id = nextId++;
    unanswered.get(socket)!.add(id);
    sent += 1;
    socket.io.engine.send(`2${NAMESPACE},${id}${json}`);
  };
  for (const socket of sockets) {
    unanswered.set(socket, new Set());
    const ackPrefix = `3${NAMESPACE},`;
    socket.io.engine.on('message', (data: unknown) => {
      if (typeof data !== 'string' || !data.startsWith(ackPrefix)) return;
      const bracket = data.indexOf('[', ackPrefix.length);
      const id = Number(data.slice(ackPrefix.length, bracket));
      if (!unanswered.get(socket)!.delete(id)) return;
      const [ack] = JSON.parse(data.slice(bracket)) as [{ success: boolean; message?: unknown }];
      const outcome = ack.success ? 'success' : String(ack.message);
      answers[outcome] = (answers[outcome] ?? 0) + 1;
      sendOne(socket);
    });
    socket.on('disconnect', () => {
      closed += 1;
    });
  }
  send({ type: 'flooding', connections: sockets.length, messageBytes: json.length });
  for (const socket of sockets) for (let n = 0; n < inFlight!; n++) sendOne(socket);
  await new Promise((resolve) => setTimeout(resolve, seconds! * 1000));
  flooding = false;
  let stillUnanswered = 0;
  for (const ids of unanswered.values()) stillUnanswered += ids.size;
  send({ type: 'flooded', sent, answers, unanswered: stillUnanswered, closed });
  for (const socket of sockets) socket.close();
  process.disconnect();
}

process.on('disconnect', () => process.exit(0));
main().catch((error: unknown) => {
  process.stderr.write(`[flooder] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
