/**
 * The codec trial (issue 11): each hand-written codec against the maintained library doing the same job, on
 * the values a full `lnswap import` of the bench's snapshot hands it. Both must give the same answers on every
 * sampled value; then each is timed over the sample, alternately, several rounds, and the difference per call
 * times the calls of a whole import says what keeping the hand-written one saves.
 *
 *   npm run bench:codecs                  # the 1,000,000-order snapshot, built first if .bench-cache lacks it
 *   BENCH_ORDERS=20000 npm run bench:codecs
 *   CODEC_TRIAL_SAMPLE_EVERY=10 CODEC_TRIAL_ROUNDS=7 CODEC_TRIAL_ONLY=hex,timestamps npm run bench:codecs
 */
import { deepStrictEqual } from 'node:assert/strict';
import { loadavg } from 'node:os';
import { splitBech32 } from '../../src/domain/bech32.js';
import { decodeBase58Address, decodeSegwitAddress } from '../../src/domain/bitcoin-address.js';
import { readInvoice } from '../../src/domain/bolt11-reader.js';
import { isHexBytes, isHexOfLength, isZeroXHex } from '../../src/domain/hex.js';
import { parseIsoTimestamp } from '../../src/snapshot/iso-timestamp.js';
import { ensureBuilt } from '../../scripts/ensure-built.js';
import { prepareSnapshot } from '../dataset/datasets.js';
import { median } from '../report/summary.js';
import { readSettings } from '../settings.js';
import * as handWrittenHex from './hand-written/hex.js';
import {
  decodeAddressWithLibrary,
  parseTimestampWithLibrary,
  readInvoiceWithLibrary,
  splitBech32WithLibrary,
} from './library-codecs.js';
import { readSnapshotValues, type AddressCall, type CodecInputs, type HexCall } from './snapshot-values.js';

interface Contender<T> {
  readonly name: string;
  /** One call; what it returns is compared between the two contenders. */
  readonly run: (value: T) => unknown;
}

interface Trial<T> {
  readonly codec: string;
  readonly inputs: CodecInputs<T>;
  readonly handWritten: Contender<T>;
  readonly library: Contender<T>;
  /** The answers in a comparable shape, where the two spell the same answer differently. */
  readonly comparable?: (answer: unknown) => unknown;
}

const rounds = Number(process.env.CODEC_TRIAL_ROUNDS ?? 7);
const sampleEvery = Number(process.env.CODEC_TRIAL_SAMPLE_EVERY ?? 10);
/** Comma-separated words; a codec runs when its name contains one of them (e.g. `hex,timestamps`). */
const only = process.env.CODEC_TRIAL_ONLY?.split(',').filter(Boolean);

function log(message: string): void {
  process.stderr.write(`[codec-trial] ${message}\n`);
}

function handAddress({ address }: AddressCall) {
  const segwit = decodeSegwitAddress(address);
  if (segwit !== undefined)
    return { kind: 'segwit', prefix: segwit.prefix, version: segwit.version, program: segwit.program };
  const legacy = decodeBase58Address(address);
  return legacy === undefined ? undefined : { kind: 'base58', version: legacy.version, hash: legacy.hash };
}

function handHex(call: HexCall): boolean {
  if (call.kind === 'hexBytes') return handWrittenHex.isHexBytes(call.text);
  if (call.kind === 'hexOfLength') return handWrittenHex.isHexOfLength(call.text, call.digits);
  return handWrittenHex.isZeroXHex(call.text, call.digits);
}

/** src/domain/hex.ts: regular expressions since the trial. */
function regexHex(call: HexCall): boolean {
  if (call.kind === 'hexBytes') return isHexBytes(call.text);
  if (call.kind === 'hexOfLength') return isHexOfLength(call.text, call.digits);
  return isZeroXHex(call.text, call.digits);
}

/** Bytes as hex and amounts as decimal text, so that a Buffer and a Uint8Array holding the same bytes compare equal. */
function bytesAsHex(answer: unknown): unknown {
  if (answer === undefined || answer === null) return undefined;
  if (answer instanceof Uint8Array) return Buffer.from(answer).toString('hex');
  if (typeof answer === 'bigint') return answer.toString();
  if (typeof answer !== 'object') return answer;
  return Object.fromEntries(Object.entries(answer).map(([key, value]) => [key, bytesAsHex(value)]));
}

let sink = 0;

/**
 * CPU seconds (user and system, this process) for one pass of `run` over every sampled value: on a shared
 * machine, wall time also counts the time other processes held the core.
 */
function pass<T>(values: readonly T[], run: (value: T) => unknown): number {
  const started = process.cpuUsage();
  for (let i = 0; i < values.length; i++) if (run(values[i]!) !== undefined) sink++;
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1e6;
}

interface TrialResult {
  readonly codec: string;
  readonly library: string;
  readonly calls: number;
  readonly handMicros: number;
  readonly libraryMicros: number;
  readonly savedSeconds: number;
}

