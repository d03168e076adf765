/**
 * Both backends' mempool reading against the test node: only what is new is read, newest first and at most
 * so many a pass; the transactions the orders already name first and whatever the limits; ids a node lists but
 * does not have, or that are not ids at all, cost one read or none and never stop the pass; what is remembered
 * stays under its bound; a payment to an order the watch set does not list yet is matched by a newer set.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { WatchSet } from '../../../src/chains/chain-backend.js';
import type { BitcoinBackend } from '../../../src/chains/bitcoin/bitcoin-backend.js';
import { CoreRpcBackend } from '../../../src/chains/bitcoin/core-rpc-backend.js';
import { EsploraBackend } from '../../../src/chains/bitcoin/esplora-backend.js';
import type { MempoolLimits } from '../../../src/chains/bitcoin/mempool-view.js';
import { MEMPOOL_BLOCK } from '../../../src/domain/chain-observations.js';
import { BitcoinTestChain } from '../../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../support/bitcoin-node/server.js';
import { buildPayment, p2wpkhAddress, walletKey, type Outpoint } from '../../support/bitcoin-wallet.js';
import { buildOrder, hex32 } from '../../support/fixtures.js';

const LIMITS: MempoolLimits = { readsPerPass: 3, rememberedTxIds: 8 };
const user = walletKey(hex32('mempool view user'));
const elsewhere = p2wpkhAddress(walletKey(hex32('mempool view elsewhere')), 'mainnet');
const order = buildOrder({ label: 'mempool view order' }).record;
const watch = (knownTxIds: string[] = []): WatchSet => ({
  orders: [{ orderId: order.id, payToAddress: order.payToAddress, paymentHash: order.paymentHash }],
  fundingOutputs: [],
  knownTxIds,
});

let node: TestBitcoinNode;
let coin: Outpoint;

before(async () => {
  const chain = new BitcoinTestChain('mainnet', 700_000);
  const coinbase = chain.mine({ coinbaseTo: p2wpkhAddress(user, 'mainnet') }).txs[0]!;
  coin = { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value };
  node = await startTestBitcoinNode(chain);
});
after(() => node?.close());

function pay(address: string, amount = 10_000n): string {
  const tx = buildPayment(user, coin, [{ address, amount }], 'mainnet');
  node.chain.submit(tx.toHex());
  coin = { txId: tx.getId(), index: 1, amount: tx.outs[1]!.value };
  return tx.getId();
}

const backends: Record<string, { make: () => BitcoinBackend; reads: (request: string) => boolean }> = {
  esplora: {
    make: () => new EsploraBackend(node.esploraUrl, 'mainnet', undefined, LIMITS),
    reads: (request) => /^GET \/api\/tx\/[0-9a-f]{64}\/hex$/.test(request),
  },
  'core rpc': {
    make: () => new CoreRpcBackend(node.rpcUrl, 'mainnet', {}, undefined, LIMITS),
    reads: (request) => request === 'rpc getrawtransaction',
  },
};

for (const [kind, { make, reads }] of Object.entries(backends)) {
  describe(`${kind} mempool reading`, () => {
    async function pass(backend: BitcoinBackend, watched = watch()) {
      const before = node.requests.length;
      const observations = await backend.mempool!(watched);
      const requests = node.requests.slice(before);
      return { observations, requests, reads: requests.filter(reads).length };
    }

    test('new transactions only, newest first, a bounded number a pass; the payment found', async () => {
      node.chain.mempool = [];
      const backend = make();
      for (let index = 0; index < 5; index++) pay(elsewhere);
      const paying = pay(order.payToAddress, order.amount);
      const first = await pass(backend);
      assert.equal(first.reads, LIMITS.readsPerPass);
      assert.deepEqual(
        first.observations.map(({ kind: what, orderId, txId, block, amount }) => ({
          what,
          orderId,
          txId,
          block,
          amount,
        })),
        [{ what: 'funding', orderId: order.id, txId: paying, block: MEMPOOL_BLOCK, amount: order.amount }],
        'the newest, the payment, is read in the first pass',
      );
      const second = await pass(backend);
      assert.equal(second.reads, 3, 'the backlog drains');
      const third = await pass(backend);
      assert.equal(third.reads, 0, 'nothing new, nothing read');
      assert.equal(third.requests.length, 1, 'one listing');
      assert.equal(third.observations.length, 1, 'the payment is still there');
      node.chain.evict(paying);
      assert.deepEqual((await pass(backend)).observations, [], 'gone from the mempool, gone from the answer');
    });

    test('the transactions the orders name are read first, whatever the limits', async () => {
      node.chain.mempool = [];
      const backend = make();
      const paying = pay(order.payToAddress, order.amount);
      for (let index = 0; index < 8; index++) pay(elsewhere);
      const first = await pass(backend, watch([paying]));
      assert.equal(first.reads, LIMITS.readsPerPass + 1);
      assert.deepEqual(
        first.observations.map((observation) => observation.txId),
        [paying],
      );
    });

    test('a payment to an order created since the watch set was listed waits, read once, for a newer set', async () => {
      node.chain.mempool = [];
      const backend = make();
      const listed = watch();
      await pass(backend, listed);
      const late = buildOrder({ label: 'mempool view late order' }).record;
      const paying = pay(late.payToAddress, late.amount);
      const unlisted = await pass(backend, listed);
      assert.deepEqual([unlisted.reads, unlisted.observations], [1, []], 'read, but the order is not watched yet');
      assert.equal((await pass(backend, listed)).reads, 0, 'the same watch set again reads nothing again');
      const newer: WatchSet = {
        ...listed,
        orders: [
          ...listed.orders,
          { orderId: late.id, payToAddress: late.payToAddress, paymentHash: late.paymentHash },
        ],
      };
      const matched = await pass(backend, newer);
      assert.equal(matched.reads, 0);
      assert.deepEqual(
        matched.observations.map(({ orderId, txId }) => ({ orderId, txId })),
        [{ orderId: late.id, txId: paying }],
      );
    });

    test('ids listed but not held, and what is no id at all, cost one read or none; memory stays bounded', async () => {
      node.chain.mempool = [];
      const backend = make();
      const missing = Array.from({ length: 20 }, () => randomBytes(32).toString('hex'));
      node.listedButMissing = [...missing, 'not an id', 'Z'.repeat(64)];
      try {
        const paying = pay(order.payToAddress, order.amount);
        let reads = 0;
        let found: string[] = [];
        for (let round = 0; round < 10; round++) {
          const { observations, reads: made } = await pass(backend);
          reads += made;
          found = observations.map((observation) => observation.txId);
        }
        assert.deepEqual(found, [paying]);
        // Remembered up to the bound (8 of 21 real-looking ids), each read once: never read again while listed.
        assert.ok(reads <= LIMITS.rememberedTxIds, `${reads} reads`);
        assert.equal((await pass(backend)).reads, 0);
      } finally {
        node.listedButMissing = [];
      }
    });
  });
}
