import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { nextStep, settlementDue } from '../../../src/provider/lifecycle/lifecycle-steps.js';
import { LIFECYCLE_DIAGRAM_COMMAND, renderLifecycleDoc } from '../../../src/provider/lifecycle/lifecycle-diagram.js';
import {
  canMoveLifecycle,
  isFinalLifecycleState,
  LIFECYCLE_MOVES,
  ORDER_LIFECYCLE_STATES,
  orderLifecycle,
  type OrderLifecycleState,
  type OrderStanding,
} from '../../../src/provider/lifecycle/order-lifecycle.js';
import { ProviderState } from '../../../src/provider/state/provider-state.js';
import { repositoryPath } from '../../support/repository.js';

describe("the provider's order lifecycle, read from the state file's own records", () => {
  let dir: string;
  let state: ProviderState;
  let counter = 0;
  const walked = new Set<string>();
  const reached = new Set<OrderLifecycleState>();

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lnswap-provider-lifecycle-'));
    state = ProviderState.open(join(dir, 'provider.sqlite'));
  });
  after(() => {
    state.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A new quote, and a reader of its standing that checks every change of state is an allowed move. */
  function quoteOrder() {
    counter += 1;
    const orderId = `order-${counter}`;
    const paymentHash = counter.toString(16).padStart(64, '0');
    state.recordQuote({
      orderId,
      market: 'ETH-LBTC',
      paymentHash,
      invoice: `lnbcrt-invoice-${counter}`,
      invoiceAmountMillisatoshis: 5_000_000n,
      onchainAmount: 1_000_000_000_000_000n,
      expiresAtMs: 10_000,
      quotedAtMs: 1_000,
    });
    let last: OrderLifecycleState | undefined;
    const standing = (): OrderStanding => {
      const quote = state.quote(orderId);
      assert.ok(quote !== undefined);
      const read = orderLifecycle({
        quote,
        payment: state.paymentOfOrder(orderId),
        claim: state.claim(orderId),
        refunds: state.refundSignatures(orderId),
      });
      if (last === undefined) assert.equal(read.state, 'quoted', 'every order starts quoted');
      else if (read.state !== last) {
        assert.ok(canMoveLifecycle(last, read.state), `${last} -> ${read.state} is a move of the lifecycle`);
        walked.add(`${last} -> ${read.state}`);
      }
      last = read.state;
      reached.add(read.state);
      return read;
    };
    const begin = () =>
      state.beginPayment({
        paymentHash,
        orderId,
        invoice: `lnbcrt-invoice-${counter}`,
        amountMillisatoshis: 5_000_000n,
        feeLimitMillisatoshis: 5_000n,
        nowMs: 2_000,
      });
    const succeed = () =>
      state.recordPaymentSucceeded(
        paymentHash,
        { preimage: 'aa'.repeat(32), feeMillisatoshis: 10n, nowMs: 3_000 },
        { chain: 'ethereum', refundHeight: 500 },
      );
    const signRefund = () =>
      state.recordRefundSignatures(
        orderId,
        paymentHash,
        [{ funder: `0x${'aa'.repeat(20)}`, signature: `0x${'bb'.repeat(65)}` }],
        6_000,
      );
    return { orderId, paymentHash, standing, begin, succeed, signRefund };
  }

  test('won to claimed: each write moves the order one step, and the preimage is owed until reported', () => {
    const order = quoteOrder();
    assert.deepEqual(order.standing(), { state: 'quoted', reportOwed: false });
    state.markQuoteWon(order.orderId);
    assert.deepEqual(order.standing(), { state: 'won', reportOwed: false });
    order.begin();
    assert.deepEqual(order.standing(), { state: 'paying', reportOwed: true });
    order.succeed();
    assert.deepEqual(order.standing(), { state: 'paid', reportOwed: true });
    state.markReported(order.paymentHash);
    assert.deepEqual(order.standing(), { state: 'paid', reportOwed: false });
    state.recordClaimBroadcast(order.orderId, { txId: '0x01', fee: 1n, height: 10 });
    assert.equal(order.standing().state, 'claim-broadcast');
    state.recordClaimConfirmed(order.orderId, '0x01', 11);
    assert.equal(order.standing().state, 'claimed');
  });

  test('a claim is lost whether or not it was broadcast', () => {
    for (const broadcast of [false, true]) {
      const order = quoteOrder();
      order.standing();
      state.markQuoteWon(order.orderId);
      order.standing();
      order.begin();
      order.standing();
      order.succeed();
      order.standing();
      if (broadcast) state.recordClaimBroadcast(order.orderId, { txId: '0x02', fee: 1n, height: 10 });
      order.standing();
      state.recordClaimLost(order.orderId);
      assert.equal(order.standing().state, 'claim-lost');
    }
  });

  test('a payment that fails is owed to the service until reported, one that is suspect is never paid again', () => {
    const failing = quoteOrder();
    failing.standing();
    state.markQuoteWon(failing.orderId);
    failing.standing();
    failing.begin();
    failing.standing();
    state.recordPaymentFailed(failing.paymentHash, 'no-route', 4_000);
    assert.deepEqual(failing.standing(), { state: 'failed', reportOwed: true });
    state.markReported(failing.paymentHash);
    assert.deepEqual(failing.standing(), { state: 'failed', reportOwed: false });

    const suspect = quoteOrder();
    suspect.standing();
    state.markQuoteWon(suspect.orderId);
    suspect.standing();
    suspect.begin();
    suspect.standing();
    state.recordPaymentSuspect(suspect.paymentHash, { reason: 'unknown-status', nodeReport: 'UNKNOWN', nowMs: 4_000 });
    assert.equal(suspect.standing().state, 'suspect');
  });

  test('closed without paying: a lost auction, an order won but never paid, a service that answered other terms', () => {
    const lost = quoteOrder();
    lost.standing();
    state.closeQuote(lost.orderId);
    assert.equal(lost.standing().state, 'lost');

    const unpaid = quoteOrder();
    unpaid.standing();
    state.markQuoteWon(unpaid.orderId);
    unpaid.standing();
    state.closeQuote(unpaid.orderId);
    assert.equal(unpaid.standing().state, 'unpaid');

    for (const won of [false, true]) {
      const lied = quoteOrder();
      lied.standing();
      if (won) {
        state.markQuoteWon(lied.orderId);
        lied.standing();
      }
      state.recordServiceMismatch(lied.orderId, 5_000);
      assert.deepEqual(lied.standing(), { state: 'mismatch', reportOwed: true });
    }
  });

  test('a refund signed away, from an order won, a failed payment or a service mismatch: owed until reported, never paid', () => {
    const won = quoteOrder();
    won.standing();
    state.markQuoteWon(won.orderId);
    won.standing();
    assert.equal(won.signRefund(), 'recorded');
    assert.deepEqual(won.standing(), { state: 'refund-signed', reportOwed: true });
    assert.equal(won.begin(), 'refund-signed', 'the hash is never paid after its refund was signed');
    state.markRefundSignaturesReported(won.orderId);
    assert.deepEqual(won.standing(), { state: 'refund-signed', reportOwed: false });

    const failed = quoteOrder();
    failed.standing();
    state.markQuoteWon(failed.orderId);
    failed.standing();
    failed.begin();
    assert.equal(failed.signRefund(), 'payment-under-way', 'nothing is signed while the payment is in flight');
    assert.equal(failed.standing().state, 'paying');
    state.recordPaymentFailed(failed.paymentHash, 'no-route', 4_000);
    failed.standing();
    assert.equal(failed.signRefund(), 'recorded');
    assert.equal(failed.standing().state, 'refund-signed');

    const lied = quoteOrder();
    lied.standing();
    state.markQuoteWon(lied.orderId);
    lied.standing();
    state.recordServiceMismatch(lied.orderId, 5_000);
    lied.standing();
    assert.equal(lied.signRefund(), 'recorded');
    assert.equal(lied.standing().state, 'refund-signed');

    const paid = quoteOrder();
    paid.standing();
    state.markQuoteWon(paid.orderId);
    paid.standing();
    paid.begin();
    paid.standing();
    paid.succeed();
    paid.standing();
    assert.equal(paid.signRefund(), 'payment-under-way', 'a paid invoice is claimed, never refunded');
    assert.equal(paid.standing().state, 'paid');
  });

  test('the writes above reach every state and walk every move of the table', () => {
    assert.deepEqual([...reached].sort(), [...ORDER_LIFECYCLE_STATES].sort());
    assert.deepEqual([...walked].sort(), LIFECYCLE_MOVES.map(({ from, to }) => `${from} -> ${to}`).sort());
  });
});

