import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Account, Hex } from 'viem';
import type { MakerTerms } from '../../examples/maker-quote.js';
import { startProviderBot, type Ack, type ProviderBot } from '../../examples/provider-bot.js';
import { requestQuote, type Quote } from '../../examples/user-client.js';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../src/chains/ethereum/swap-contract-artifact.js';
import { decodeFundingCalldata, encodeClaimCalldata, ZERO_ADDRESS } from '../../src/domain/ethereum.js';
import { orderIdToBytes16 } from '../../src/domain/order-ids.js';
import { anvilSkipReason, startAnvil, type AnvilNode } from '../support/anvil.js';
import { configuration } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { addProvider, connectClient, eventually, startTestService, type TestService } from '../support/ws/harness.js';
import { BOT_PAY_REQ, makerTerms, WEI_PER_SATOSHI } from '../support/e2e/bots.js';

const MARKET = 'SETH_LSBTC';
const REFUND_DELAY = 30n;

// Fresh addresses that hold nothing and send nothing: their balances move only by what claims pay them.
const PAYOUT_A = '0x00000000000000000000000000000000000a11ce';
const PAYOUT_B = '0x0000000000000000000000000000000000000b0b';
const PAYOUT_C = '0x00000000000000000000000000000000000000c3';
const THIEF = '0x000000000000000000000000000000000000f00d';

/** Maker A is the cheaper below 30 000 satoshis, maker B above, so each wins some auctions. */
const priceA = (satoshis: bigint) => (satoshis < 30_000n ? satoshis + 50n : satoshis + 1_000n) * WEI_PER_SATOSHI;
const priceB = (satoshis: bigint) => (satoshis + 100n) * WEI_PER_SATOSHI;

interface Maker {
  readonly name: string;
  readonly payout: string;
  readonly bot: ProviderBot;
  /** The maker's own wallet, which sends its claims and pays their gas. */
  readonly gasWallet: Account;
  readonly judgements: { orderId: string; ack: Ack }[];
}

