import { afterEach, beforeEach } from 'node:test';
import type { OrderRecord, ProviderRecord } from '../../src/domain/order.js';
import type { Store, StoreConfiguration } from '../../src/store/store.js';
import { openFreshStore, type FreshStore, type StoreKind } from '../support/stores.js';

/** A well-formed order id whose sort order follows `n`. */
export function orderId(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export function hex64(n: number): string {
  return n.toString(16).padStart(64, '0');
}

/** An order with every optional field absent; the store does not validate, so any text serves as invoice. */
export function makeOrder(n: number, fields: Partial<OrderRecord> = {}): OrderRecord {
  return {
    id: orderId(n),
    market: 'BTC_LBTC',
    invoice: `lnbc-test-invoice-${n}`,
    invoiceHash: hex64(n),
    paymentHash: hex64(1_000_000 + n),
    createdAt: 1_600_000_000_000 + n,
    expiresAt: 1_600_000_600_000 + n,
    state: 'WaitingForFundingTx',
    amount: 35_590n,
    payToAddress: '383HpQyScZvbyXJrdD6WCnLGRBeeQMBDX7',
    htlc: { refundableAtBlockHeight: 612_183 },
    transactions: [],
    ...fields,
  };
}

export function makeProvider(id: string, markets: ProviderRecord['markets'], active = true): ProviderRecord {
  return { id, active, markets };
}

export const CONFIGURATION: StoreConfiguration = {
  markets: ['ETH_LBTC', 'BTC_LBTC'],
  chains: {
    bitcoin: { blockHeight: 612_100, feeTokensPerVirtualByte: 12.5 },
    ethereum: { blockHeight: 9_230_000, swapContractAddress: '0xf0398fad8c2aa38c476b010c269158d442730e98' },
  },
  providers: [
    makeProvider('maker-b', {
      ETH_LBTC: { minExpirationSeconds: 7200n, minBaseUnits: 5000n, maxBaseUnits: 2n ** 70n },
      BTC_LBTC: { minExpirationSeconds: 3600n, minBaseUnits: 1000n, maxBaseUnits: 4_294_967n },
    }),
    makeProvider('maker-a', { BTC_LBTC: { minExpirationSeconds: 1800n, minBaseUnits: 1n, maxBaseUnits: 10n } }, false),
  ],
};

/**
 * Registers hooks giving each test of the enclosing suite a new empty store of `kind`; read `current()` inside
 * a test.
 */
export function useFreshStore(kind: StoreKind): { current(): FreshStore; store(): Store } {
  let fresh: FreshStore | undefined;
  beforeEach(async () => {
    fresh = await openFreshStore(kind);
  });
  afterEach(async () => {
    await fresh?.dispose();
    fresh = undefined;
  });
  const current = () => {
    if (fresh === undefined) throw new Error('No fresh store outside a test');
    return fresh;
  };
  return { current, store: () => current().store };
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}
