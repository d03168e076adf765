/**
 * Bitcoin payments seen in the node's mempool, through each backend: the real service watches a test node
 * (Esplora or Bitcoin Core over HTTP) whose mempool takes, evicts and replaces (full RBF) real transactions.
 * A funding in the mempool shows at once (`WaitingForFundingTxConfirmation`, event with its transaction id,
 * HTTP) and counts as `Funded` only at the configured confirmations; one that leaves the mempool, evicted or
 * outbid by a payment elsewhere, moves the order back; a refund in the mempool shows as
 * `WaitingForRefundTxConfirmation`; a claim in the mempool makes the preimage known at once. And what an
 * attacker can put in a mempool (a short payment, a "claim" with a wrong preimage) counts for no more than it is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { OrderRecord } from '../../src/domain/order.js';
import type { OrderState } from '../../src/domain/states.js';
import type { BitcoinWatchOptions } from '../../src/engine/chain-following/bitcoin-watch.js';
import { BitcoinTestChain } from '../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../support/bitcoin-node/server.js';
import {
  buildClaim,
  buildPayment,
  buildRefundFromJson,
  p2wpkhAddress,
  walletKey,
  type Outpoint,
} from '../support/bitcoin-wallet.js';
import { BITCOIN_VIEW, buildOrder, configuration, hex32, type BuiltOrder } from '../support/fixtures.js';
import { eventually, recordEvents, startTestService, succeed, type TestService } from '../support/ws/harness.js';

const CONFIRMATIONS = 2;
const FIRST_HEIGHT = BITCOIN_VIEW.blockHeight;
/** The refund order's timelock: reached after a few blocks, long before any other order's. */
const REFUND_HEIGHT = FIRST_HEIGHT + 20;
const userKey = walletKey(hex32('mempool e2e user'));
const elsewhere = p2wpkhAddress(walletKey(hex32('mempool e2e elsewhere')), 'mainnet');

const backends: Record<string, (node: TestBitcoinNode) => BitcoinWatchOptions> = {
  esplora: (node) => ({ esploraUrl: node.esploraUrl }),
  'bitcoin core rpc': (node) => ({ rpcUrl: node.rpcUrl }),
};

interface StateChanged {
  readonly orderId: string;
  readonly state: OrderState;
  readonly transactionId?: string;
}

