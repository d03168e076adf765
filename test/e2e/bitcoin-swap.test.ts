/**
 * Bitcoin orders follow the chain, end to end, through each backend: the real service watches a test node
 * (Esplora or Bitcoin Core over HTTP) holding real transactions. A quote from the provider bot, the exact
 * payToAddress funded in two parts, confirmations, the provider's claim revealing the preimage: the order
 * completes. A funding whose block is replaced moves its order back, and counts once when it returns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { requestQuote, type Quote } from '../../examples/user-client.js';
import { startService } from '../../src/service.js';
import type { BitcoinWatchOptions } from '../../src/engine/chain-following/bitcoin-watch.js';
import { BitcoinTestChain } from '../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../support/bitcoin-node/server.js';
import {
  buildClaim,
  buildRefundFromJson,
  formOfAddress,
  p2wpkhAddress,
  walletKey,
  type RefundJson,
} from '../support/bitcoin-wallet.js';
import { configuration, hex32, seedStore } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { openFreshStore } from '../support/stores.js';
import { testEngineOptions } from '../support/engine/helpers.js';
import {
  eventually,
  recordEvents,
  silentLogger,
  succeed,
  type Client,
  type TestService,
} from '../support/ws/harness.js';
import { startBitcoinSwapWorld, type BitcoinSwapWorld } from '../support/e2e/bitcoin-swap-world.js';

const CONFIRMATIONS = 2;
const userKey = walletKey(hex32('bitcoin e2e user'));
const refundKey = walletKey(hex32('bitcoin e2e refund'));
const claimPrivateKey = hex32('bitcoin e2e maker claim key');

const backends: Record<string, (node: TestBitcoinNode) => BitcoinWatchOptions> = {
  esplora: (node) => ({ esploraUrl: node.esploraUrl }),
  'bitcoin core rpc': (node) => ({ rpcUrl: node.rpcUrl }),
};

for (const [kind, optionsFor] of Object.entries(backends)) {
  describe(`Bitcoin orders follow the chain through ${kind}`, () => {
    let world: BitcoinSwapWorld;
    let chain: BitcoinTestChain;
    let running: TestService;
    let user: Client;

    before(async () => {
      world = await startBitcoinSwapWorld({
        store: 'sqlite',
        userKey,
        provider: 'bitcoin-maker',
        claimPrivateKey,
        feeRate: 12.4,
        confirmations: CONFIRMATIONS,
        backend: optionsFor,
      });
      ({ chain, running, user } = world);
    });
    after(async () => {
      await world?.close();
    });

    const order = (id: string) => world.order(id);
    const reaches = (id: string, state: string) => world.reaches(id, state);
    /** Pays `amount` to `address` from the user's coin. */
    const pay = (address: string, amount: bigint) => ({ txId: world.pay([{ address, amount }]) });

    async function quote(): Promise<Quote> {
      const { invoice, preimage } = makeInvoice({
        network: 'mainnet',
        amountSatoshis: 40_000n,
        expirySeconds: 7200,
        preimage: hex32(`${kind} ${Date.now()}`),
      });
      const answer = await requestQuote(user as never, {
        market: 'BTC_LBTC',
        invoice,
        refundAddress: p2wpkhAddress(refundKey, 'mainnet'),
      });
      preimages.set(answer.orderId, preimage);
      return answer;
    }
    const preimages = new Map<string, string>();

    test('quote, partial funding, top-up, confirmations, the claim reveals the preimage: Complete', async () => {
      const events = recordEvents<{ orderId: string; state: string; preimage?: string }>(user, 'stateChanged');
      const { orderId } = await quote();
      await succeed(user, 'subscribeToOrderState', { orderId });
      const { payToAddress, amount, htlc } = await order(orderId);

      const first = pay(payToAddress, amount - 1_000n);
      chain.mine();
      await reaches(orderId, 'WaitingForFundingTxConfirmation');
      chain.mine();
      await reaches(orderId, 'PartiallyFunded');
      const topUp = pay(payToAddress, 1_000n);
      chain.mine();
      await reaches(orderId, 'WaitingForAdditionalFundingTxConfirmation');
      chain.mine();
      const funded = await reaches(orderId, 'Funded');
      assert.deepEqual(
        funded.transactions.map(({ type, id, amount: paid, outputIndex }) => ({ type, id, amount: paid, outputIndex })),
        [
          { type: 'FUND', id: first.txId, amount: amount - 1_000n, outputIndex: 0 },
          { type: 'FUND', id: topUp.txId, amount: 1_000n, outputIndex: 0 },
        ],
      );

      // The refund details are the chain's: both HTLC outputs, the node's height and fee rate.
      await eventually(
        async () => (await running.fresh.store.getConfiguration()).chains.bitcoin?.feeTokensPerVirtualByte === 13,
        'the fee rate',
      );
      const refund = (await (await fetch(`${running.service.url}/api/orders/${orderId}/refund`)).json()) as {
        details: { currentBlockHeight: number; feeTokensPerVirtualByte: number; utxos: unknown[] };
      };
      assert.equal(refund.details.currentBlockHeight, chain.tipHeight);
      assert.equal(refund.details.feeTokensPerVirtualByte, 13);
      assert.deepEqual(refund.details.utxos, [
        { txId: first.txId, index: 0, tokens: Number(amount - 1_000n) },
        { txId: topUp.txId, index: 0, tokens: 1_000 },
      ]);
      assert.deepEqual(await succeed(user, 'requestRefundDetails', { orderId }), refund, 'socket.io and HTTP agree');

      const preimage = preimages.get(orderId)!;
      const form = formOfAddress(htlc.redeemScript!, payToAddress, 'mainnet');
      const claim = buildClaim(
        htlc.redeemScript!,
        form,
        [
          { txId: first.txId, index: 0, amount: amount - 1_000n },
          { txId: topUp.txId, index: 0, amount: 1_000n },
        ],
        preimage,
        walletKey(claimPrivateKey),
        'mainnet',
      );
      chain.submit(claim.toHex());
      chain.mine();
      chain.mine();
      const complete = await reaches(orderId, 'Complete');
      assert.equal(complete.paymentPreimage, preimage);
      const view = (await (await fetch(`${running.service.url}/api/orders/${orderId}`)).json()) as {
        paymentPreimage?: string;
        amountPaid: string;
      };
      assert.equal(view.paymentPreimage, preimage);
      assert.equal(view.amountPaid, '0.000401');
      await eventually(
        () =>
          events.some(
            (event) => event.orderId === orderId && event.state === 'Complete' && event.preimage === preimage,
          ),
        'stateChanged Complete with the preimage',
      );
    });

    test('a funding whose block is replaced goes back to the mempool, then out of it; mined again, it counts once', async () => {
      const { orderId } = await quote();
      const { payToAddress, amount } = await order(orderId);
      const funding = pay(payToAddress, amount);
      chain.mine();
      chain.mine();
      await reaches(orderId, 'Funded');
      chain.disconnect(2);
      chain.mine({ txs: [] });
      chain.mine({ txs: [] });
      chain.mine({ txs: [] });
      // The node puts the transactions of the blocks it dropped back into its mempool: seen, unconfirmed.
      const unconfirmed = await reaches(orderId, 'WaitingForFundingTxConfirmation');
      assert.deepEqual(
        unconfirmed.transactions.map(({ id, blockHeight }) => [id, blockHeight]),
        [[funding.txId, undefined]],
      );
      const mempool = [...chain.mempool];
      chain.evict(funding.txId);
      const back = await reaches(orderId, 'WaitingForFundingTx');
      assert.deepEqual(back.transactions, []);
      for (const tx of mempool) chain.submit(tx.toHex());
      chain.mine();
      chain.mine();
      const again = await reaches(orderId, 'Funded');
      assert.deepEqual(
        again.transactions.map((transaction) => [transaction.id, transaction.amount]),
        [[funding.txId, amount]],
      );
    });

    test('funds after the fund window are shown and refundable; the refund from the refund JSON, broadcast through lnswap, confirms', async () => {
      const terms = world.bot.terms;
      Object.assign(terms, { fundWindowMs: 500, timelockBlocks: 24, bitcoinBlockHeight: chain.tipHeight });
      const { orderId } = await quote();
      Object.assign(terms, { fundWindowMs: 600_000 });
      await reaches(orderId, 'FundWindowElapsed');
      const { payToAddress, amount, htlc } = await order(orderId);
      const late = pay(payToAddress, amount);
      chain.mine();
      chain.mine();
      const shown = await reaches(orderId, 'WaitingForRefundTx');
      assert.deepEqual(
        shown.transactions.map(({ type, id }) => [type, id]),
        [['FUND', late.txId]],
      );

      while (chain.tipHeight < htlc.refundableAtBlockHeight) chain.mine();
      const url = `${running.service.url}/api/orders/${orderId}/refund`;
      let json: RefundJson & { blocksRemaining?: number } = {
        market: '',
        details: { redeemScript: '', currentBlockHeight: 0, feeTokensPerVirtualByte: 0, utxos: [] },
      };
      await eventually(async () => {
        json = (await (await fetch(url)).json()) as typeof json;
        return json.blocksRemaining === 0;
      }, 'the refund height to be reached');
      assert.deepEqual(json.details.utxos, [{ txId: late.txId, index: 0, tokens: Number(amount) }]);
      const refund = buildRefundFromJson(json, refundKey, formOfAddress(htlc.redeemScript!, payToAddress, 'mainnet'));
      assert.deepEqual(
        await succeed(user, 'broadcastTransaction', { onchainTicker: 'BTC', signedTxHex: refund.toHex() }),
        {
          txId: refund.getId(),
        },
      );
      assert.ok(
        chain.mempool.some((tx) => tx.getId() === refund.getId()),
        'the node has the refund',
      );
      chain.mine();
      await reaches(orderId, 'WaitingForRefundTxConfirmation');
      chain.mine();
      const refunded = await reaches(orderId, 'Refunded');
      assert.deepEqual(
        refunded.transactions.map(({ type, id }) => [type, id]),
        [
          ['FUND', late.txId],
          ['REFUND', refund.getId()],
        ],
      );
    });
  });
}

test('a Bitcoin node of another network than the offered markets is refused before serving', async () => {
  const regtest = new BitcoinTestChain('simnet', 1);
  regtest.mine();
  const node = await startTestBitcoinNode(regtest);
  const fresh = await openFreshStore('sqlite');
  try {
    await seedStore(fresh.store, { configuration: configuration({ providers: [] }) });
    for (const bitcoin of [{ esploraUrl: node.esploraUrl }, { rpcUrl: node.rpcUrl }]) {
      await assert.rejects(
        startService({
          store: fresh.store,
          host: '127.0.0.1',
          port: 0,
          logger: silentLogger,
          databaseUrl: fresh.url,
          engine: testEngineOptions(),
          bitcoin,
        }),
        /refusing to watch the Bitcoin node: it follows simnet, which does not fit BTC_LBTC \(mainnet\)/,
      );
    }
  } finally {
    await node.close();
    await fresh.dispose();
  }
});
