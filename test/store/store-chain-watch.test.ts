import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChainObservation, FundingObservation } from '../../src/domain/chain-observations.js';
import type { ChainStep } from '../../src/store/store.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { CONFIGURATION, makeOrder, useFreshStore } from '../support/store/fixtures.js';
import { CREATION_CAUSE } from '../support/causes.js';

const block = (height: number) => ({ height, hash: `0x${height.toString(16).padStart(64, '0')}` });

function funding(orderId: string, height: number, amount: bigint, position = 0): ChainObservation {
  return {
    kind: 'funding',
    orderId,
    txId: `0xf${height}${position}`,
    position,
    block: block(height),
    amount,
    refundHeight: height + 40,
  };
}

for (const kind of STORE_KINDS) {
  describe(`${kind} store: chain watcher steps`, { skip: skipReason(kind) }, () => {
    const fresh = useFreshStore(kind);

    async function setUp() {
      await fresh.store().importAtomically(async (session) => session.writeConfiguration(CONFIGURATION));
      const order = makeOrder(1, { market: 'ETH_LBTC', amount: 2n ** 70n });
      await fresh.store().createOrder(order, CREATION_CAUSE);
      return order;
    }

    function fundingStep(orderId: string, observation: ChainObservation): ChainStep {
      const transaction = {
        type: 'FUND',
        id: observation.txId,
        amount: 2n ** 70n,
        blockHeight: observation.block.height,
      } as const;
      return {
        chain: 'ethereum',
        startHeight: 5,
        observations: [observation],
        cursor: block(12),
        orders: [
          {
            orderId,
            expectedState: 'WaitingForFundingTx',
            moves: [
              {
                orderId,
                from: 'WaitingForFundingTx',
                to: 'WaitingForFundingTxConfirmation',
                at: 10,
                cause: { source: 'chain', reason: 'fundingSeen' },
              },
              {
                orderId,
                from: 'WaitingForFundingTxConfirmation',
                to: 'Funded',
                at: 10,
                transaction,
                cause: { source: 'chain', reason: 'fundingConfirmed' },
              },
            ],
            transactions: [transaction],
            refundableAtBlockHeight: 50,
          },
        ],
      };
    }

    test('a step writes observations, cursor, chain view height, moves, transactions and refund height together', async () => {
      const order = await setUp();
      const observation = funding(order.id, 10, 2n ** 70n);
      assert.deepEqual(
        await fresh.store().applyChainStep(fundingStep(order.id, observation)),
        [2, 3],
        "the moves' sequences",
      );

      const stored = await fresh.store().getOrder(order.id);
      assert.equal(stored?.state, 'Funded');
      assert.equal(stored?.htlc.refundableAtBlockHeight, 50);
      assert.deepStrictEqual(stored?.transactions, [
        { type: 'FUND', id: observation.txId, amount: 2n ** 70n, blockHeight: 10 },
      ]);
      assert.deepStrictEqual(
        (await fresh.store().getOrderHistory(order.id)).map((entry) => entry.state),
        ['WaitingForFundingTx', 'WaitingForFundingTxConfirmation', 'Funded'],
      );
      assert.deepStrictEqual(await fresh.store().listChainObservations('ethereum', [order.id]), [observation]);
      assert.deepStrictEqual(await fresh.store().getChainWatch('ethereum'), {
        startHeight: 5,
        cursor: block(12),
        recentBlocks: [block(12)],
      });
      assert.equal((await fresh.store().getConfiguration()).chains.ethereum?.blockHeight, 12);
    });

    test('a step whose order moved meanwhile writes nothing at all', async () => {
      const order = await setUp();
      await fresh.store().transitionOrder({
        orderId: order.id,
        from: 'WaitingForFundingTx',
        to: 'FundWindowElapsed',
        at: 5,
        cause: { source: 'timer', reason: 'fundWindowElapsed' },
      });
      assert.equal(await fresh.store().applyChainStep(fundingStep(order.id, funding(order.id, 10, 1n))), undefined);
      assert.equal(await fresh.store().getChainWatch('ethereum'), undefined);
      assert.deepStrictEqual(await fresh.store().listChainObservations('ethereum', [order.id]), []);
      assert.equal((await fresh.store().getOrder(order.id))?.state, 'FundWindowElapsed');
      assert.equal(
        (await fresh.store().getConfiguration()).chains.ethereum?.blockHeight,
        CONFIGURATION.chains.ethereum?.blockHeight,
      );
    });

    test('an observation stored twice is kept once; a reorg drops those above the fork point', async () => {
      const order = await setUp();
      const low = funding(order.id, 10, 1n);
      const high = funding(order.id, 14, 2n, 3);
      const refund: ChainObservation = {
        kind: 'refund',
        orderId: order.id,
        txId: '0xr',
        position: 4,
        block: block(14),
        amount: 3n,
        byAdmin: true,
      };
      const claim: ChainObservation = {
        kind: 'claim',
        orderId: order.id,
        txId: '0xc',
        position: 5,
        block: block(14),
        preimage: 'ab'.repeat(32),
      };
      const base = { chain: 'ethereum', startHeight: 5, orders: [] } as const;
      await fresh.store().applyChainStep({ ...base, observations: [low], cursor: block(12) });
      await fresh.store().applyChainStep({ ...base, observations: [low, high, refund, claim], cursor: block(15) });
      assert.deepStrictEqual(await fresh.store().listChainObservations('ethereum', [order.id]), [
        low,
        high,
        refund,
        claim,
      ]);
      await fresh.store().applyChainStep({ ...base, dropAbove: 12, observations: [], cursor: block(12) });
      assert.deepStrictEqual(await fresh.store().listChainObservations('ethereum', [order.id]), [low]);
      assert.deepStrictEqual((await fresh.store().getChainWatch('ethereum'))?.recentBlocks, [block(12)]);
    });

    test('Ethereum observations keep their slot: funder, and on fundings claimer, token and payment hash', async () => {
      const order = await setUp();
      const funder = '0x' + 'a1'.repeat(20);
      const slotFunding: FundingObservation = {
        ...(funding(order.id, 10, 2n ** 70n) as FundingObservation),
        funder,
        claimer: '0x' + 'c1'.repeat(20),
        token: '0x' + '00'.repeat(20),
        paymentHash: 'ab'.repeat(32),
      };
      const slotClaim: ChainObservation = {
        kind: 'claim',
        orderId: order.id,
        txId: '0xc11',
        position: 1,
        block: block(11),
        preimage: 'cd'.repeat(32),
        amount: 2n ** 70n,
        funder,
      };
      const slotRefund: ChainObservation = {
        kind: 'refund',
        orderId: order.id,
        txId: '0xr11',
        position: 2,
        block: block(11),
        amount: 5n,
        byAdmin: true,
        funder,
      };
      const step: ChainStep = {
        chain: 'ethereum',
        startHeight: 5,
        observations: [slotFunding, slotClaim, slotRefund],
        cursor: block(12),
        orders: [],
      };
      assert.deepEqual(await fresh.store().applyChainStep(step), []);
      assert.deepStrictEqual(await fresh.store().listChainObservations('ethereum', [order.id]), [
        slotFunding,
        slotClaim,
        slotRefund,
      ]);
    });

    test('lists the orders of tickers in given states', async () => {
      const order = await setUp();
      await fresh.store().createOrder(makeOrder(2), CREATION_CAUSE);
      assert.deepStrictEqual(
        (await fresh.store().listOrdersOfTickersInStates(['ETH'], ['WaitingForFundingTx'])).map((found) => found.id),
        [order.id],
      );
      assert.deepStrictEqual(await fresh.store().listOrdersOfTickersInStates(['ETH'], ['Funded']), []);
    });
  });
}