test('docs/provider-lifecycle.md is what the generator writes from the table today, one arrow per move', () => {
  const committed = readFileSync(repositoryPath('docs', 'provider-lifecycle.md'), 'utf8');
  assert.equal(
    committed,
    renderLifecycleDoc(),
    `docs/provider-lifecycle.md is stale: run ${LIFECYCLE_DIAGRAM_COMMAND}`,
  );
  const name = (id: string) => id.replaceAll('_', '-');
  const arrows = [...committed.matchAll(/^ {4}(\S+) --> (\S+)$/gm)].map(
    ([, from = '', to = '']) => `${name(from)} --> ${name(to)}`,
  );
  assert.deepEqual(
    [...arrows].sort(),
    [
      '[*] --> quoted',
      ...LIFECYCLE_MOVES.map(({ from, to }) => `${from} --> ${to}`),
      ...ORDER_LIFECYCLE_STATES.filter(isFinalLifecycleState).map((state) => `${state} --> [*]`),
    ].sort(),
  );
});

test('the loop settles an order won only while Funded, a payment under way whatever the service says, a claim sent never', () => {
  const settled = (service: 'Funded' | 'Complete') =>
    ORDER_LIFECYCLE_STATES.filter((state) => settlementDue(state, service));
  assert.deepEqual(settled('Funded'), ['won', 'paying', 'failed', 'paid']);
  assert.equal(settlementDue('refund-signed', 'Funded'), false, 'an order whose refund was signed is never settled');
  assert.deepEqual(settled('Complete'), ['paying', 'paid']);
  assert.deepEqual(
    ORDER_LIFECYCLE_STATES.filter((state) => nextStep(state) !== 'follow'),
    ['quoted', 'lost', 'unpaid', 'mismatch', 'suspect'],
  );
  assert.equal(nextStep('suspect'), 'leave-to-operator');
});
