import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { requestQuote } from '../../examples/user-client.js';
import { buildOrder, configuration } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { MOVE_CAUSE } from '../support/causes.js';
import { refundAddressFor } from '../support/engine/helpers.js';
import { addProvider, refusalOf, startTestService, type TestService } from '../support/ws/harness.js';
import { makerTerms, runBot } from '../support/e2e/bots.js';

const seeded = buildOrder({ label: 'metrics', state: 'WaitingForFundingTx', market: 'BTC_LBTC' });
let harness: TestService;

before(async () => {
  harness = await startTestService('sqlite', {
    configuration: configuration({ providers: [] }),
    orders: [seeded.record],
    engine: { quoteDeadlineMs: 300, minFundWindowMs: 300 },
  });
});
after(() => harness?.close());

interface Scrape extends Map<string, ParsedFamily> {
  readonly text: string;
}

async function scrape(): Promise<Scrape> {
  const response = await fetch(`${harness.service.url}/metrics`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const text = await response.text();
  const families = parsePrometheusTextFormat(text);
  return Object.assign(new Map(families.map((family) => [family.name, family])), { text });
}

/**
 * A sample line's value, read from the text: the parser keeps only the `le` label of histogram buckets, so
 * histogram series are checked on their exact lines.
 */
function lineValue(scraped: Scrape, series: string): number {
  const line = scraped.text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

/** The value of the sample whose labels include `labels`; 0 when there is none yet. */
function valueOf(families: Map<string, ParsedFamily>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  assert.ok(family !== undefined, `${name} is exposed`);
  const sample = family.metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  return sample === undefined ? 0 : Number(sample.count ?? sample.value);
}

test('the exposition parses and carries every documented family', async () => {
  const families = await scrape();
  const expected: [string, ParsedFamily['type']][] = [
    ['lnswap_http_requests_total', 'COUNTER'],
    ['lnswap_http_request_duration_seconds', 'HISTOGRAM'],
    ['lnswap_response_cache_hits_total', 'COUNTER'],
    ['lnswap_response_cache_misses_total', 'COUNTER'],
    ['lnswap_orders', 'GAUGE'],
    ['lnswap_quote_requests_total', 'COUNTER'],
    ['lnswap_quote_requests_refused_total', 'COUNTER'],
    ['lnswap_maker_quotes_total', 'COUNTER'],
    ['lnswap_auctions_total', 'COUNTER'],
    ['lnswap_order_transitions_total', 'COUNTER'],
    ['lnswap_providers_connected', 'GAUGE'],
    ['lnswap_event_loop_lag_seconds', 'GAUGE'],
  ];
  for (const [name, type] of expected) assert.equal(families.get(name)?.type, type, name);
  // The seeded order's fund window ended long ago: the sweeper moved it as the service started.
  assert.equal(valueOf(families, 'lnswap_orders', { state: 'FundWindowElapsed' }), 1);
  assert.equal(valueOf(families, 'lnswap_orders', { state: 'Complete' }), 0);
  assert.ok(valueOf(families, 'lnswap_event_loop_lag_seconds', { quantile: 'max' }) >= 0);
});

test('requests are counted by route and status, with their latencies, and the response cache by hits and misses', async () => {
  const before = await scrape();
  const route = { method: 'GET', route: '/api/orders/:id', status: '200' };
  for (let i = 0; i < 3; i++)
    assert.equal((await fetch(`${harness.service.url}/api/orders/${seeded.record.id}`)).status, 200);
  assert.equal((await fetch(`${harness.service.url}/api/orders/nope`)).status, 400);
  assert.equal((await fetch(`${harness.service.url}/nowhere`)).status, 404);
  const after = await scrape();
  const delta = (name: string, labels: Record<string, string> = {}) =>
    valueOf(after, name, labels) - valueOf(before, name, labels);
  assert.equal(delta('lnswap_http_requests_total', route), 3);
  const series = 'lnswap_http_request_duration_seconds_%s{method="GET",route="/api/orders/:id",status="200"%s}';
  const histogramLine = (part: string, le = '') => series.replace('%s', part).replace('%s', le);
  assert.equal(lineValue(after, histogramLine('count')) - lineValue(before, histogramLine('count')), 3);
  assert.equal(lineValue(after, histogramLine('bucket', ',le="+Inf"')), lineValue(after, histogramLine('count')));
  assert.ok(lineValue(after, histogramLine('sum')) > lineValue(before, histogramLine('sum')));
  assert.equal(delta('lnswap_http_requests_total', { route: '/api/orders/:id', status: '400' }), 1);
  assert.equal(delta('lnswap_http_requests_total', { route: 'unmatched', status: '404' }), 1);
  // The first two reads of the order miss (its answer is kept from the second read on) and the third hits; the bad
  // id misses too (refusals are never kept).
  assert.equal(delta('lnswap_response_cache_misses_total'), 3);
  assert.equal(delta('lnswap_response_cache_hits_total'), 1);
});

test('auctions, maker quotes, refusals, connected providers and transitions are counted', async () => {
  const user = await harness.connect('/user/v1');
  const before = await scrape();
  const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 50_000n, expirySeconds: 7200 });
  const refundAddress = refundAddressFor('user');
  assert.equal(
    await refusalOf(user, 'requestQuote', { market: 'BTC_LBTC', invoice, refundAddress }),
    'NoQuoteProvidersAvailable',
  );

  const keys = await addProvider(harness.fresh.store, 'metrics-maker');
  const bot = await runBot(harness.service.url, keys, makerTerms('metrics', 100n, 60_000));
  try {
    const quote = await requestQuote(user, { market: 'BTC_LBTC', invoice, refundAddress });
    const during = await scrape();
    assert.equal(valueOf(during, 'lnswap_providers_connected', { market: 'BTC_LBTC' }), 1);

    const moved = await harness.service.transitions.apply({
      orderId: quote.orderId,
      from: 'WaitingForFundingTx',
      to: 'FundWindowElapsed',
      at: Date.now(),
      cause: MOVE_CAUSE,
    });
    assert.equal(moved, true);
    const after = await scrape();
    const delta = (name: string, labels: Record<string, string> = {}) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);
    assert.equal(delta('lnswap_quote_requests_total'), 2);
    assert.equal(delta('lnswap_quote_requests_refused_total', { token: 'NoQuoteProvidersAvailable' }), 1);
    assert.equal(delta('lnswap_maker_quotes_total', { result: 'accepted' }), 1);
    assert.equal(delta('lnswap_auctions_total', { market: 'BTC_LBTC', outcome: 'won' }), 1);
    assert.equal(delta('lnswap_order_transitions_total', { state: 'FundWindowElapsed' }), 1);
    assert.equal(delta('lnswap_orders', { state: 'FundWindowElapsed' }), 1);
  } finally {
    bot.bot.close();
  }
});
