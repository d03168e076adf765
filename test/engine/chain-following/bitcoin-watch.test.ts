/**
 * The mempool is read between polls: with polls a minute apart, a funding broadcast to a watched order shows
 * (`WaitingForFundingTxConfirmation`) after a mempool pass, without waiting for the next poll, and leaves again
 * the same way when evicted. Fails if the mempool were read only at the poll (block) interval.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { OrderState } from '../../../src/domain/states.js';
import { BitcoinTestChain } from '../../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../support/bitcoin-node/server.js';
import { buildPayment, p2wpkhAddress, walletKey } from '../../support/bitcoin-wallet.js';
import { BITCOIN_VIEW, buildOrder, configuration, hex32 } from '../../support/fixtures.js';
import { eventually } from '../../support/eventually.js';
import { startTestService, type TestService } from '../../support/ws/harness.js';

const userKey = walletKey(hex32('mempool interval user'));
const order = buildOrder({ label: 'mempool interval order', createdAt: Date.now() }).record;
/** Esplora's tip request: one per poll, none in a mempool pass. */
const tipRequest = (request: string) => request.endsWith('/blocks/tip/hash');
const mempoolListing = (request: string) => request.endsWith('/mempool/txids');

let node: TestBitcoinNode;
let running: TestService;

before(async () => {
  const chain = new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight);
  chain.mine({ coinbaseTo: p2wpkhAddress(userKey, 'mainnet') });
  node = await startTestBitcoinNode(chain);
  running = await startTestService('sqlite', {
    configuration: configuration({ markets: ['BTC_LBTC'] }),
    orders: [order],
    bitcoin: {
      esploraUrl: node.esploraUrl,
      confirmations: 2,
      pollIntervalMs: 60_000,
      mempoolIntervalMs: 20,
      startHeight: BITCOIN_VIEW.blockHeight + 1,
    },
  });
});
after(async () => {
  await running?.close();
  await node?.close();
});

async function state(): Promise<OrderState | undefined> {
  return (await running.fresh.store.getOrder(order.id))?.state;
}

test('a funding in the mempool shows, and an eviction moves back, between two polls a minute apart', async () => {
  await eventually(() => node.requests.some(mempoolListing), 'the first poll to read the mempool');
  const polls = () => node.requests.filter(tipRequest).length;
  const pollsBefore = polls();
  const [coinbase] = node.chain.blocks.at(-1)!.txs;
  const coin = { txId: coinbase!.getId(), index: 0, amount: coinbase!.outs[0]!.value };
  const funding = buildPayment(userKey, coin, [{ address: order.payToAddress, amount: order.amount }], 'mainnet');
  node.chain.submit(funding.toHex());
  await eventually(async () => (await state()) === 'WaitingForFundingTxConfirmation', 'the funding seen');
  node.chain.evict(funding.getId());
  await eventually(async () => (await state()) === 'WaitingForFundingTx', 'the eviction seen');
  assert.equal(polls() - pollsBefore, 2, 'one poll for each change the mempool saw, none else');
});
