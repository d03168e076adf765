/**
 * The watcher's requests to the Bitcoin node per pass do not grow with the number of live orders: the same
 * pass (a new block, a few new mempool transactions, one of them paying an order) costs the same against 100
 * orders as against 10,000, on both backends. Orders go into the store in one batch, made from one real order
 * with their own ids, payment hashes and HTLC addresses. The precise figures are the bench's.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { payments } from 'bitcoinjs-lib';
import type { BitcoinBackend } from '../../../src/chains/bitcoin/bitcoin-backend.js';
import { CoreRpcBackend } from '../../../src/chains/bitcoin/core-rpc-backend.js';
import { EsploraBackend } from '../../../src/chains/bitcoin/esplora-backend.js';
import type { OrderRecord } from '../../../src/domain/order.js';
import { ChainWatcher } from '../../../src/engine/chain-following/chain-watcher.js';
import { BitcoinTestChain } from '../../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../support/bitcoin-node/server.js';
import { buildPayment, p2wpkhAddress, walletKey, type Outpoint } from '../../support/bitcoin-wallet.js';
import { BITCOIN_VIEW, buildOrder, configuration, hex32, seedStore } from '../../support/fixtures.js';
import { openFreshStore, type FreshStore } from '../../support/stores.js';
import { silentLogger } from '../../support/ws/harness.js';

const SIZES = [100, 10_000];
/** New mempool transactions per pass: a few a second at a 10 s poll would be more; the count is per transaction. */
const NEW_IN_MEMPOOL = 5;

const user = walletKey(hex32('request count user'));
const elsewhere = p2wpkhAddress(walletKey(hex32('request count elsewhere')), 'mainnet');

/** `count` live orders like `template`, each with its own id, payment hash and HTLC address. */
function ordersLike(template: OrderRecord, count: number): OrderRecord[] {
  return Array.from({ length: count }, () => {
    const hash = randomBytes(32);
    const { address } = payments.p2wsh({ hash });
    return {
      ...template,
      id: randomUUID(),
      paymentHash: randomBytes(32).toString('hex'),
      invoiceHash: randomBytes(32).toString('hex'),
      payToAddress: address!,
      createdAt: Date.now(),
      expiresAt: Date.now() + 3_600_000,
    };
  });
}

describe('requests to the Bitcoin node per pass, from 100 to 10,000 live orders', () => {
  let chain: BitcoinTestChain;
  let node: TestBitcoinNode;
  let coin: Outpoint;
  const stores: FreshStore[] = [];
  /** Per store, the orders each backend's pass pays, one each. */
  const toPay = new Map<number, OrderRecord[]>();

  before(async () => {
    chain = new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight);
    const coinbase = chain.mine({ coinbaseTo: p2wpkhAddress(user, 'mainnet') }).txs[0]!;
    coin = { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value };
    chain.mine({ txs: [] });
    node = await startTestBitcoinNode(chain);
    const template = buildOrder({ label: 'request count', createdAt: Date.now() }).record;
    for (const size of SIZES) {
      const fresh = await openFreshStore('sqlite');
      stores.push(fresh);
      const orders = ordersLike(template, size);
      toPay.set(size, orders.slice(-2));
      await seedStore(fresh.store, { configuration: configuration({ markets: ['BTC_LBTC'] }), orders });
    }
  });
  after(async () => {
    await node?.close();
    for (const fresh of stores) await fresh.dispose();
  });

  function pay(address: string): void {
    const tx = buildPayment(user, coin, [{ address, amount: 50_000n }], 'mainnet');
    chain.submit(tx.toHex());
    coin = { txId: tx.getId(), index: 1, amount: tx.outs[1]!.value };
  }

  const backends: Record<string, () => BitcoinBackend> = {
    esplora: () => new EsploraBackend(node.esploraUrl, 'mainnet'),
    'core rpc': () => new CoreRpcBackend(node.rpcUrl, 'mainnet'),
  };

  for (const [backendIndex, [kind, make]] of Object.entries(backends).entries()) {
    test(`${kind}: a block and ${NEW_IN_MEMPOOL} new mempool transactions cost the same whatever the orders`, async (t) => {
      const counts: number[][] = [];
      for (const [index, size] of SIZES.entries()) {
        const { store } = stores[index]!;
        const watcher = new ChainWatcher({
          backend: make(),
          store,
          tickers: ['BTC'],
          confirmations: 2,
          publish: () => {},
          now: Date.now,
          logger: silentLogger,
        });
        await watcher.catchUp();
        const perPass: number[] = [];
        const pass = async () => {
          const before = node.requests.length;
          const started = performance.now();
          await watcher.catchUp();
          perPass.push(node.requests.length - before);
          return performance.now() - started;
        };
        // A pass with a block of other payments and new mempool transactions, one paying an order.
        for (let count = 0; count < NEW_IN_MEMPOOL; count++) pay(elsewhere);
        chain.mine();
        for (let count = 1; count < NEW_IN_MEMPOOL; count++) pay(elsewhere);
        const order = toPay.get(size)![backendIndex]!;
        pay(order.payToAddress);
        const blockPassMs = await pass();
        assert.equal((await store.getOrder(order.id))?.state, 'WaitingForFundingTxConfirmation');
        // A pass with nothing new; then one with new mempool transactions only.
        const idlePassMs = await pass();
        for (let count = 0; count < NEW_IN_MEMPOOL; count++) pay(elsewhere);
        await pass();
        t.diagnostic(
          `${kind}, ${size} orders: ${perPass.join(' / ')} requests (block pass ${blockPassMs.toFixed(0)} ms, ` +
            `idle pass ${idlePassMs.toFixed(0)} ms)`,
        );
        counts.push(perPass);
        chain.mine();
      }
      const [few, many] = counts as [number[], number[]];
      // Flat: the same passes cost the same; a request or two of slack for nothing but the test's own timing.
      many.forEach((count, index) =>
        assert.ok(count <= few[index]! + 2, `${count} requests, ${few[index]} with 100 orders`),
      );
      // And small: the listing, the new transactions, the tip, the block, the fee rate is the caller's.
      assert.ok(Math.max(...many) <= NEW_IN_MEMPOOL + 10, `at most ${NEW_IN_MEMPOOL + 10} a pass: ${many.join(' / ')}`);
    });
  }
});
