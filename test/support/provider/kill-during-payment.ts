import { ProviderState } from '../../../src/provider/state/provider-state.js';

/**
 * Run as a child process: begins a payment, records its success with the claim, and reports the
 * claim's broadcast, killing itself with SIGKILL right after step `argv[3]` (0: none done).
 */
const [path, stopAfter] = process.argv.slice(2);
if (path === undefined || stopAfter === undefined) throw new Error('usage: kill-during-payment.ts <db> <steps>');
const state = ProviderState.open(path);
const paymentHash = 'ab'.repeat(32);
const steps = [
  () =>
    state.beginPayment({
      paymentHash,
      orderId: 'order-1',
      invoice: 'lnbcrt1invoice',
      amountMillisatoshis: 50_000_000n,
      feeLimitMillisatoshis: 250_000n,
      nowMs: 1,
    }),
  () =>
    state.recordPaymentSucceeded(
      paymentHash,
      { preimage: 'cd'.repeat(32), feeMillisatoshis: 1_000n, nowMs: 2 },
      { chain: 'ethereum', refundHeight: 6_000 },
    ),
  () => state.recordClaimBroadcast('order-1', { txId: '0x' + 'ef'.repeat(32), fee: 21_000n, height: 100 }),
];
for (const step of steps.slice(0, Number(stopAfter))) step();
process.kill(process.pid, 'SIGKILL');
