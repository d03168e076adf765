import assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { configuration } from '../support/fixtures.js';
import { makeInvoice } from '../support/invoices.js';
import { openFreshStore, skipReason, type FreshStore } from '../support/stores.js';
import { refundAddressFor } from '../support/engine/helpers.js';
import { startCli, waitForLine } from '../support/cli/cli-process.js';
import {
  addProvider,
  connectClient,
  nextEvent,
  request,
  succeed,
  type Client,
  type ProviderKeys,
} from '../support/ws/harness.js';
import { BOT_PAY_REQ, makerTerms, runBot, type RunningBot } from '../support/e2e/bots.js';

const QUOTE_DEADLINE_MS = 1_500;
/** What the ack may take beyond the quote deadline, on a loaded machine. */
const ACK_BOUND_MS = 2_000;

function servingUrl(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    return entry.msg === 'lnswap is serving' ? entry.url : undefined;
  } catch {
    return undefined;
  }
}

describe('one of two instances killed with SIGKILL during an auction', { skip: skipReason('postgres') }, () => {
  let fresh: FreshStore;
  const children: ChildProcessWithoutNullStreams[] = [];
  const clients: Client[] = [];
  const bots: RunningBot[] = [];
  let keys: ProviderKeys;

  async function serve(): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
    const child = startCli([
      'serve',
      '--db',
      fresh.url,
      '--port',
      '0',
      '--quote-deadline-ms',
      String(QUOTE_DEADLINE_MS),
    ]);
    children.push(child);
    return { child, url: await waitForLine(child, servingUrl) };
  }

  before(async () => {
    fresh = await openFreshStore('postgres');
    await fresh.store.importAtomically((session) => session.writeConfiguration(configuration({ providers: [] })));
    keys = await addProvider(fresh.store, 'maker-on-the-doomed-instance');
  });
  after(async () => {
    for (const client of clients) client.close();
    for (const { bot } of bots) bot.close();
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await fresh?.dispose();
  });

  test('the user on the surviving instance gets its ack within the quote deadline plus a bound; the provider reconnects', async (context) => {
    const [survivor, doomed] = await Promise.all([serve(), serve()]);

    // A provider on the doomed instance that takes the request and never answers: it dies first.
    const provider = await connectClient(doomed.url, '/provider/v1');
    clients.push(provider);
    await succeed(provider, 'authenticate', keys);
    await succeed(provider, 'activeConfiguration', {
      BTC_LBTC: { payReq: BOT_PAY_REQ },
      ETH_LBTC: { payReq: BOT_PAY_REQ },
    });
    await succeed(provider, 'subscribeToQuotes', ['BTC_LBTC']);

    const user = await connectClient(survivor.url, '/user/v1');
    clients.push(user);
    const refundAddress = refundAddressFor('user');
    const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 40_000n, expirySeconds: 7200 });
    const asked = nextEvent(provider, 'requestQuote');
    const startedAt = Date.now();
    const ack = request(user, 'requestQuote', { market: 'BTC_LBTC', invoice, refundAddress });
    await asked;
    doomed.child.kill('SIGKILL');
    await once(doomed.child, 'close');
    const answer = await ack;
    const tookMs = Date.now() - startedAt;
    context.diagnostic(`ack ${tookMs} ms after the request (deadline ${QUOTE_DEADLINE_MS} ms)`);
    assert.deepEqual(answer, { success: false, message: 'NoQuotesAvailable' });
    assert.ok(tookMs <= QUOTE_DEADLINE_MS + ACK_BOUND_MS, `ack after ${tookMs} ms`);

    // The provider reconnects, to the survivor, and the next request is served.
    const reconnected = await runBot(survivor.url, keys, makerTerms('maker-on-the-doomed-instance', 100n, 600_000));
    bots.push(reconnected);
    const next = makeInvoice({ network: 'mainnet', amountSatoshis: 41_000n, expirySeconds: 7200 });
    const quote = await request(user, 'requestQuote', { market: 'BTC_LBTC', invoice: next.invoice, refundAddress });
    assert.equal(quote.success, true, JSON.stringify(quote));
  });
});
