import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EthereumBackend } from '../../../src/chains/ethereum/ethereum-backend.js';
import { deriveChainTarget } from '../../../src/domain/chain-derivation.js';
import type { OrderRecord } from '../../../src/domain/order.js';
import { withFundingTimes } from '../../../src/engine/chain-following/funding-times.js';
import { anvilSkipReason } from '../../support/anvil.js';
import { startSwapChain, type SwapChain } from '../../support/chains/ethereum/swap-chain.js';
import { hex32 } from '../../support/fixtures.js';

const ORDER_ID = '00000000-0000-4000-8000-0000000f7e01';
const paymentHash = hex32('funding times');

describe(
  'fundings read in a range whose head is past the window: judged by their own block',
  { skip: anvilSkipReason },
  () => {
    let chain: SwapChain;
    let backend: EthereumBackend;
    /** Seconds of the funding's block, and of the next one, which ends the range read. */
    let fundedAt: number;
    let from: number;

    before(async () => {
      chain = await startSwapChain({ refundDelay: 20 });
      backend = new EthereumBackend({ rpcUrl: chain.rpcUrl, swapContractAddress: chain.contractAddress });
      fundedAt = Math.floor(Date.now() / 1000) + 100;
      from = (await chain.height()) + 1;
      await chain.node.testClient.setNextBlockTimestamp({ timestamp: BigInt(fundedAt) });
      await chain.node.publicClient.waitForTransactionReceipt({
        hash: await chain.fund(ORDER_ID, paymentHash, 1_000n, 'user', chain.address('provider')),
      });
      await chain.node.testClient.setNextBlockTimestamp({ timestamp: BigInt(fundedAt + 60) });
      await chain.mine(1);
    });
    after(() => chain?.close());

    function order(expiresAt: number, state: OrderRecord['state'] = 'WaitingForFundingTx'): OrderRecord {
      return {
        id: ORDER_ID,
        market: 'SETH_LSBTC',
        invoice: 'lnsb-test',
        invoiceHash: 'aa'.repeat(32),
        paymentHash,
        createdAt: expiresAt - 600_000,
        expiresAt,
        state,
        amount: 1_000n,
        payToAddress: chain.contractAddress.toLowerCase(),
        htlc: { refundableAtBlockHeight: from + 20 },
        transactions: [],
        claimAddress: chain.address('provider'),
      };
    }

    async function read(record: OrderRecord) {
      const to = from + 1;
      const head = await backend.blockAt(to);
      assert.ok(head !== undefined);
      assert.equal(head.timestamp, (fundedAt + 60) * 1000, "the head's timestamp, in milliseconds");
      const watch = {
        orders: [{ orderId: record.id, payToAddress: record.payToAddress, paymentHash }],
        fundingOutputs: [],
      };
      const fresh = await backend.observations({ from, to }, watch);
      assert.equal(fresh.length, 1);
      const timed = await withFundingTimes(backend, [record], fresh, head);
      const target = deriveChainTarget(record, timed, { chain: 'ethereum', head, confirmations: 1 });
      return { timed, target };
    }

    test('a funding in time by its block, read with a later head, counts in time; one past the edge, late', async () => {
      const inTime = await read(order(fundedAt * 1000 + 400));
      assert.equal(inTime.timed[0]?.block.timestamp, fundedAt * 1000, 'its own block read for its time');
      assert.equal(inTime.target.state, 'Funded');
      const late = await read(order(fundedAt * 1000 - 400));
      assert.equal(late.target.state, 'WaitingForRefundTx');
      assert.equal(late.target.fundedLate, true);
    });

    test('nothing is read when the head itself is within the window, or for an order no longer waiting', async () => {
      const open = await read(order((fundedAt + 61) * 1000));
      assert.equal(open.timed[0]?.block.timestamp, undefined);
      assert.equal(open.target.state, 'Funded');
      const seen = await read(order(fundedAt * 1000 - 400, 'WaitingForFundingTxConfirmation'));
      assert.equal(seen.timed[0]?.block.timestamp, undefined);
      assert.equal(seen.target.state, 'Funded');
    });
  },
);