describe('two providers on one instance, each paid at its own address', { skip: anvilSkipReason }, () => {
  let node: AnvilNode;
  let contract: Hex;
  let harness: TestService;
  const makers = {} as Record<'a' | 'b' | 'thief', Maker>;
  /** Every order a swap made, and who won it. */
  const won: { orderId: string; winner: Maker }[] = [];

  async function startMaker(
    name: string,
    registeredPayout: string,
    gasWallet: Account,
    terms: Pick<MakerTerms, 'price' | 'ethereumPayoutAddress'>,
  ): Promise<Maker> {
    const keys = await addProvider(harness.fresh.store, name, registeredPayout);
    const judgements: Maker['judgements'] = [];
    const bot = await startProviderBot({
      socket: await connectClient(harness.service.url, '/provider/v1'),
      ...keys,
      markets: { [MARKET]: BOT_PAY_REQ },
      terms: { ...makerTerms(name, 0n, 60_000), swapContractAddress: contract, ...terms },
      onQuoteJudged: (orderId, ack) => judgements.push({ orderId, ack }),
    });
    return { name, payout: registeredPayout, bot, gasWallet, judgements };
  }

  before(async () => {
    node = await startAnvil();
    contract = await node.deploySwapContract(REFUND_DELAY);
    harness = await startTestService('sqlite', {
      configuration: configuration({
        markets: [MARKET],
        chains: { ethereum: { blockHeight: Number(await node.blockNumber()), swapContractAddress: contract } },
        providers: [],
      }),
      engine: { quoteDeadlineMs: 300 },
    });
    makers.a = await startMaker('maker-a', PAYOUT_A, node.accounts[2]!, {
      price: (_market, satoshis) => priceA(satoshis),
      ethereumPayoutAddress: PAYOUT_A,
    });
    makers.b = await startMaker('maker-b', PAYOUT_B, node.accounts[3]!, {
      price: (_market, satoshis) => priceB(satoshis),
      ethereumPayoutAddress: PAYOUT_B,
    });
    // Holds maker C's secret and asks for the least, but names its own address as claimer.
    makers.thief = await startMaker('maker-c', PAYOUT_C, node.accounts[4]!, {
      price: (_market, satoshis) => satoshis * WEI_PER_SATOSHI,
      ethereumPayoutAddress: THIEF,
    });
  });
  after(async () => {
    for (const maker of Object.values(makers)) maker.bot.close();
    await harness?.close();
    await node?.stop();
  });

  const balanceOf = (address: string) => node.publicClient.getBalance({ address: address as Hex });

  async function slotOf(orderId: string, funder: string) {
    const [paymentHash, claimer, token, amount] = await node.publicClient.readContract({
      address: contract,
      abi: SWAP_CONTRACT_ARTIFACT_ABI,
      functionName: 'slots',
      args: [orderIdToBytes16(orderId), funder as Hex],
    });
    return { paymentHash, claimer: claimer.toLowerCase(), token: token.toLowerCase(), amount };
  }

  /** A user swaps `satoshis`; the winner claims. Returns who won, after checking the money went to its address. */
  async function swap(satoshis: bigint, claimedBy: (winner: Maker, loser: Maker) => Maker): Promise<Maker> {
    const user = await harness.connect('/user/v1');
    const funder = node.accounts[1]!;
    const { invoice, paymentHash, preimage } = makeInvoice({
      network: 'simnet',
      amountSatoshis: satoshis,
      expirySeconds: 7200,
    });
    const quote: Quote = await requestQuote(user, { market: MARKET, invoice });

    const order = await harness.fresh.store.getOrder(quote.orderId);
    const winner = order?.providerId === 'maker-a' ? makers.a : makers.b;
    const loser = winner === makers.a ? makers.b : makers.a;
    assert.equal(order?.providerId, winner.name);
    assert.equal(order?.claimAddress, winner.payout);
    const value = winner === makers.a ? priceA(satoshis) : priceB(satoshis);
    assert.equal(order?.amount, value);
    won.push({ orderId: quote.orderId, winner });

    const { to, data, value: wei } = quote.details.unsignedFundingTx as { to: Hex; data: Hex; value: string };
    assert.equal(decodeFundingCalldata(data)?.claimer, winner.payout);
    assert.equal(BigInt(wei), value);
    const funding = await node.wallet(funder).sendTransaction({ to, data, value: BigInt(wei) });
    assert.equal((await node.publicClient.waitForTransactionReceipt({ hash: funding })).status, 'success');
    assert.deepEqual(await slotOf(quote.orderId, funder.address), {
      paymentHash: `0x${paymentHash}`,
      claimer: winner.payout,
      token: ZERO_ADDRESS,
      amount: value,
    });

    // The maker that lost the auction has no say on the order.
    assert.deepEqual(await loser.bot.reportFailedPayment(quote.orderId, 'AddressBlacklisted'), {
      success: false,
      message: 'OrderNotWonByProvider',
    });

    const before = { winner: await balanceOf(winner.payout), loser: await balanceOf(loser.payout) };
    const claim = await node.wallet(claimedBy(winner, loser).gasWallet).sendTransaction({
      to: contract,
      data: encodeClaimCalldata(quote.orderId, funder.address, preimage),
    });
    assert.equal((await node.publicClient.waitForTransactionReceipt({ hash: claim })).status, 'success');
    assert.equal((await balanceOf(winner.payout)) - before.winner, value);
    assert.equal(await balanceOf(loser.payout), before.loser);
    return winner;
  }

  test('each provider wins the auctions it prices best, and each claim pays the winner', async () => {
    assert.equal(await swap(20_000n, (winner) => winner), makers.a);
    assert.equal(await swap(40_000n, (winner) => winner), makers.b);
    // Anyone may send a claim, the loser too: the slot's claimer is the winner, so the winner is paid.
    assert.equal(await swap(25_000n, (_winner, loser) => loser), makers.a);
    assert.equal(await balanceOf(PAYOUT_A), priceA(20_000n) + priceA(25_000n));
    assert.equal(await balanceOf(PAYOUT_B), priceB(40_000n));
  });

  test('a quote naming another payout address is refused, however cheap', async () => {
    await eventually(() => makers.thief.judgements.length === 3, "the thief's three quotes to be judged");
    for (const { ack } of makers.thief.judgements) {
      assert.deepEqual(ack, { success: false, message: 'ClaimerIsNotPayoutAddress' });
    }
    assert.equal(await balanceOf(THIEF), 0n);
    assert.equal(await balanceOf(PAYOUT_C), 0n);
    for (const maker of [makers.a, makers.b]) {
      assert.ok(
        maker.judgements.every(({ ack }) => ack.success),
        `${maker.name}'s quotes were all accepted`,
      );
    }
  });

  test('a payout address changed by the operator holds from the next quote; orders keep theirs', async () => {
    assert.equal(
      await harness.fresh.store.setProviderPayoutAddress('maker-a', '0x00000000000000000000000000000000000a11c2'),
      true,
    );
    const judged = makers.a.judgements.length;
    const user = await harness.connect('/user/v1');
    const { invoice } = makeInvoice({ network: 'simnet', amountSatoshis: 20_000n, expirySeconds: 7200 });
    const quote = await requestQuote(user, { market: MARKET, invoice });
    assert.equal(
      (await harness.fresh.store.getOrder(quote.orderId))?.providerId,
      'maker-b',
      'maker A still names its old address',
    );
    await eventually(() => makers.a.judgements.length > judged, "maker A's quote to be judged");
    assert.deepEqual(makers.a.judgements.at(-1)?.ack, { success: false, message: 'ClaimerIsNotPayoutAddress' });
    for (const { orderId, winner } of won) {
      assert.equal((await harness.fresh.store.getOrder(orderId))?.claimAddress, winner.payout);
    }
  });
});