for (const [kind, optionsFor] of Object.entries(backends)) {
  describe(`Bitcoin mempool sightings through ${kind}`, () => {
    const built = (name: string, refundableAtBlockHeight?: number): BuiltOrder =>
      buildOrder({
        label: `mempool ${kind} ${name}`,
        createdAt: Date.now(),
        ...(refundableAtBlockHeight === undefined ? {} : { refundableAtBlockHeight }),
      });
    const orders = {
      funded: built('funded'),
      evicted: built('evicted'),
      replaced: built('replaced'),
      topUp: built('top-up'),
      both: built('both parts'),
      short: built('short'),
      claimed: built('claimed'),
      refunded: built('refunded', REFUND_HEIGHT),
    };
    let chain: BitcoinTestChain;
    let node: TestBitcoinNode;
    let running: TestService;
    let coin: Outpoint;
    let events: StateChanged[];

    before(async () => {
      chain = new BitcoinTestChain('mainnet', FIRST_HEIGHT);
      const coinbase = chain.mine({ coinbaseTo: p2wpkhAddress(userKey, 'mainnet') }).txs[0]!;
      coin = { txId: coinbase.getId(), index: 0, amount: coinbase.outs[0]!.value };
      node = await startTestBitcoinNode(chain);
      running = await startTestService('sqlite', {
        configuration: configuration({ markets: ['BTC_LBTC'] }),
        orders: Object.values(orders).map(({ record }) => record),
        bitcoin: {
          ...optionsFor(node),
          confirmations: CONFIRMATIONS,
          pollIntervalMs: 20,
          startHeight: FIRST_HEIGHT + 1,
        },
      });
      const user = await running.connect('/user/v1');
      events = recordEvents<StateChanged>(user, 'stateChanged');
      for (const { record } of Object.values(orders))
        await succeed(user, 'subscribeToOrderState', { orderId: record.id });
    });
    after(async () => {
      await running?.close();
      await node?.close();
    });

    async function order(id: string): Promise<OrderRecord> {
      const found = await running.fresh.store.getOrder(id);
      assert.ok(found !== undefined);
      return found;
    }

    async function reaches(id: string, state: OrderState): Promise<OrderRecord> {
      await eventually(async () => (await order(id)).state === state, `order ${id} to be ${state}`);
      return order(id);
    }

    /** What a user sees over HTTP: the state, the amount paid, the transactions. */
    async function shown(id: string): Promise<{ state: string; amountPaid: string; transactions: unknown[] }> {
      const view = (await (await fetch(`${running.service.url}/api/orders/${id}`)).json()) as {
        state: string;
        amountPaid: string;
      };
      const transactions = (await (
        await fetch(`${running.service.url}/api/orders/${id}/transactions`)
      ).json()) as unknown[];
      return { state: view.state, amountPaid: view.amountPaid, transactions };
    }

    /** Sends `amount` to `address` from the user's coin into the mempool; the change is the next coin. */
    function pay(address: string, amount: bigint, fee?: bigint): string {
      const tx = buildPayment(userKey, coin, [{ address, amount }], 'mainnet', fee);
      chain.submit(tx.toHex());
      coin = { txId: tx.getId(), index: 1, amount: tx.outs[1]!.value };
      return tx.getId();
    }

    function mine(blocks: number): void {
      for (let index = 0; index < blocks; index++) chain.mine();
    }

    /**
     * Waits for a whole pass that began after now: the second mempool listing from now starts the pass after
     * the one that saw the mempool as it is now, so that one is over.
     */
    async function aWholePass(): Promise<void> {
      const mark = node.requests.length;
      const listing = (request: string) => request.endsWith('/mempool/txids') || request === 'rpc getrawmempool';
      await eventually(() => node.requests.slice(mark).filter(listing).length >= 2, 'a whole pass');
    }

    const reasons = async (id: string) =>
      (await running.fresh.store.getOrderHistory(id)).map((change) => [change.state, change.cause?.reason]);

    test('a funding in the mempool shows at once, with its transaction; Funded only at the confirmations', async () => {
      const { id, amount } = orders.funded.record;
      const txId = pay(orders.funded.record.payToAddress, amount);
      await reaches(id, 'WaitingForFundingTxConfirmation');
      await eventually(
        () => events.some((event) => event.orderId === id && event.state === 'WaitingForFundingTxConfirmation'),
        'the stateChanged event',
      );
      const event = events.find((each) => each.orderId === id);
      assert.deepEqual(event, {
        orderId: id,
        state: 'WaitingForFundingTxConfirmation',
        sequence: 2,
        transactionId: txId,
      });
      assert.deepEqual(await shown(id), {
        state: 'WaitingForFundingTxConfirmation',
        amountPaid: '0.0003559',
        transactions: [{ type: 'FUND', id: txId }],
      });
      const history = await running.fresh.store.getOrderHistory(id);
      assert.deepEqual(history.at(-1)?.cause, { source: 'chain', reason: 'fundingSeen', chain: 'bitcoin', txId });

      mine(1);
      await eventually(async () => (await order(id)).transactions[0]?.blockHeight === chain.tipHeight, 'the block');
      assert.equal((await order(id)).state, 'WaitingForFundingTxConfirmation', 'one confirmation of two');
      mine(1);
      const funded = await reaches(id, 'Funded');
      assert.deepEqual(funded.transactions, [
        { type: 'FUND', id: txId, amount, outputIndex: 0, blockHeight: chain.tipHeight - 1 },
      ]);
      assert.deepEqual(await reasons(id), [
        ['WaitingForFundingTx', undefined],
        ['WaitingForFundingTxConfirmation', 'fundingSeen'],
        ['Funded', 'fundingConfirmed'],
      ]);
    });

    test('a funding evicted from the mempool moves the order back, with its cause', async () => {
      const { id, amount, payToAddress } = orders.evicted.record;
      const spent = coin;
      const txId = pay(payToAddress, amount);
      await reaches(id, 'WaitingForFundingTxConfirmation');
      chain.evict(txId);
      coin = spent;
      const back = await reaches(id, 'WaitingForFundingTx');
      assert.deepEqual(back.transactions, []);
      assert.deepEqual(await shown(id), { state: 'WaitingForFundingTx', amountPaid: '0', transactions: [] });
      assert.deepEqual((await reasons(id)).slice(1), [
        ['WaitingForFundingTxConfirmation', 'fundingSeen'],
        ['WaitingForFundingTx', 'fundingLeftMempool'],
      ]);
    });

    test('a funding replaced by fee with a payment elsewhere moves the order back; the replacement never counts', async () => {
      const { id, amount, payToAddress } = orders.replaced.record;
      const spent = coin;
      pay(payToAddress, amount);
      await reaches(id, 'WaitingForFundingTxConfirmation');
      coin = spent;
      const replacement = pay(elsewhere, amount, 5_000n);
      assert.ok(
        chain.mempool.some((tx) => tx.getId() === replacement),
        'the node took the replacement',
      );
      await reaches(id, 'WaitingForFundingTx');
      mine(CONFIRMATIONS);
      await eventually(
        async () => (await running.fresh.store.getChainWatch('bitcoin'))?.cursor.height === chain.tipHeight,
        'the blocks read',
      );
      const after = await order(id);
      assert.equal(after.state, 'WaitingForFundingTx');
      assert.deepEqual(after.transactions, []);
      assert.equal((await reasons(id)).at(-1)?.[1], 'fundingLeftMempool');
    });

    test('a partial funding confirmed, then a top-up in the mempool; and both parts at once in the mempool', async () => {
      const topUp = orders.topUp.record;
      pay(topUp.payToAddress, topUp.amount - 1_000n);
      const both = orders.both.record;
      const first = pay(both.payToAddress, both.amount - 1_000n);
      const second = pay(both.payToAddress, 1_000n);
      await reaches(topUp.id, 'WaitingForFundingTxConfirmation');
      await eventually(async () => (await shown(both.id)).amountPaid === '0.0003559', 'both parts shown');
      assert.deepEqual((await shown(both.id)).transactions, [
        { type: 'FUND', id: first },
        { type: 'FUND', id: second },
      ]);
      assert.equal((await order(both.id)).state, 'WaitingForFundingTxConfirmation', 'the full amount, unconfirmed');
      mine(CONFIRMATIONS);
      await reaches(topUp.id, 'PartiallyFunded');
      await reaches(both.id, 'Funded');
      const added = pay(topUp.payToAddress, 1_000n);
      await reaches(topUp.id, 'WaitingForAdditionalFundingTxConfirmation');
      await eventually(
        () => events.some((event) => event.orderId === topUp.id && event.transactionId === added),
        'the top-up event names the top-up',
      );
      mine(CONFIRMATIONS);
      await reaches(topUp.id, 'Funded');
    });

    test('an attacker paying the HTLC short in the mempool: shown as paid, never Funded', async () => {
      const { id, amount, payToAddress } = orders.short.record;
      pay(payToAddress, amount - 1n);
      await reaches(id, 'WaitingForFundingTxConfirmation');
      assert.equal((await shown(id)).amountPaid, '0.00035589');
      mine(CONFIRMATIONS);
      await reaches(id, 'PartiallyFunded');
    });

    test('a claim in the mempool records the preimage at once; a "claim" with a wrong preimage counts for nothing', async () => {
      const { record, preimage } = orders.claimed;
      const fundingId = pay(record.payToAddress, record.amount);
      mine(CONFIRMATIONS);
      await reaches(record.id, 'Funded');
      const claimKey = walletKey(hex32(`key:claim:mempool ${kind} claimed`));
      const htlcOutput = [{ txId: fundingId, index: 0, amount: record.amount }];
      // The test node, like a dishonest one, lists a spend whose script would fail: a refund before its height.
      const forged = buildClaim(
        record.htlc.redeemScript!,
        'p2sh',
        htlcOutput,
        hex32('not the preimage'),
        claimKey,
        'mainnet',
      );
      chain.submit(forged.toHex());
      await aWholePass();
      const sequenceBefore = (await running.fresh.store.getOrderHistory(record.id)).length;
      const untouched = await order(record.id);
      assert.equal(untouched.state, 'Funded');
      assert.equal(untouched.paymentPreimage, undefined);
      chain.evict(forged.getId());

      const claim = buildClaim(record.htlc.redeemScript!, 'p2sh', htlcOutput, preimage, claimKey, 'mainnet');
      chain.submit(claim.toHex());
      await eventually(async () => (await order(record.id)).paymentPreimage === preimage, 'the preimage recorded');
      assert.equal((await order(record.id)).state, 'Funded', 'Complete only once the claim confirms');
      const view = (await (await fetch(`${running.service.url}/api/orders/${record.id}`)).json()) as {
        paymentPreimage?: string;
      };
      assert.equal(view.paymentPreimage, preimage);
      assert.equal(
        (await running.fresh.store.getOrderHistory(record.id)).length,
        sequenceBefore,
        'no move for the forged spend',
      );
      mine(CONFIRMATIONS);
      await reaches(record.id, 'Complete');
    });

    test('a refund in the mempool: WaitingForRefundTxConfirmation, then Refunded once confirmed', async () => {
      const { record } = orders.refunded;
      const fundingId = pay(record.payToAddress, record.amount);
      mine(CONFIRMATIONS);
      await reaches(record.id, 'Funded');
      while (chain.tipHeight < REFUND_HEIGHT) chain.mine();
      await reaches(record.id, 'WaitingForRefundTx');
      const refund = buildRefundFromJson(
        {
          market: 'BTC_LBTC',
          refundableAtBlockHeight: REFUND_HEIGHT,
          details: {
            refundAddress: record.refundAddress!,
            redeemScript: record.htlc.redeemScript!,
            currentBlockHeight: chain.tipHeight,
            feeTokensPerVirtualByte: 2,
            utxos: [{ txId: fundingId, index: 0, tokens: Number(record.amount) }],
          },
        },
        walletKey(hex32(`key:refund:mempool ${kind} refunded`)),
        'p2sh',
      );
      chain.submit(refund.toHex());
      await reaches(record.id, 'WaitingForRefundTxConfirmation');
      await eventually(
        () =>
          events.some(
            (event) =>
              event.orderId === record.id &&
              event.state === 'WaitingForRefundTxConfirmation' &&
              event.transactionId === refund.getId(),
          ),
        'the refund event names the refund',
      );
      mine(1);
      await eventually(
        async () => (await order(record.id)).transactions.at(-1)?.blockHeight === chain.tipHeight,
        'mined',
      );
      assert.equal((await order(record.id)).state, 'WaitingForRefundTxConfirmation');
      mine(1);
      const refunded = await reaches(record.id, 'Refunded');
      assert.deepEqual(
        refunded.transactions.map(({ type, id }) => [type, id]),
        [
          ['FUND', fundingId],
          ['REFUND', refund.getId()],
        ],
      );
    });
  });
}
