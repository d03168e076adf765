import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FundingObservation, RefundObservation } from '../../src/domain/chain-observations.js';
import { ZERO_ADDRESS } from '../../src/domain/ethereum.js';
import type { OrderRecord } from '../../src/domain/order.js';
import { buildOrder, configuration, ETHEREUM_VIEW, SWAP_CONTRACT_ADDRESS } from '../support/fixtures.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { refusalOf, startTestService, succeed, type TestService } from '../support/ws/harness.js';

const CLAIMER = '0x' + 'c1'.repeat(20);
const USER = '0x' + 'a1'.repeat(20);
const STRANGER = '0x' + 'ee'.repeat(20);
const FOREIGN = '0x' + 'f0'.repeat(20);
const HEAD = ETHEREUM_VIEW.blockHeight;
const ONE_ETHER = 1_000_000_000_000_000_000n;
const USER_REFUND_HEIGHT = HEAD + 300;
const STRANGER_REFUND_HEIGHT = HEAD + 2_000;

const built = buildOrder({
  label: 'funder-refund',
  market: 'ETH_LBTC',
  state: 'Funded',
  amount: ONE_ETHER,
  funds: [ONE_ETHER],
  refundableAtBlockHeight: USER_REFUND_HEIGHT,
});
const order: OrderRecord = { ...built.record, claimAddress: CLAIMER };
const refundedBuilt = buildOrder({
  label: 'funder-refunded',
  market: 'ETH_LBTC',
  state: 'Refunded',
  amount: ONE_ETHER,
  funds: [ONE_ETHER],
  refunded: true,
  refundableAtBlockHeight: USER_REFUND_HEIGHT,
});
const refundedOrder: OrderRecord = { ...refundedBuilt.record, claimAddress: CLAIMER };
const bitcoinOrder = buildOrder({ label: 'funder-refund-btc', state: 'Funded', funds: [35_590n] }).record;

const blockAt = (height: number) => ({ height, hash: `0x${height.toString(16).padStart(64, '0')}` });
/** A funding of `of` with its payment hash and asset; the claimer is the order's unless given. */
function funding(
  of: OrderRecord,
  funder: string,
  height: number,
  amount: bigint,
  refundHeight: number,
  claimer = CLAIMER,
): FundingObservation {
  return {
    kind: 'funding',
    orderId: of.id,
    txId: `0x${height.toString(16).padStart(64, '0')}`,
    position: 0,
    block: blockAt(height),
    amount,
    refundHeight,
    funder,
    claimer,
    token: ZERO_ADDRESS,
    paymentHash: of.paymentHash,
  };
}
function refund(orderId: string, funder: string, height: number, amount: bigint): RefundObservation {
  return {
    kind: 'refund',
    orderId,
    txId: `0x${(height + 1).toString(16).padStart(64, 'f')}`,
    position: 1,
    block: blockAt(height),
    amount,
    funder,
  };
}

/** The order's stored observations: the user's whole funding, a stranger's 1-wei matching slot opened later, a foreign slot. */
function observations(): (FundingObservation | RefundObservation)[] {
  return [
    funding(order, USER, HEAD - 100, ONE_ETHER, USER_REFUND_HEIGHT),
    funding(order, STRANGER, HEAD - 50, 1n, STRANGER_REFUND_HEIGHT),
    funding(order, FOREIGN, HEAD - 40, ONE_ETHER, HEAD + 5, FOREIGN),
    funding(refundedOrder, USER, HEAD - 400, ONE_ETHER, HEAD - 100),
    funding(refundedOrder, STRANGER, HEAD - 300, 1_000n, STRANGER_REFUND_HEIGHT),
    refund(refundedOrder.id, USER, HEAD - 90, ONE_ETHER),
  ];
}

const refundCall = (id: string) => `0xdfdecfaf${id.replaceAll('-', '')}${'0'.repeat(32)}`;

