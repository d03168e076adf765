/**
 * The provider daemon end to end, in this process, on one Anvil and one lnswap service: a user's
 * swap funded as quoted, the daemon pays through a stand-in LND or Core Lightning, claims with the
 * preimage and the order completes, in ether and in a token; a failed payment opens no claim and the
 * user refunds; an order funded too close to its refund height is not paid; a claim not confirmed as
 * the refund height nears is sent again at a higher fee with the same nonce; a relay in front of the service
 * answering the order with a tenfold invoice of the same hash, or the funding with another contract: never paid,
 * one error line, counted, and the failure reported to the service; a node reporting a success whose preimage
 * does not hash leaves the payment suspect, said once in the log, in the metrics and on `/readyz`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { Hex } from 'viem';
import { encodeRefundCalldata } from '../../src/domain/ethereum.js';
import { decodeInvoice } from '../../src/domain/invoice.js';
import type { LightningBackend } from '../../src/chains/lightning/lightning-backend.js';
import type { ProviderDaemon } from '../../src/provider/daemon/provider-daemon.js';
import { ProviderState } from '../../src/provider/state/provider-state.js';
import { anvilSkipReason } from '../support/anvil.js';
import { HttpRelay, type JsonRewrite } from '../support/http-relay.js';
import { makeInvoiceForHash } from '../support/invoices.js';
import { eventually, recordingLogger } from '../support/ws/harness.js';
import {
  CONFIRMATIONS,
  ETHER_MARKET,
  REFUND_DELAY,
  startProviderWorld,
  TOKEN_MARKET,
  untilState,
  type ProviderWorld,
  type TestProvider,
} from '../support/e2e/provider-world.js';

describe('the provider daemon on Anvil with a real service', { skip: anvilSkipReason }, () => {
  let world: ProviderWorld;
  before(async () => {
    world = await startProviderWorld();
  });
  after(async () => {
    await world?.close();
  });

  async function startDaemon(
    name: string,
    lightning: 'lnd' | 'cln',
    ethereum: Record<string, unknown> = {},
    serviceUrl = world.harness.service.url,
  ): Promise<{
    daemon: ProviderDaemon;
    provider: TestProvider;
    stateFile: string;
    lines: Record<string, unknown>[];
    /** Rounds gone so far: each asks the node's `getInfo` once for readiness (and the start once more). */
    rounds: () => number;
  }> {
    const provider = await world.newProvider(name);
    const { logger, lines } = recordingLogger();
    let infoCalls = 0;
    const countingInfoCalls = (node: LightningBackend) =>
      Object.assign(Object.create(node) as LightningBackend, {
        getInfo: () => {
          infoCalls += 1;
          return node.getInfo();
        },
      });
    const daemon = await world.startDaemon(name, provider, {
      lightning,
      ethereum,
      serviceUrl,
      logger,
      probes: true,
      wrapLightning: countingInfoCalls,
    });
    const stateFile = world.stateFile(name);
    return { daemon, provider, stateFile, lines, rounds: () => infoCalls };
  }

  /** The sample of `name` with `labels`, undefined when the family has none; a family not exported fails. */
  async function metric(
    daemon: ProviderDaemon,
    name: string,
    labels: Record<string, string> = {},
  ): Promise<number | undefined> {
    const text = await (await fetch(`${daemon.probesUrl}/metrics`)).text();
    const family = parsePrometheusTextFormat(text).find((candidate) => candidate.name === name);
    assert.ok(family !== undefined, `the daemon exports ${name}`);
    const sample = family.metrics.find((candidate) =>
      Object.entries(labels).every(([key, value]) => candidate.labels?.[key] === value),
    );
    return sample === undefined ? undefined : Number(sample.value);
  }

  for (const [lightning, market] of [
    ['lnd', ETHER_MARKET],
    ['cln', ETHER_MARKET],
    ['lnd', TOKEN_MARKET],
  ] as const) {
    test(`${market} through ${lightning}: funded -> paid once -> claimed -> Complete, the full amount at the payout address`, async () => {
      const { daemon, provider, stateFile, lines } = await startDaemon(
        `${lightning}-${market}`.toLowerCase().replace('_', '-'),
        lightning,
      );
      try {
        const balance = () =>
          market === TOKEN_MARKET
            ? world.anvil.tokenBalance(world.token, provider.payoutAddress)
            : world.anvil.publicClient.getBalance({ address: provider.payoutAddress });
        const before = await balance();
        const swap = await world.swap(market, 'settle');
        await untilState(world, swap.orderId, 'Complete');
        assert.equal(world.payments.sendAttempts.get(swap.invoice.paymentHash), 1);
        await world.anvil.mine(CONFIRMATIONS);
        const state = ProviderState.open(stateFile);
        try {
          await eventually(() => state.claim(swap.orderId)?.state === 'confirmed', 'the claim to be confirmed');
          assert.equal(state.payment(swap.invoice.paymentHash)?.reported, true);
        } finally {
          state.close();
        }
        const gained = (await balance()) - before;
        if (market === TOKEN_MARKET) assert.equal(gained, swap.amount);
        else assert.ok(gained > swap.amount - 10n ** 15n && gained < swap.amount, 'the amount less the claim gas');
        assert.equal(await metric(daemon, 'lnswap_provider_quotes_won_total', { market }), 1);
        assert.equal(await metric(daemon, 'lnswap_provider_payments', { outcome: 'succeeded' }), 1);
        assert.equal(
          await metric(daemon, 'lnswap_provider_claims_pending', { chain: 'ethereum' }),
          undefined,
          'no claim pending',
        );
        const ready = await fetch(`${daemon.probesUrl}/readyz`);
        assert.equal(ready.status, 200);
        assert.deepEqual(await ready.json(), {
          status: 'ready',
          service: true,
          lightning: true,
          chains: { ethereum: true },
          suspectPayments: [],
        });
        const logged = JSON.stringify(lines);
        assert.ok(!logged.includes(provider.keys.secretKey) && !logged.includes(provider.payoutKey.slice(2)));
      } finally {
        await daemon.close();
      }
    });
  }

  test('a payment that fails: reported, no claim, and the user refunds after the timelock', async () => {
    const { daemon, stateFile } = await startDaemon('no-route', 'lnd');
    try {
      const swap = await world.swap(ETHER_MARKET, 'no-route');
      await untilState(world, swap.orderId, 'Funded');
      const state = ProviderState.open(stateFile);
      try {
        await eventually(() => state.payment(swap.invoice.paymentHash)?.reported === true, 'the failure reported');
        assert.equal(state.payment(swap.invoice.paymentHash)?.state, 'failed');
        assert.equal(state.claim(swap.orderId), undefined);
      } finally {
        state.close();
      }
      assert.equal(await world.orderState(swap.orderId), 'Funded', 'a failure changes nothing at the service');
      await world.anvil.mine(REFUND_DELAY);
      const user = world.anvil.wallet(world.anvil.accounts[1]);
      await world.anvil.publicClient.waitForTransactionReceipt({
        hash: await user.sendTransaction({ to: world.contract, data: encodeRefundCalldata(swap.orderId) }),
      });
      await world.anvil.mine(CONFIRMATIONS);
      await untilState(world, swap.orderId, 'Refunded');
    } finally {
      await daemon.close();
    }
  });

  test('a node reporting a success whose preimage does not hash: suspect, one error line, the metric, /readyz says why', async (t) => {
    const { daemon, stateFile, lines, rounds } = await startDaemon('bad-preimage', 'lnd');
    try {
      const swap = await world.swap(ETHER_MARKET, 'settle-bad-preimage');
      const paymentHash = swap.invoice.paymentHash;
      const state = ProviderState.open(stateFile);
      try {
        await eventually(() => state.payment(paymentHash)?.state === 'suspect', 'the payment suspect');
        const suspectAt = rounds();
        // A line per round would show as ten.
        await eventually(() => rounds() >= suspectAt + 10, '10 more rounds');
        t.diagnostic(`${rounds() - suspectAt} rounds after the payment turned suspect`);
        const payment = state.payment(paymentHash);
        assert.equal(payment?.suspectReason, 'preimage-mismatch');
        assert.equal(payment.reported, false, 'never reported: money may have gone out');
        assert.equal(state.claim(swap.orderId), undefined, 'never claimed without a valid preimage');
      } finally {
        state.close();
      }
      const loud = lines.filter((line) => line.orderId === swap.orderId && Number(line.level) >= 40);
      assert.equal(loud.length, 1, JSON.stringify(loud));
      assert.equal(loud[0]?.level, 50);
      assert.equal(loud[0]?.paymentHash, paymentHash);
      assert.equal(loud[0]?.reason, 'preimage-mismatch');
      assert.equal(world.payments.sendAttempts.get(paymentHash), 1, 'never paid again');
      assert.equal(await world.orderState(swap.orderId), 'Funded', 'no failure reported to the service');
      assert.equal(await metric(daemon, 'lnswap_provider_payments_suspect'), 1);
      assert.equal(await metric(daemon, 'lnswap_provider_payments', { outcome: 'suspect' }), 1);
      const ready = await fetch(`${daemon.probesUrl}/readyz`);
      assert.equal(ready.status, 503);
      const body = (await ready.json()) as { status: string; suspectPayments: unknown; reasons: string[] };
      assert.equal(body.status, 'not ready');
      assert.deepEqual(body.suspectPayments, [{ orderId: swap.orderId, paymentHash, reason: 'preimage-mismatch' }]);
      assert.ok(
        body.reasons.some((reason) => reason.includes(paymentHash) && reason.includes('suspect (preimage-mismatch)')),
        JSON.stringify(body.reasons),
      );
    } finally {
      await daemon.close();
    }
  });

  test('funded too close to its refund height: never paid, refused to the service', async () => {
    const { daemon, stateFile, lines } = await startDaemon('too-close', 'lnd', { claimMarginBlocks: REFUND_DELAY });
    try {
      const swap = await world.swap(ETHER_MARKET, 'settle');
      await untilState(world, swap.orderId, 'Funded');
      const state = ProviderState.open(stateFile);
      try {
        await eventually(() => state.quote(swap.orderId)?.closed === true, 'the order refused and closed');
        assert.equal(state.payment(swap.invoice.paymentHash), undefined);
      } finally {
        state.close();
      }
      assert.equal(world.payments.payment(swap.invoice.paymentHash), undefined, 'nothing sent to the node');
      assert.ok(lines.some((line) => line.orderId === swap.orderId && line.reason === 'refund-height-too-close'));
    } finally {
      await daemon.close();
    }
  });

  for (const lie of [
    {
      name: 'the order answered with a tenfold invoice of the same payment hash',
      fields: ['invoice', 'invoiceAmount'],
      rewrite: ((path, body) => {
        const order = body as { invoice?: unknown };
        if (!/^\/api\/orders\/[0-9a-f-]+$/.test(path) || typeof order.invoice !== 'string') return undefined;
        const decoded = decodeInvoice(order.invoice)!;
        const tenfold = makeInvoiceForHash(
          { network: 'simnet', amountSatoshis: (decoded.amountMillisatoshis! * 10n) / 1000n, expirySeconds: 7_200 },
          decoded.paymentHash,
        );
        return { ...order, invoice: tenfold };
      }) satisfies JsonRewrite,
    },
    {
      name: 'the funding details answered with another swap contract',
      fields: ['contract'],
      rewrite: ((path, body) => {
        const funding = body as { details?: { unsignedFundingTx?: Record<string, unknown> } };
        const tx = funding.details?.unsignedFundingTx;
        if (!path.endsWith('/fundDetails') || tx === undefined) return undefined;
        const elsewhere = `0x${'5e'.repeat(20)}`;
        return { ...funding, details: { ...funding.details, unsignedFundingTx: { ...tx, to: elsewhere } } };
      }) satisfies JsonRewrite,
    },
  ]) {
    test(`a relay in front of the service, ${lie.name}: never paid, one error line, counted, the failure reported`, async () => {
      const relay = new HttpRelay(new URL(world.harness.service.url));
      await relay.start();
      relay.rewrite = lie.rewrite;
      const { daemon, stateFile, lines } = await startDaemon(`lied-${lie.fields[0]!}`, 'lnd', {}, relay.url);
      try {
        const swap = await world.swap(ETHER_MARKET, 'settle');
        const state = ProviderState.open(stateFile);
        try {
          await eventually(
            () => state.payment(swap.invoice.paymentHash)?.reported === true,
            'the outcome of the order reported',
          );
          assert.equal(state.payment(swap.invoice.paymentHash)?.failureReason, 'service-mismatch');
          assert.equal(state.quote(swap.orderId)?.closed, true);
        } finally {
          state.close();
        }
        assert.ok(
          world.serviceLines.some((line) => line.orderId === swap.orderId && line.failedReason === 'PaymentFailed'),
          'the service was told the payment failed',
        );
        const errors = lines.filter((line) => line.orderId === swap.orderId && line.level === 50);
        assert.equal(errors.length, 1, 'one error line');
        const named = errors[0]!.mismatches as { field: string; quoted: string; answered: string }[];
        assert.deepEqual(
          named.map(({ field }) => field),
          lie.fields,
        );
        for (const { quoted, answered } of named) assert.ok(quoted !== answered && quoted !== '' && answered !== '');
        for (const field of lie.fields) {
          assert.equal(await metric(daemon, 'lnswap_provider_service_mismatches_total', { field }), 1);
        }

        // The relay tells the truth again: the order stays closed for the daemon, paid neither way.
        relay.rewrite = undefined;
        await untilState(world, swap.orderId, 'Funded');
        await world.anvil.mine(CONFIRMATIONS);
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(world.payments.payment(swap.invoice.paymentHash), undefined, 'nothing sent to the node');
        assert.equal(await world.orderState(swap.orderId), 'Funded');
      } finally {
        await daemon.close();
        await relay.stop();
      }
    });
  }

  test('an order quoted before invoices were kept (no invoice in its quote): not paid, refused to the service', async () => {
    const { daemon, stateFile, lines } = await startDaemon('legacy-quote', 'lnd');
    try {
      // As a quote of a schema 3 file reads: its hash and amounts, no invoice. Rounds begun before have ended
      // by the time the order is funded.
      const swap = await world.swap(ETHER_MARKET, 'settle', async (orderId) => {
        const raw = new Database(stateFile);
        raw.prepare('UPDATE quotes SET invoice = NULL WHERE order_id = ?').run(orderId);
        raw.close();
        await new Promise((resolve) => setTimeout(resolve, 300));
      });
      await untilState(world, swap.orderId, 'Funded');
      const state = ProviderState.open(stateFile);
      try {
        await eventually(() => state.quote(swap.orderId)?.closed === true, 'the order refused and closed');
        assert.equal(state.quote(swap.orderId)?.invoice, undefined);
        assert.equal(state.payment(swap.invoice.paymentHash), undefined);
      } finally {
        state.close();
      }
      assert.equal(world.payments.payment(swap.invoice.paymentHash), undefined, 'nothing sent to the node');
      assert.ok(lines.some((line) => line.orderId === swap.orderId && line.reason === 'quoted-invoice-unknown'));
      assert.ok(
        world.serviceLines.some((line) => line.orderId === swap.orderId && line.failedReason === 'PaymentFailed'),
      );
    } finally {
      await daemon.close();
    }
  });

  test('a claim not confirmed as the refund height nears is sent again at a higher fee, same nonce', async () => {
    const { daemon, provider, stateFile } = await startDaemon('bumper', 'lnd', {
      claimFees: { stuckAfterBlocks: 1_000, urgentBlocks: 25, bumpPercent: 150, maximumGwei: '1000' },
    });
    await world.anvil.setAutomine(false);
    try {
      const swap = await fundWithoutAutomine();
      const state = ProviderState.open(stateFile);
      try {
        await eventually(() => state.claim(swap.orderId)?.state === 'broadcast', 'the first claim sent');
        const first = state.claim(swap.orderId)!;
        // The first claim never makes it into a block: dropped from the pool as a node under load may.
        await world.anvil.testClient.request({
          method: 'anvil_dropTransaction' as never,
          params: [first.txId as Hex] as never,
        });
        // Into the urgent window (25 blocks): every block without the claim now raises its fee.
        await world.anvil.mine(first.refundHeight - 24 - Number(await world.anvil.blockNumber()));
        await eventually(() => (state.claim(swap.orderId)?.attempts ?? 0) >= 2, 'the claim sent again');
        const second = state.claim(swap.orderId)!;
        assert.notEqual(second.txId, first.txId);
        assert.equal(second.nonce, first.nonce);
        assert.ok(second.fee! > first.fee!, 'a higher priority fee');
        await world.anvil.mine(1);
        const receipt = await world.anvil.publicClient.getTransactionReceipt({ hash: second.txId as Hex });
        assert.equal(receipt.status, 'success');
        assert.equal(receipt.from.toLowerCase(), provider.payoutAddress.toLowerCase());
        await world.anvil.mine(CONFIRMATIONS);
        await eventually(() => state.claim(swap.orderId)?.state === 'confirmed', 'the replacement confirmed');
        assert.ok(((await metric(daemon, 'lnswap_provider_claim_fee_bumps_total', { chain: 'ethereum' })) ?? 0) >= 1);
      } finally {
        state.close();
      }
    } finally {
      await world.anvil.setAutomine(true);
      await daemon.close();
    }

    /** With automine off, the user's funding is mined by hand and the daemon's claim waits in the pool. */
    async function fundWithoutAutomine() {
      const funding = world.swap(ETHER_MARKET, 'settle');
      for (let mined = 0; mined < 200; mined += 1) {
        const settled = await Promise.race([
          funding.then(() => true),
          new Promise((resolve) => setTimeout(resolve, 50, false)),
        ]);
        if (settled) break;
        await world.anvil.mine(1);
      }
      return funding;
    }
  });
});
