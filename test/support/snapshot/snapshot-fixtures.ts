import { Readable, Writable } from 'node:stream';
import { chainsToSnapshot, orderToSnapshot, providerToSnapshot } from '../../../src/snapshot/snapshot-format.js';
import { KNOWN_CATALOG } from '../../../src/domain/market-catalog.js';
import { exportSnapshot } from '../../../src/snapshot/export-snapshot.js';
import type { Store } from '../../../src/store/store.js';
import { buildOrder, configuration, payReq, provider, type BuiltOrder } from '../fixtures.js';

/** A snapshot as plain JSON, free to damage before it is written out. */
export interface SnapshotDocument {
  [key: string]: unknown;
  version: unknown;
  markets: unknown[];
  chains: Record<string, Record<string, unknown>>;
  providers: Record<string, unknown>[];
  orders: Record<string, unknown>[];
}

const ETHEREUM_CLAIMER = '0x00000000000000000000000000000000000000b2';

/** orders[0] and orders[1] are Bitcoin-style, orders[2] Ethereum-style and quotes orders[1]'s invoice. */
export function sampleOrders(): BuiltOrder[] {
  const first = buildOrder({ label: 'snapshot first', state: 'Complete', funds: [35590n], preimageKnown: true });
  const bitcoin = buildOrder({
    label: 'snapshot bitcoin',
    state: 'WaitingForRefundTx',
    funds: [20000n, 15590n],
    createdAt: first.record.createdAt + 60_000,
  });
  const ethereum = buildOrder({
    label: 'snapshot ethereum',
    market: 'ETH_LBTC',
    state: 'Refunded',
    funds: [499_500_000_000_000_000n],
    refunded: true,
    sameInvoiceAs: bitcoin,
    createdAt: first.record.createdAt + 120_000,
  });
  // The order a provider won names it, and on Ethereum the payout address its claim pays.
  return [
    { ...first, record: { ...first.record, providerId: 'maker-a' } },
    bitcoin,
    { ...ethereum, record: { ...ethereum.record, providerId: 'maker-b', claimAddress: ETHEREUM_CLAIMER } },
  ];
}

/** A valid snapshot, unlike the sample store's contents in every part, so a partial import would show. */
export function validDocument(): SnapshotDocument {
  const config = configuration({
    chains: {
      bitcoin: { blockHeight: 700_000, feeTokensPerVirtualByte: 3 },
      ethereum: { blockHeight: 13_000_000, swapContractAddress: '0x1111111111111111111111111111111111111111' },
    },
    providers: [
      provider('maker-a', true, { BTC_LBTC: payReq(1800n, 2000n, 500000n) }),
      provider('maker-b', false, { ETH_LBTC: payReq(3600n, 1000n, 4294967n) }),
    ],
  });
  return asDocument({
    version: 1,
    markets: config.markets,
    chains: chainsToSnapshot(config.chains),
    providers: config.providers.map(providerToSnapshot),
    orders: sampleOrders().map(({ record }) => orderToSnapshot(record, KNOWN_CATALOG)),
  });
}

/** What the store holds before each refused import. */
export function seedDocument(): SnapshotDocument {
  const order = buildOrder({ label: 'already stored', state: 'Funded', funds: [35590n] });
  return asDocument({
    version: 1,
    markets: ['BTC_LBTC'],
    chains: { bitcoin: { blockHeight: 612_100, feeTokensPerVirtualByte: 12 } },
    providers: [providerToSnapshot(provider('maker-1', true, { BTC_LBTC: payReq(3600n, 1000n, 4294967n) }))],
    orders: [orderToSnapshot(order.record, KNOWN_CATALOG)],
  });
}

function asDocument(value: unknown): SnapshotDocument {
  return JSON.parse(JSON.stringify(value)) as SnapshotDocument;
}

export function render(document: SnapshotDocument): string {
  return JSON.stringify(document);
}

/** The bytes in chunks of `chunkSize`, as a file or pipe would deliver them. */
export function chunked(text: string, chunkSize = 64 * 1024): Readable {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  for (let start = 0; start < bytes.length; start += chunkSize) chunks.push(bytes.subarray(start, start + chunkSize));
  return Readable.from(chunks);
}

export async function exportText(store: Store): Promise<string> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  });
  await exportSnapshot(store, sink);
  return Buffer.concat(chunks).toString('utf8');
}
