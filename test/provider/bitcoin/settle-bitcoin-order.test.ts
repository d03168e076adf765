/**
 * A Bitcoin order settled by the provider on the test Bitcoin node (Esplora and Core), with a stand-in
 * LND and its own state file: the claim it broadcasts is judged by bitcore-lib's script interpreter,
 * and its replacements by the node's BIP 125 rules.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { address as bitcoinAddress, Transaction } from 'bitcoinjs-lib';
import type { BitcoinBackend } from '../../../src/chains/bitcoin/bitcoin-backend.js';
import { openBitcoinBackend } from '../../../src/chains/bitcoin/open-bitcoin-backend.js';
import { LndRestBackend } from '../../../src/chains/lightning/lnd-rest-backend.js';
import { bitcoinJsNetwork, htlcPayToAddresses } from '../../../src/domain/bitcoin.js';
import { REPLACEABLE_SEQUENCE } from '../../../src/provider/bitcoin/bitcoin-claim.js';
import { quoteBitcoinHtlc, type BitcoinQuoteDetails } from '../../../src/provider/bitcoin/bitcoin-quote.js';
import { ClaimKeys } from '../../../src/provider/keys/claim-keys.js';
import {
  settleBitcoinOrder,
  type BitcoinOrder,
  type BitcoinSettlement,
  type BitcoinSettlementStep,
} from '../../../src/provider/bitcoin/settle-bitcoin-order.js';
import { ProviderState } from '../../../src/provider/state/provider-state.js';
import { BitcoinTestChain } from '../../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../../support/bitcoin-node/server.js';
import { buildPayment, htlcOutputScript, p2wpkhAddress, scriptError, walletKey } from '../../support/bitcoin-wallet.js';
import { hex32 } from '../../support/fixtures.js';
import { makeInvoice } from '../../support/invoices.js';
import type { RunningStandIn } from '../../support/lightning/https-stand-in.js';
import { startLndRestStandIn } from '../../support/lightning/lnd-rest-stand-in.js';
import { SimulatedPayments, type PayeeBehaviour } from '../../support/lightning/simulated-payments.js';

const AMOUNT = 50_000n;
const MARGIN = 10;
const TIMELOCK = 40;
const FEE_RATE = 5;
const MACAROON = 'cd'.repeat(16);
const POLICY = { stuckAfterBlocks: 3, urgentBlocks: 6, bumpPercent: 125n, minimumIncrement: 1n, maximumRate: 60n };

interface QuotedOrder extends BitcoinOrder {
  paymentHash: string;
  htlc: BitcoinQuoteDetails;
}

describe('a Bitcoin order settled by the provider: the test Bitcoin node, a stand-in LND, its own state file', () => {
  const payments = new SimulatedPayments();
  const keys = ClaimKeys.fromSeed(Buffer.from(hex32('provider seed'), 'hex'));
  const user = walletKey(hex32('user wallet'));
  const refundKey = walletKey(hex32('user refund key'));
  const payoutAddress = p2wpkhAddress(walletKey(hex32('provider payout')), 'simnet');
  let coins = 0;
  let bitcoin: TestBitcoinNode;
  let lnd: RunningStandIn;
  let dir: string;
  let path: string;
  let backends: Record<'esplora' | 'core', BitcoinBackend>;
  let base: Omit<BitcoinSettlement, 'chain' | 'broadcast'>;

  before(async () => {
    const chain = new BitcoinTestChain('simnet', 1_000);
    chain.mine();
    bitcoin = await startTestBitcoinNode(chain, { feeRate: FEE_RATE });
    backends = {
      esplora: openBitcoinBackend({ esploraUrl: bitcoin.esploraUrl }, 'simnet'),
      core: openBitcoinBackend({ rpcUrl: bitcoin.rpcUrl }, 'simnet'),
    };
    lnd = await startLndRestStandIn(payments, MACAROON);
    dir = mkdtempSync(join(tmpdir(), 'lnswap-provider-bitcoin-'));
    path = join(dir, 'provider.sqlite');
    base = {
      state: ProviderState.open(path),
      lightning: new LndRestBackend({
        url: lnd.url,
        certificatePem: lnd.certificatePem,
        macaroonHex: MACAROON,
        timeoutMs: 5_000,
      }),
      network: 'simnet',
      keys,
      payoutAddress,
      requiredConfirmations: 2,
      claimMarginBlocks: MARGIN,
      claimFeePolicy: POLICY,
      paymentTimeoutSeconds: 30,
      feeLimitMillisatoshis: () => 5_000n,
      now: () => Date.now(),
    };
  });
  after(async () => {
    base.state.close();
    rmSync(dir, { recursive: true, force: true });
    await lnd.close();
    await bitcoin.close();
  });

  const settlement = (kind: 'esplora' | 'core' = 'esplora'): BitcoinSettlement => ({
    ...base,
    chain: backends[kind],
    broadcast: (hex) => backends[kind].broadcast(hex),
  });
  const mine = (blocks = 1, txs?: Transaction[]): void => {
    for (let block = 0; block < blocks; block += 1) bitcoin.chain.mine(txs === undefined ? {} : { txs });
  };

  function quotedOrder(behaviour: PayeeBehaviour, timelockBlocks = TIMELOCK, onchainAmount = AMOUNT): QuotedOrder {
    const orderId = randomUUID();
    const invoice = makeInvoice({ network: 'simnet', amountSatoshis: 40_000n, expirySeconds: 7_200 });
    payments.expect(invoice, behaviour);
    base.state.recordQuote({
      orderId,
      market: 'SBTC_LSBTC',
      paymentHash: invoice.paymentHash,
      invoice: invoice.invoice,
      invoiceAmountMillisatoshis: 40_000_000n,
      onchainAmount,
      expiresAtMs: Date.now() + 600_000,
      quotedAtMs: Date.now(),
    });
    const quote = quoteBitcoinHtlc(base.state, keys, {
      orderId,
      paymentHash: invoice.paymentHash,
      refundAddress: p2wpkhAddress(refundKey, 'simnet'),
      network: 'simnet',
      currentHeight: bitcoin.chain.tipHeight,
      timelockBlocks,
    });
    assert.ok('details' in quote);
    return {
      orderId,
      invoice: invoice.invoice,
      serviceState: 'Funded',
      paymentHash: invoice.paymentHash,
      htlc: quote.details,
    };
  }

  /** A payment from the user's wallet (of a coin of its own) into the mempool. */
  function pay(address: string, amount: bigint): Transaction {
    const coin = { txId: hex32(`coin ${coins++}`), index: 0, amount: 10_000_000n };
    const tx = buildPayment(user, coin, [{ address, amount }], 'simnet');
    bitcoin.chain.submit(tx.toHex());
    return tx;
  }

  function mempoolTx(txId: string): Transaction | undefined {
    return bitcoin.chain.mempool.find((tx) => tx.getId() === txId);
  }

  /** Every input of the claim may spend the HTLC output it names, as a node judges it. */
  function assertClaimValid(claim: Transaction, htlc: BitcoinQuoteDetails, funding: readonly Transaction[]): bigint {
    const script = htlcOutputScript(htlc.redeemScript, 'p2wsh');
    let total = 0n;
    claim.ins.forEach((input, index) => {
      const spent = funding.find((tx) => tx.getId() === Buffer.from(input.hash).reverse().toString('hex'))?.outs[
        input.index
      ];
      assert.ok(spent !== undefined, `input ${index} spends a funding output`);
      assert.deepEqual(Buffer.from(spent.script), Buffer.from(script));
      assert.equal(input.sequence, REPLACEABLE_SEQUENCE, 'replaceable');
      assert.equal(scriptError(claim.toHex(), index, { script: spent.script, amount: spent.value }), '');
      total += spent.value;
    });
    return total;
  }

  function sent(step: BitcoinSettlementStep): Extract<BitcoinSettlementStep, { kind: 'claim-sent' }> {
    assert.equal(
      step.kind,
      'claim-sent',
      JSON.stringify(step, (_, value: unknown) => String(value)),
    );
    return step as Extract<BitcoinSettlementStep, { kind: 'claim-sent' }>;
  }

  for (const kind of ['esplora', 'core'] as const) {
    test(`${kind}: a partial funding and its top-up are paid once and claimed in one transaction the interpreter accepts`, async () => {
      const order = quotedOrder('settle');
      const partial = pay(order.htlc.payToAddress, 30_000n);
      mine();
      assert.deepEqual(await settleBitcoinOrder(settlement(kind), order), {
        kind: 'waiting',
        reason: 'funding-not-seen',
      });
      const topUp = pay(order.htlc.payToAddress, AMOUNT - 30_000n);
      assert.deepEqual(await settleBitcoinOrder(settlement(kind), order), {
        kind: 'waiting',
        reason: 'funding-not-seen',
      });
      mine();
      assert.deepEqual(await settleBitcoinOrder(settlement(kind), order), { kind: 'waiting', reason: 'unconfirmed' });
      mine();
      const step = sent(await settleBitcoinOrder(settlement(kind), order));
      assert.equal(payments.sendAttempts.get(order.paymentHash), 1);

      const claim = mempoolTx(step.txId);
      assert.ok(claim !== undefined, 'the claim is in the node mempool');
      assert.equal(claim.ins.length, 2, 'both HTLC outputs in one claim');
      const total = assertClaimValid(claim, order.htlc, [partial, topUp]);
      assert.equal(total, AMOUNT);
      assert.equal(claim.outs.length, 1);
      assert.deepEqual(
        Buffer.from(claim.outs[0]!.script),
        Buffer.from(bitcoinAddress.toOutputScript(payoutAddress, bitcoinJsNetwork('simnet'))),
      );
      assert.equal(claim.outs[0]!.value, AMOUNT - step.fee, 'exactly the outputs less the fee');
      assert.equal(bitcoin.chain.fee(claim), step.fee);
      assert.equal(step.rate, BigInt(FEE_RATE));
      assert.ok(Number(step.fee) >= FEE_RATE * claim.virtualSize(), 'at least the node estimate');
      assert.ok(Number(step.fee) <= FEE_RATE * (claim.virtualSize() + 2), 'and no more than 2 vbytes over it');

      assert.deepEqual(await settleBitcoinOrder(settlement(kind), order), {
        kind: 'claim-waiting',
        txId: step.txId,
        atRisk: false,
      });
      mine();
      assert.equal((await settleBitcoinOrder(settlement(kind), order)).kind, 'claim-waiting');
      mine();
      assert.deepEqual(await settleBitcoinOrder(settlement(kind), order), { kind: 'claim-confirmed', txId: step.txId });
      assert.equal(base.state.claim(order.orderId)?.state, 'confirmed');
      assert.equal(payments.sendAttempts.get(order.paymentHash), 1);
    });
  }

  test("an attacker's output of the wrong amount, or the right one in another form of the script, does not make it payable", async () => {
    const order = quotedOrder('settle');
    pay(order.htlc.payToAddress, AMOUNT - 1_000n);
    pay(order.htlc.payToAddress, 999n);
    pay(htlcPayToAddresses(order.htlc.redeemScript, 'simnet').p2sh, AMOUNT);
    mine(3);
    for (const kind of ['esplora', 'core'] as const) {
      assert.deepEqual(await settleBitcoinOrder(settlement(kind), order), {
        kind: 'waiting',
        reason: 'funding-not-seen',
      });
    }
    assert.equal(payments.payment(order.paymentHash), undefined, 'one satoshi short: nothing paid');
  });

  test('an invoice of another payment hash than the one quoted (and locked in the HTLC) is never paid', async () => {
    const order = quotedOrder('settle');
    const other = makeInvoice({ network: 'simnet', amountSatoshis: 40_000n, expirySeconds: 7_200 });
    payments.expect(other, 'settle');
    pay(order.htlc.payToAddress, AMOUNT);
    mine(2);
    assert.deepEqual(await settleBitcoinOrder(settlement(), { ...order, invoice: other.invoice }), {
      kind: 'not-paying',
      reason: 'payment-hash-mismatch',
    });
    assert.equal(payments.payment(other.paymentHash), undefined);
  });

  test('funded too close to its refund height: not paid', async () => {
    const order = quotedOrder('settle', MARGIN + 3);
    pay(order.htlc.payToAddress, AMOUNT);
    mine(3);
    assert.deepEqual(await settleBitcoinOrder(settlement(), order), {
      kind: 'not-paying',
      reason: 'refund-height-too-close',
    });
    assert.equal(payments.payment(order.paymentHash), undefined);
  });

  test('a claim left unconfirmed is replaced at a higher fee, every block near the refund height; the old one leaves the mempool', async () => {
    const order = quotedOrder('settle', 24);
    const funding = pay(order.htlc.payToAddress, AMOUNT);
    mine(2);
    const first = sent(await settleBitcoinOrder(settlement(), order));
    assert.equal(first.atRisk, false);
    // Blocks that leave the claim out, as when its fee is too low for them.
    mine(POLICY.stuckAfterBlocks - 1, []);
    assert.equal((await settleBitcoinOrder(settlement(), order)).kind, 'claim-waiting');
    mine(1, []);
    const stuck = sent(await settleBitcoinOrder(settlement(), order));
    assert.equal(stuck.rate, 7n, '5 sat/vB raised by 25 %, rounded up');
    assert.equal(mempoolTx(first.txId), undefined, 'the first claim was replaced');
    assertClaimValid(mempoolTx(stuck.txId)!, order.htlc, [funding]);
    assert.equal(stuck.fee * 5n, first.fee * 7n, 'the same size priced at the new rate');
    assert.ok(stuck.fee - first.fee >= BigInt(mempoolTx(stuck.txId)!.virtualSize()), 'BIP 125: the relay fee added');

    const refundHeight = order.htlc.refundableAtBlockHeight;
    mine(refundHeight - POLICY.urgentBlocks - bitcoin.chain.tipHeight, []);
    let previous = stuck;
    for (let block = 0; block < 2; block += 1) {
      const urgent = sent(await settleBitcoinOrder(settlement(), order));
      assert.equal(urgent.atRisk, true);
      assert.ok(urgent.rate > previous.rate && urgent.fee > previous.fee);
      assert.equal(mempoolTx(previous.txId), undefined, 'the claim it replaces is evicted');
      assertClaimValid(mempoolTx(urgent.txId)!, order.htlc, [funding]);
      previous = urgent;
      mine(1, []);
    }
    assert.equal(
      bitcoin.chain.mempool.filter((tx) => tx.ins.some((input) => input.sequence === REPLACEABLE_SEQUENCE)).length,
      1,
    );
    mine(2);
    assert.deepEqual(await settleBitcoinOrder(settlement(), order), { kind: 'claim-confirmed', txId: previous.txId });
    assert.equal(base.state.claim(order.orderId)?.attempts, 4);
  });

  test('at the maximum rate in the urgent window: capped, and a claim the node dropped is sent again', async () => {
    const order = quotedOrder('settle', MARGIN + 4);
    pay(order.htlc.payToAddress, AMOUNT);
    mine(2);
    const capped = { ...settlement(), claimFeePolicy: { ...POLICY, maximumRate: BigInt(FEE_RATE) } };
    const first = sent(await settleBitcoinOrder(capped, order));
    assert.equal(first.rate, BigInt(FEE_RATE));
    mine(order.htlc.refundableAtBlockHeight - POLICY.urgentBlocks - bitcoin.chain.tipHeight, []);
    bitcoin.chain.mempool = bitcoin.chain.mempool.filter((tx) => tx.getId() !== first.txId);
    assert.deepEqual(await settleBitcoinOrder(capped, order), { kind: 'claim-capped', txId: first.txId, atRisk: true });
    assert.ok(mempoolTx(first.txId) !== undefined, 'a claim the node dropped is sent again');
  });

  test('an HTLC worth less than its claim fee and the dust limit: said so, nothing broadcast', async () => {
    const order = quotedOrder('settle', TIMELOCK, 1_000n);
    pay(order.htlc.payToAddress, 1_000n);
    mine(2);
    const step = await settleBitcoinOrder(settlement(), order);
    assert.equal(step.kind, 'claim-not-worth-it');
    assert.equal(step.kind === 'claim-not-worth-it' && step.total, 1_000n);
    assert.equal(base.state.claim(order.orderId)?.state, 'pending');
  });

  test('paid, then the process dies before the claim goes out: after restart it claims, and never pays again', async () => {
    const order = quotedOrder('settle');
    const funding = pay(order.htlc.payToAddress, AMOUNT);
    mine(2);
    const dying = {
      ...settlement(),
      broadcast: () => Promise.reject(new Error('killed between paying and claiming')),
    };
    await assert.rejects(settleBitcoinOrder(dying, order), /killed/);
    assert.equal(base.state.claim(order.orderId)?.state, 'pending');
    base.state.close();
    base.state = ProviderState.open(path);
    const step = sent(await settleBitcoinOrder(settlement('core'), order));
    assertClaimValid(mempoolTx(step.txId)!, order.htlc, [funding]);
    assert.equal(payments.sendAttempts.get(order.paymentHash), 1);
  });
});