for (const kind of STORE_KINDS) {
  describe(`refund details by funder (${kind})`, { skip: skipReason(kind) }, () => {
    let harness: TestService;
    before(async () => {
      harness = await startTestService(kind, {
        configuration: configuration({ providers: [] }),
        orders: [order, refundedOrder, bitcoinOrder],
      });
      await harness.fresh.store.applyChainStep({
        chain: 'ethereum',
        startHeight: HEAD - 500,
        observations: observations(),
        cursor: blockAt(HEAD),
        orders: [],
      });
    });
    after(() => harness.close());

    const get = (path: string) => fetch(`${harness.service.url}${path}`);
    async function json(path: string): Promise<unknown> {
      const response = await get(path);
      assert.equal(response.status, 200, `GET ${path}: ${response.status} ${await response.clone().text()}`);
      return response.json();
    }
    async function token(path: string): Promise<[number, string]> {
      const response = await get(path);
      return [response.status, await response.text()];
    }

    test("a funder's slot alone: its own refund height, blocks and balance, the same refund call; over HTTP and socket.io alike", async () => {
      const expectedUser = {
        market: 'ETH_LBTC',
        type: 'TimelockRefund',
        state: 'Funded',
        blocksRemaining: 300,
        refundableAtBlockHeight: USER_REFUND_HEIGHT,
        refundableBalance: '1',
        details: { to: SWAP_CONTRACT_ADDRESS, data: refundCall(order.id) },
      };
      const checksummed = USER.toUpperCase().replace('0X', '0x');
      assert.deepEqual(await json(`/api/orders/${order.id}/refund?funder=${checksummed}`), expectedUser);
      const stranger = {
        ...expectedUser,
        blocksRemaining: 2_000,
        refundableAtBlockHeight: STRANGER_REFUND_HEIGHT,
        refundableBalance: '0.000000000000000001',
      };
      assert.deepEqual(await json(`/api/orders/${order.id}/refund?funder=${STRANGER}`), stranger);
      const user = await harness.connect('/user/v1');
      assert.deepEqual(
        await succeed(user, 'requestRefundDetails', { orderId: order.id, funder: checksummed }),
        expectedUser,
      );
      assert.deepEqual(await succeed(user, 'requestRefundDetails', { orderId: order.id, funder: STRANGER }), stranger);
    });

    test("without a funder the order's figures, the stranger's dust left out; a redshift-style request is unchanged", async () => {
      const expected = {
        market: 'ETH_LBTC',
        type: 'TimelockRefund',
        state: 'Funded',
        blocksRemaining: 300,
        refundableAtBlockHeight: USER_REFUND_HEIGHT,
        refundableBalance: '1',
        details: { to: SWAP_CONTRACT_ADDRESS, data: refundCall(order.id) },
      };
      assert.deepEqual(await json(`/api/orders/${order.id}/refund`), expected);
      const user = await harness.connect('/user/v1', 'v2');
      assert.deepEqual(await succeed(user, 'requestRefundDetails', { orderId: order.id }), expected);
    });

    test("the dust a stranger leaves in a refunded order is still the stranger's to see and refund", async () => {
      const body = (await json(`/api/orders/${refundedOrder.id}/refund?funder=${STRANGER}`)) as Record<string, unknown>;
      assert.equal(body['state'], 'Refunded');
      assert.equal(body['refundableBalance'], '0.000000000000001');
      assert.equal(body['refundableAtBlockHeight'], STRANGER_REFUND_HEIGHT);
      const user = (await json(`/api/orders/${refundedOrder.id}/refund?funder=${USER}`)) as Record<string, unknown>;
      assert.equal(user['refundableBalance'], '0');
    });

    test('refusals: a malformed funder, a funder with no matching slot, a funder on a Bitcoin order, an unknown order', async () => {
      for (const malformed of ['0x123', `${USER}0`, USER.slice(2), `0x${'g'.repeat(40)}`, '', `${USER}%00`]) {
        assert.deepEqual(
          await token(`/api/orders/${order.id}/refund?funder=${malformed}`),
          [400, 'InvalidFunder'],
          malformed,
        );
      }
      assert.deepEqual(await token(`/api/orders/${order.id}/refund?funder=0x${'99'.repeat(20)}`), [
        404,
        'SlotNotFound',
      ]);
      assert.deepEqual(
        await token(`/api/orders/${order.id}/refund?funder=${FOREIGN}`),
        [404, 'SlotNotFound'],
        "a slot of other terms is not the order's",
      );
      assert.deepEqual(await token(`/api/orders/${bitcoinOrder.id}/refund?funder=${USER}`), [400, 'OrderHasNoSlots']);
      assert.deepEqual(await token(`/api/orders/00000000-0000-4000-8000-000000000000/refund?funder=${USER}`), [
        404,
        'OrderNotFound',
      ]);
      assert.deepEqual(await token(`/api/orders/nope/refund?funder=${USER}`), [400, 'InvalidOrderId']);

      const user = await harness.connect('/user/v1');
      assert.equal(
        await refusalOf(user, 'requestRefundDetails', { orderId: order.id, funder: '0x123' }),
        'InvalidFunder',
      );
      assert.equal(await refusalOf(user, 'requestRefundDetails', { orderId: order.id, funder: 7 }), 'InvalidFunder');
      assert.equal(
        await refusalOf(user, 'requestRefundDetails', { orderId: order.id, funder: FOREIGN }),
        'SlotNotFound',
      );
      assert.equal(
        await refusalOf(user, 'requestRefundDetails', { orderId: bitcoinOrder.id, funder: USER }),
        'OrderHasNoSlots',
      );
    });
  });
}
