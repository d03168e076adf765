import { hash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { findMarket } from '../../src/domain/markets.js';
import type { SnapshotOrder } from '../../src/snapshot/snapshot-format.js';

/** The values one codec is handed during an import, and how many times the whole import hands them over. */
export interface CodecInputs<T> {
  /** Every `sampleEvery`-th order's values, in snapshot order. */
  readonly sample: T[];
  /** Calls of the codec in a full import of the snapshot. */
  callsPerImport: number;
}

export interface HexCall {
  readonly kind: 'hexOfLength' | 'hexBytes' | 'zeroXHex';
  readonly text: string;
  readonly digits: number;
}

export interface AddressCall {
  readonly address: string;
}

export interface SnapshotValues {
  readonly orders: number;
  readonly sampleEvery: number;
  /** Invoices parsed: the import parses a repeated invoice again only once 10,000 others came between. */
  readonly invoices: CodecInputs<string>;
  /** Every string the bech32 splitter sees: parsed invoices, and each Bitcoin address (segwit is tried first). */
  readonly bech32: CodecInputs<string>;
  readonly addresses: CodecInputs<AddressCall>;
  readonly hex: CodecInputs<HexCall>;
  readonly timestamps: CodecInputs<string>;
}

/** As `InvoiceChecks` remembers invoices (src/snapshot/invoice-checks.ts). */
const REMEMBERED_INVOICES = 10_000;

function inputs<T>(): CodecInputs<T> {
  return { sample: [], callsPerImport: 0 };
}

/**
 * Reads a snapshot written by `lnswap export` (one order a line) and lists, for each hand-written codec, the
 * values the importer hands it, as src/snapshot/validate-order.ts and the domain functions it calls do.
 */
export async function readSnapshotValues(snapshotFile: string, sampleEvery: number): Promise<SnapshotValues> {
  const values = {
    invoices: inputs<string>(),
    bech32: inputs<string>(),
    addresses: inputs<AddressCall>(),
    hex: inputs<HexCall>(),
    timestamps: inputs<string>(),
  };
  const remembered = new Set<string>();
  let orders = 0;
  const lines = createInterface({ input: createReadStream(snapshotFile), crlfDelay: Infinity });
  for await (const line of lines) {
    const trimmed = line.startsWith(',') ? line.slice(1) : line;
    if (!trimmed.startsWith('{"id"') || !trimmed.includes('"invoice":')) continue;
    const order = JSON.parse(trimmed.endsWith(',') ? trimmed.slice(0, -1) : trimmed) as SnapshotOrder;
    const sampled = orders % sampleEvery === 0;
    orders++;
    const add = <T>(target: CodecInputs<T>, value: T) => {
      target.callsPerImport++;
      if (sampled) target.sample.push(value);
    };
    const isBitcoin = findMarket(order.market)?.onchain.chain === 'bitcoin';

    if (!remembered.has(order.invoice)) {
      if (remembered.size >= REMEMBERED_INVOICES) remembered.clear();
      remembered.add(order.invoice);
      add(values.invoices, order.invoice);
      add(values.bech32, order.invoice);
    }
    add(values.timestamps, order.createdAt);
    add(values.timestamps, order.expiryTimestamp);
    for (const address of isBitcoin ? [order.payToAddress, order.refundAddress] : []) {
      if (address === undefined) continue;
      add(values.addresses, { address });
      add(values.bech32, address);
    }
    if (!isBitcoin) add(values.hex, { kind: 'zeroXHex', text: order.payToAddress, digits: 40 });
    if (order.paymentPreimage !== undefined) {
      // validateOrder's own check, then preimageMatchesPaymentHash's two.
      add(values.hex, { kind: 'hexOfLength', text: order.paymentPreimage, digits: 64 });
      add(values.hex, { kind: 'hexOfLength', text: order.paymentPreimage, digits: 64 });
      const paymentHash = hash('sha256', Buffer.from(order.paymentPreimage, 'hex'), 'hex');
      add(values.hex, { kind: 'hexOfLength', text: paymentHash, digits: 64 });
    }
    if (order.htlc.redeemScript !== undefined)
      add(values.hex, { kind: 'hexBytes', text: order.htlc.redeemScript, digits: 0 });
    for (const transaction of order.transactions) {
      add(
        values.hex,
        isBitcoin
          ? { kind: 'hexOfLength', text: transaction.id, digits: 64 }
          : { kind: 'zeroXHex', text: transaction.id, digits: 64 },
      );
    }
  }
  return { orders, sampleEvery, ...values };
}
