/**
 * The flooding process of the large-message scenario: many `/user/v1` connections, each from its own loopback
 * address (127.0.0.2 on), each sending `broadcastTransaction` messages just under the message bound as fast as
 * they are answered, a fixed number unanswered at a time. The connections are written by hand
 * (bench/socket-load/raw-websocket.ts) and the frames built once, so the flood costs its sender next to nothing,
 * as it would a determined one. Started by fork() from the bench or the test: connects, floods from the message
 * `start` on, and reports how its messages were answered.
 *
 *   node --import tsx bench/socket-load/flooder.ts <url> <connections> <message-bytes> <in-flight> <seconds>
 */
import type { FloodMessage } from './flood-messages.js';
import { RawEngineSocket, zeroMaskedTextFrame } from './raw-websocket.js';

const NAMESPACE = '/user/v1';
const CONNECT_BATCH = 50;
const MAX_CONNECTIONS = 1_000;
const MAX_IN_FLIGHT = 9;

/** The n-th flooding connection's source address: loopback only, never 127.0.0.1 (the bystander's). */
export function loopbackAddress(connection: number): string {
  const host = connection + 2;
  return `127.0.${(host >> 8) & 255}.${host & 255}`;
}

/** The packet of a `broadcastTransaction` with ack id `id`, about `bytes` long: a hex string of that length. */
function broadcastPacket(id: number, bytes: number): string {
  const head = `42${NAMESPACE},${id}["broadcastTransaction",{"onchainTicker":"BTC","signedTxHex":"`;
  const tail = '"}]';
  return `${head}${'ab'.repeat(Math.max(0, bytes - head.length - tail.length) >> 1)}${tail}`;
}

function send(message: FloodMessage): void {
  process.send!(message);
}

async function connect(url: string, connection: number): Promise<RawEngineSocket> {
  const socket = await RawEngineSocket.open(url, loopbackAddress(connection));
  await socket.join(NAMESPACE);
  return socket;
}

async function main(): Promise<void> {
  const [url, ...numbers] = process.argv.slice(2);
  const [connections, bytes, inFlight, seconds] = numbers.map(Number) as [number, number, number, number];
  if (
    url === undefined ||
    !(connections >= 1 && connections <= MAX_CONNECTIONS) ||
    !(bytes > 0) ||
    !(inFlight >= 1 && inFlight <= MAX_IN_FLIGHT) ||
    !(seconds > 0)
  ) {
    throw new Error(
      `usage: flooder.ts <url> <connections 1..${MAX_CONNECTIONS}> <message-bytes> <in-flight 1..${MAX_IN_FLIGHT}> <seconds>`,
    );
  }
  const sockets: RawEngineSocket[] = [];
  for (let first = 0; first < connections; first += CONNECT_BATCH) {
    const batch = Array.from({ length: Math.min(CONNECT_BATCH, connections - first) }, (_, index) =>
      connect(url, first + index),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  // Ack ids 1..inFlight, one frame each, shared by every connection: a connection resends a frame when its ack comes.
  const frames = Array.from({ length: inFlight }, (_, index) => zeroMaskedTextFrame(broadcastPacket(index + 1, bytes)));
  const answers: Record<string, number> = {};
  let sent = 0;
  let answered = 0;
  let flooding = true;
  const ackPrefix = `43${NAMESPACE},`;

  for (const socket of sockets) {
    socket.onPacket((packet) => {
      if (!packet.startsWith(ackPrefix)) return;
      const bracket = packet.indexOf('[', ackPrefix.length);
      const id = Number(packet.slice(ackPrefix.length, bracket));
      const [ack] = JSON.parse(packet.slice(bracket)) as [{ success: boolean; message?: unknown }];
      const outcome = ack.success ? 'success' : String(ack.message);
      answers[outcome] = (answers[outcome] ?? 0) + 1;
      answered += 1;
      if (!flooding || frames[id - 1] === undefined) return;
      sent += 1;
      socket.send(frames[id - 1]!);
    });
  }
  send({ type: 'connected', connections: sockets.length, messageBytes: frames[0]!.length });
  await new Promise((resolve) => process.once('message', resolve));
  for (const socket of sockets) {
    for (const frame of frames) {
      sent += 1;
      socket.send(frame);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  flooding = false;
  const closed = sockets.filter((socket) => socket.closed).length;
  send({ type: 'flooded', sent, answers, unanswered: sent - answered, closed });
  for (const socket of sockets) socket.close();
  process.disconnect();
}

process.on('disconnect', () => process.exit(0));
main().catch((error: unknown) => {
  process.stderr.write(`[flooder] ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
