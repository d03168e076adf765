import assert from 'node:assert/strict';
import { afterEach, beforeEach } from 'node:test';
import type { OrderRecord, ProviderRecord } from '../../../src/domain/order.js';
import type { Store, StoreConfiguration } from '../../../src/store/store.js';
import { MOVE_CAUSE } from '../causes.js';
import { openFreshStore, type FreshStore, type StoreKind } from '../stores.js';

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

/** A funded order with two FUND transactions, one of them unconfirmed: what migrations must carry over. */
export function fundedOrderWithTwoTransactions(n: number): OrderRecord {
  return makeOrder(n, {
    state: 'Funded',
    transactions: [
      { type: 'FUND', id: 'a'.repeat(64), amount: 1000n, outputIndex: 0, blockHeight: 612_000 },
      { type: 'FUND', id: 'b'.repeat(64), amount: 34_590n, outputIndex: 1 },
    ],
  });
}

/**
 * After a migration that put the transaction lists on the orders' rows: both orders read back whole, and a move
 * that records a transaction (`id` 'c' x 64, 5 units, output 2) shows in `waiting`'s list.
 */
export async function assertTransactionListsKept(store: Store, funded: OrderRecord, waiting: OrderRecord) {
  assert.deepStrictEqual(await store.getOrder(funded.id), funded);
  assert.deepStrictEqual(await store.getOrder(waiting.id), waiting);
  const funding = { type: 'FUND', id: 'c'.repeat(64), amount: 5n, outputIndex: 2 } as const;
  const move = { orderId: waiting.id, from: 'WaitingForFundingTx', to: 'WaitingForFundingTxConfirmation' } as const;
  assert.ok(await store.transitionOrder({ ...move, at: 50, cause: MOVE_CAUSE, transaction: funding }));
  assert.deepStrictEqual((await store.getOrder(waiting.id))?.transactions, [funding]);
}

export function makeProvider(id: string, markets: ProviderRecord['markets'], active = true): ProviderRecord {
  return { id, active, markets };
}

export const CONFIGURATION: StoreConfiguration = {
  markets: ['ETH_LBTC', 'BTC_LBTC'],
  tokens: [],
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