function runTrial<T>(trial: Trial<T>): TrialResult | undefined {
  if (only !== undefined && !only.some((word) => trial.codec.includes(word))) return undefined;
  const { sample, callsPerImport } = trial.inputs;
  const comparable = trial.comparable ?? bytesAsHex;
  sample.forEach((value, index) => {
    deepStrictEqual(
      comparable(trial.library.run(value)),
      comparable(trial.handWritten.run(value)),
      `${trial.codec}: the two differ on sampled value ${index}: ${JSON.stringify(value)}`,
    );
  });
  // A warm-up pass each, then alternate which goes first so drift on the machine falls on both.
  pass(sample, trial.handWritten.run);
  pass(sample, trial.library.run);
  const hand: number[] = [];
  const library: number[] = [];
  for (let round = 0; round < rounds; round++) {
    if (round % 2 === 0) {
      hand.push(pass(sample, trial.handWritten.run));
      library.push(pass(sample, trial.library.run));
    } else {
      library.push(pass(sample, trial.library.run));
      hand.push(pass(sample, trial.handWritten.run));
    }
  }
  const handMicros = (median(hand) / sample.length) * 1e6;
  const libraryMicros = (median(library) / sample.length) * 1e6;
  return {
    codec: trial.codec,
    library: trial.library.name,
    calls: callsPerImport,
    handMicros,
    libraryMicros,
    savedSeconds: ((libraryMicros - handMicros) * callsPerImport) / 1e6,
  };
}

ensureBuilt(log);
const { orders } = readSettings();
const snapshotFile = await prepareSnapshot(orders);
log(`reading ${snapshotFile}, sampling every ${sampleEvery}th order`);
const values = await readSnapshotValues(snapshotFile, sampleEvery);
const loadBefore = loadavg();

const trials = [
  runTrial({
    codec: 'BOLT11 reader (src/domain/bolt11-reader.ts)',
    inputs: values.invoices,
    handWritten: { name: 'readInvoice', run: readInvoice },
    library: { name: 'light-bolt11-decoder + @scure/base', run: readInvoiceWithLibrary },
  }),
  runTrial({
    codec: 'bech32 (src/domain/bech32.ts)',
    inputs: values.bech32,
    handWritten: { name: 'splitBech32', run: splitBech32 },
    library: { name: '@scure/base bech32/bech32m', run: splitBech32WithLibrary },
    // splitBech32 also splits text whose checksum fails (its callers judge it): compare what both accept.
    comparable: (answer) => {
      const parts = answer as { prefix: string; words: ArrayLike<number>; checksum?: number } | undefined;
      if (
        parts === undefined ||
        (parts.checksum !== undefined && parts.checksum !== 1 && parts.checksum !== 0x2bc830a3)
      )
        return undefined;
      return { prefix: parts.prefix, words: Array.from(parts.words) };
    },
  }),
  runTrial({
    codec: 'Bitcoin addresses (src/domain/bitcoin-address.ts)',
    inputs: values.addresses,
    handWritten: { name: 'decodeSegwitAddress, decodeBase58Address', run: handAddress },
    library: {
      name: 'bitcoinjs-lib address.fromBech32, fromBase58Check',
      run: (call) => decodeAddressWithLibrary(call.address),
    },
  }),
  runTrial({
    codec: 'hex checks (src/domain/hex.ts)',
    inputs: values.hex,
    handWritten: { name: 'isHexOfLength, isHexBytes, isZeroXHex', run: handHex },
    library: { name: 'regular expressions', run: regexHex },
  }),
  runTrial({
    codec: 'timestamps (src/snapshot/iso-timestamp.ts)',
    inputs: values.timestamps,
    handWritten: { name: 'parseIsoTimestamp', run: parseIsoTimestamp },
    library: { name: 'format check + Date.parse + toISOString round trip', run: parseTimestampWithLibrary },
  }),
].filter((result) => result !== undefined);

const loadAfter = loadavg();
const lines = [
  `Codec trial: ${values.orders.toLocaleString('en')}-order snapshot, every ${sampleEvery}th order's values, ${rounds} rounds alternating, medians of CPU time`,
  `load average ${loadBefore.map((load) => load.toFixed(2)).join(' / ')} before, ${loadAfter.map((load) => load.toFixed(2)).join(' / ')} after`,
  '',
  '| codec | library | calls per import | hand-written µs | library µs | seconds the hand-written one saves |',
  '|---|---|---:|---:|---:|---:|',
  ...trials.map(
    (trial) =>
      `| ${trial.codec} | ${trial.library} | ${trial.calls.toLocaleString('en')} | ${trial.handMicros.toFixed(3)} | ${trial.libraryMicros.toFixed(3)} | ${trial.savedSeconds.toFixed(2)} |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
if (sink < 0) process.stdout.write('unreachable\n');
