import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startCli, waitForLine } from './cli-process.js';

/** `curl -s URL` or `curl -s 'URL'` as printed by the demo. */
const CURL_LINE = /^ {2}curl -s '?(http:\/\/[^' ]+)'?$/;

test('lnswap demo serves a fresh demo database and prints three curl lines that work', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'lnswap-demo-'));
  // Whatever was there before is replaced: this is not even a database.
  await mkdir(join(directory, 'data'));
  await writeFile(join(directory, 'data', 'demo.sqlite'), 'left over from an earlier run');
  const child = startCli(['demo', '--port', '0'], { cwd: directory });
  try {
    const urls: string[] = [];
    await waitForLine(child, (line) => {
      const url = CURL_LINE.exec(line)?.[1];
      if (url !== undefined) urls.push(url);
      return urls.length === 3 ? true : undefined;
    });
    assert.ok((await stat(join(directory, 'data', 'demo.sqlite'))).size > 0);

    const [orderUrl, ordersUrl, refundUrl] = urls as [string, string, string];
    const order = await fetch(orderUrl);
    assert.equal(order.status, 200);
    const completed = (await order.json()) as { state: string; paymentPreimage?: string; paymentHash: string };
    assert.equal(completed.state, 'Complete');
    assert.match(completed.paymentPreimage ?? '', /^[0-9a-f]{64}$/);

    const orders = await fetch(ordersUrl);
    assert.equal(orders.status, 200);
    const markets = ((await orders.json()) as { market: string }[]).map((item) => item.market).sort();
    assert.deepEqual(markets, ['BTC_LBTC', 'ETH_LBTC']);

    const refund = await fetch(refundUrl);
    assert.equal(refund.status, 200);
    const details = (await refund.json()) as { type: string; blocksRemaining: number; details: { utxos: unknown[] } };
    assert.equal(details.type, 'TimelockRefund');
    assert.equal(details.blocksRemaining, 0);
    assert.equal(details.details.utxos.length, 1);

    child.kill('SIGTERM');
    const [code] = await once(child, 'close');
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(directory, { recursive: true, force: true });
  }
});
