import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TransitionCause } from '../../src/domain/transition-cause.js';
import { makeOrder } from '../support/store/fixtures.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../support/stores.js';
import { runCli, runInProcess } from '../support/cli/cli-process.js';

const order = makeOrder(1, { market: 'ETH_LBTC' });
const txId = `0x${'ab'.repeat(32)}`;
const blockHash = `0x${'cd'.repeat(32)}`;
const seen: TransitionCause = { source: 'chain', reason: 'fundingSeen', chain: 'ethereum', txId };
const confirmed: TransitionCause = { ...seen, reason: 'fundingConfirmed', blockHeight: 9_230_004, blockHash };
const paid: TransitionCause = {
  source: 'request',
  reason: 'paymentResult',
  requestId: 'b7e3c1d2-5a4f-4e6b-8c9d-0a1b2c3d4e5f',
};

for (const kind of STORE_KINDS) {
  describe(`lnswap history on ${kind}`, { skip: skipReason(kind) }, () => {
    let fresh: FreshStore;
    before(async () => {
      fresh = await openFreshStore(kind);
      await fresh.store.importAtomically((session) => session.writeOrders([order]));
      const moves = [
        { from: 'WaitingForFundingTx', to: 'WaitingForFundingTxConfirmation', at: Date.UTC(2026, 0, 2), cause: seen },
        { from: 'WaitingForFundingTxConfirmation', to: 'Funded', at: Date.UTC(2026, 0, 2, 0, 1), cause: confirmed },
        { from: 'Funded', to: 'Complete', at: Date.UTC(2026, 0, 2, 0, 5), cause: paid },
      ] as const;
      for (const move of moves) assert.ok(await fresh.store.transitionOrder({ orderId: order.id, ...move }));
    });
    after(() => fresh?.dispose());

    test('prints each state of the order with when and why it was entered', async () => {
      const result = await runCli(['history', order.id.toUpperCase(), '--db', fresh.url]);
      assert.equal(result.code, 0, result.stderr);
      const [imported, ...moved] = result.stdout.split('\n');
      assert.match(imported ?? '', / {2}WaitingForFundingTx {24}no cause recorded \(imported from a snapshot/);
      assert.deepEqual(moved, [
        `2026-01-02T00:00:00.000Z  WaitingForFundingTxConfirmation            chain fundingSeen: ethereum tx ${txId}`,
        `2026-01-02T00:01:00.000Z  Funded                                     chain fundingConfirmed: ethereum tx ${txId} block 9230004 hash ${blockHash}`,
        `2026-01-02T00:05:00.000Z  Complete                                   request paymentResult: request ${paid.requestId}`,
        '',
      ]);
    });
  });
}

test('lnswap history refuses an unknown order (exit 1) and a malformed id (exit 2)', async () => {
  const fresh = await openFreshStore('sqlite');
  try {
    const unknown = await runInProcess(['history', order.id, '--db', fresh.url]);
    assert.deepEqual(unknown, { code: 1, stdout: '', stderr: `lnswap history: no order ${order.id}\n` });
    const malformed = await runInProcess(['history', 'not-an-id', '--db', fresh.url]);
    assert.equal(malformed.code, 2);
    assert.match(malformed.stderr, /^lnswap history: "not-an-id" is not an order id/);
  } finally {
    await fresh.dispose();
  }
});
