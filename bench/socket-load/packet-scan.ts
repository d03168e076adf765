/**
 * What the server spends on one `broadcastTransaction` packet of about 2 MiB before its handler runs: the
 * nesting count on the raw text, JSON.parse, and the payload's bound check. The packet text is made as engine.io
 * makes it (a WebSocket frame's Buffer decoded, its engine.io type character cut off). The fastest of 50 runs
 * each: the machine is shared, and the slower runs measure the neighbours.
 *
 *   node --import tsx bench/socket-load/packet-scan.ts
 */
import { nestingExceeds, packetDataStart } from '../../src/ws/bounded-parser.js';
import { checkPayloadBounds } from '../../src/ws/payload-bounds.js';
import { readPacketHeader } from '../../src/ws/packet-header.js';

const RUNS = 50;
const MESSAGE_BYTES = 2 * 1024 * 1024 - 1024;

function timed(work: () => unknown): number {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return Math.min(...times);
}

const hex = 'ab'.repeat((MESSAGE_BYTES - 100) >> 1);
const frame = Buffer.from(`42/user/v1,7["broadcastTransaction",{"onchainTicker":"BTC","signedTxHex":"${hex}"}]`);
const text = frame.toString().substring(1);
const start = packetDataStart(text);
const [, payload] = JSON.parse(text.slice(start)) as [string, unknown];
const figures = {
  packetChars: text.length,
  decodeMs: timed(() => frame.toString().substring(1)),
  headerMs: timed(() => readPacketHeader(text)),
  nestingMs: timed(() => nestingExceeds(text, 64, packetDataStart(text))),
  parseMs: timed(() => JSON.parse(text.slice(start))),
  boundsMs: timed(() => checkPayloadBounds(payload, { maxBytes: 4 * 1024 * 1024, maxDepth: 32 })),
};
process.stdout.write(
  `${JSON.stringify(figures, (_key, value: unknown) => (typeof value === 'number' ? Math.round(value * 100) / 100 : value))}\n`,
);
