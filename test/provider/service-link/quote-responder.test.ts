import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { encodeFundCalldata } from '../../../src/domain/ethereum.js';
import { findMarket } from '../../../src/domain/markets.js';
import { credentialsFromEnvironment } from '../../../src/provider/service-link/provider-credentials.js';
import {
  startQuoteResponder,
  type QuoteResponder,
  type QuoteResponderOptions,
} from '../../../src/provider/service-link/quote-responder.js';
import { ProviderState } from '../../../src/provider/state/provider-state.js';
import { configuration, SWAP_CONTRACT_ADDRESS } from '../../support/fixtures.js';
import { makeInvoice } from '../../support/invoices.js';
import { ethereumServedMarket, quotingOptions } from '../../support/provider/quoting-provider.js';
import {
  addProvider,
  eventually,
  request,
  startTestService,
  type ProviderKeys,
  type TestService,
} from '../../support/ws/harness.js';

const MARKET = 'SETH_LSBTC';
const PAYOUT = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

describe('the provider answers quote requests over /provider/v1 of a real service', () => {
  let harness: TestService;
  let keys: ProviderKeys;
  let dir: string;
  let state: ProviderState;
  let responder: QuoteResponder | undefined;
  const judged: { orderId: string; judgement: string; atRiskMillisatoshis: bigint }[] = [];
  /** The claimer the quotes name; the service refuses any other than the provider's payout address. */
  let claimer = PAYOUT;

  const options = (): QuoteResponderOptions => ({
    ...quotingOptions(harness, keys, state, [
      ethereumServedMarket(findMarket(MARKET)!, 30n * 10n ** 18n, () => ({
        swapContractAddress: SWAP_CONTRACT_ADDRESS,
        payoutAddress: claimer,
      })),
    ]),
    onJudged: (orderId, _market, judgement) =>
      judged.push({ orderId, judgement, atRiskMillisatoshis: state.atRiskMillisatoshis() }),
  });

  before(async () => {
    harness = await startTestService('sqlite', {
      configuration: configuration({ markets: [MARKET], providers: [] }),
      engine: { quoteDeadlineMs: 1_000 },
    });
    keys = await addProvider(harness.fresh.store, 'daemon', PAYOUT);
    dir = mkdtempSync(join(tmpdir(), 'lnswap-provider-quotes-'));
    state = ProviderState.open(join(dir, 'provider.sqlite'));
  });
  after(async () => {
    responder?.close();
    state.close();
    rmSync(dir, { recursive: true, force: true });
    await harness.close();
  });

  test('credentials come from the environment, and a missing one is named without any value', () => {
    assert.deepEqual(credentialsFromEnvironment({ LNSWAP_PROVIDER_API_KEY: 'k', LNSWAP_PROVIDER_SECRET_KEY: 's' }), {
      apiKey: 'k',
      secretKey: 's',
    });
    assert.throws(
      () => credentialsFromEnvironment({ LNSWAP_PROVIDER_API_KEY: 'visible-key' }),
      (error: Error) => {
        assert.match(error.message, /LNSWAP_PROVIDER_SECRET_KEY is not set/);
        assert.doesNotMatch(error.message, /visible-key/);
        return true;
      },
    );
  });

  test('wrong credentials: the service refuses and the responder does not start', async () => {
    await assert.rejects(
      startQuoteResponder({ ...options(), credentials: { apiKey: keys.apiKey, secretKey: 'not-the-secret' } }),
      /authenticate refused: InvalidOrMissingCredentials/,
    );
  });

  test('a served invoice is priced, written down with its invoice and quoted with the payout address as claimer; one out of bounds is not', async () => {
    responder = await startQuoteResponder(options());
    const user = await harness.connect('/user/v1');
    const served = makeInvoice({ network: 'simnet', amountSatoshis: 100_000n, expirySeconds: 7_200 });
    const tooSmall = makeInvoice({ network: 'simnet', amountSatoshis: 9_000n, expirySeconds: 7_200 });
    const answer = await request(user, 'requestQuote', { market: MARKET, invoice: served.invoice });
    await eventually(() => judged.length === 1, 'the quote to be judged');
    const [first] = judged;
    assert.deepEqual(first?.judgement, 'accepted');
    assert.ok(answer.success);
    const quoted = answer.message as {
      orderId: string;
      amount: string;
      details: { unsignedFundingTx: { data: string } };
    };
    assert.equal(quoted.orderId, first.orderId);
    assert.equal(quoted.amount, '0.030150000000000000');
    assert.equal(
      quoted.details.unsignedFundingTx.data,
      encodeFundCalldata(first.orderId, served.paymentHash, PAYOUT),
      'the user funds a slot whose claimer is the provider',
    );
    const quote = state.quote(first.orderId);
    assert.equal(quote?.paymentHash, served.paymentHash);
    assert.equal(quote.onchainAmount, 30_000_000_000_000_000n + 150_000_000_000_000n);
    assert.equal(quote.invoiceAmountMillisatoshis, 100_000_000n);
    assert.equal(quote.invoice, served.invoice, 'the invoice quoted for, the only one the daemon pays');

    await request(user, 'requestQuote', { market: MARKET, invoice: tooSmall.invoice });
    assert.equal(judged.length, 1, 'no quote for an invoice below the minimum');
  });

  test('a quote the service refuses is closed at once: it no longer counts against the inventory limit', async () => {
    assert.ok(responder, 'started by the previous test');
    const atRiskBefore = state.atRiskMillisatoshis();
    claimer = '0x' + '11'.repeat(20);
    try {
      const user = await harness.connect('/user/v1');
      const refused = makeInvoice({ network: 'simnet', amountSatoshis: 200_000n, expirySeconds: 7_200 });
      await request(user, 'requestQuote', { market: MARKET, invoice: refused.invoice });
      await eventually(() => judged.length === 2, 'the refused quote to be judged');
    } finally {
      claimer = PAYOUT;
    }
    const refusal = judged[1]!;
    assert.equal(refusal.judgement, 'ClaimerIsNotPayoutAddress');
    assert.equal(state.quote(refusal.orderId)?.closed, true);
    assert.equal(refusal.atRiskMillisatoshis, atRiskBefore, 'already back down when the refusal is told');
    assert.equal(atRiskBefore, 100_000_000n, 'the accepted quote still counts');
  });
});
