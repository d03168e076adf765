import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address, Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { OrderTransitions } from '../../../src/engine/lifecycle/order-transitions.js';
import {
  applyRefundAuthorization,
  readRefundAuthorization,
  type RefundAuthorizationContext,
} from '../../../src/engine/lifecycle/refund-authorization.js';
import type { StateChangedEvent } from '../../../src/engine/lifecycle/state-events.js';
import type { OrderRecord } from '../../../src/domain/order.js';
import {
  buildOrder,
  CHAINS,
  configuration,
  ETHEREUM_VIEW,
  hex32,
  seedStore,
  SWAP_CONTRACT_ADDRESS,
} from '../../support/fixtures.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../../support/stores.js';
import { refusal } from '../../support/refusal.js';
import { signCooperativeRefund } from '../../chains/ethereum/swap-contract-v3.js';

const CHAIN_ID = 31337;
/** The orders' claimer: the payout address of the provider that won them. */
const claimer = privateKeyToAccount(`0x${hex32('claimer')}`);
const stranger = privateKeyToAccount(`0x${hex32('stranger')}`);
const FUNDER = '0x1111111111111111111111111111111111111111' as Address;
const OTHER_FUNDER = '0x2222222222222222222222222222222222222222' as Address;
/** A second-version contract the service quoted on before it switched to SWAP_CONTRACT_ADDRESS, a third-version one. */
const V2_CONTRACT = '0x3333333333333333333333333333333333333333';
/** The order of secp256k1: s' = n - s with v flipped is the same signature's high-s twin. */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function highSTwin(signature: Hex): Hex {
  const s = BigInt(`0x${signature.slice(66, 130)}`);
  const v = Number.parseInt(signature.slice(130), 16);
  const twinS = (CURVE_ORDER - s).toString(16).padStart(64, '0');
  return `${signature.slice(0, 66)}${twinS}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
}

const wonBy = (record: OrderRecord, changes: Partial<OrderRecord> = {}): OrderRecord => ({
  ...record,
  providerId: 'maker-1',
  claimAddress: claimer.address.toLowerCase(),
  ...changes,
});

describe('readRefundAuthorization', () => {
  const orderId = 'a61131f7-0b66-460e-b3d8-37d59f94b8aa';
  const signature = `0x${'11'.repeat(32)}${'22'.repeat(32)}1b` as const;

  test('reads the documented fields, order id normalized, funders and signatures lowercase', () => {
    const upper = `0x${'AB'.repeat(32)}${'22'.repeat(32)}1C`;
    assert.deepEqual(
      readRefundAuthorization({
        orderId: 'A61131F70B66460EB3D837D59F94B8AA',
        refunds: [{ funder: FUNDER.toUpperCase().replace('0X', '0x'), signature: upper }],
      }),
      { orderId, refunds: [{ funder: FUNDER, signature: upper.toLowerCase() }] },
    );
  });

  test('a malformed request is refused with its token', () => {
    assert.equal(
      refusal(() => readRefundAuthorization({ orderId: 'nope', refunds: [{ funder: FUNDER, signature }] })),
      'InvalidOrderId',
    );
    for (const payload of [
      null,
      { orderId },
      { orderId, refunds: [] },
      { orderId, refunds: [{ funder: 'not an address', signature }] },
      { orderId, refunds: [{ funder: FUNDER, signature: '0x1234' }] },
      { orderId, refunds: Array.from({ length: 17 }, () => ({ funder: FUNDER, signature })) },
      {
        orderId,
        refunds: [
          { funder: FUNDER, signature },
          { funder: FUNDER.toUpperCase().replace('0X', '0x'), signature },
        ],
      },
    ]) {
      assert.equal(
        refusal(() => readRefundAuthorization(payload)),
        'InvalidOrMissingRefundAuthorizationFields',
        JSON.stringify(payload),
      );
    }
  });

  test('InvalidRefundSignature for a signature the contract would refuse: high s, v other than 27 or 28', () => {
    const highS = `0x${'11'.repeat(32)}${'ff'.repeat(32)}1b`;
    const badV = `0x${'11'.repeat(32)}${'22'.repeat(32)}01`;
    for (const bad of [highS, badV]) {
      assert.equal(
        refusal(() => readRefundAuthorization({ orderId, refunds: [{ funder: FUNDER, signature: bad }] })),
        'InvalidRefundSignature',
      );
    }
  });
});

for (const kind of STORE_KINDS) {
  describe(`applyRefundAuthorization on ${kind}`, { skip: skipReason(kind) }, () => {
    let fresh: FreshStore;
    const events: StateChangedEvent[] = [];
    let transitions: OrderTransitions;
    const funded = wonBy(
      buildOrder({ label: 'coop funded', market: 'ETH_LBTC', state: 'Funded', funds: [499_500_000_000_000_000n] })
        .record,
    );
    const partial = wonBy(
      buildOrder({ label: 'coop partial', market: 'ETH_LBTC', state: 'PartiallyFunded', funds: [1_000n] }).record,
    );
    const late = wonBy(
      buildOrder({ label: 'coop late', market: 'ETH_LBTC', state: 'FundWindowElapsed', funds: [1_000n] }).record,
    );
    const onV2 = wonBy(
      buildOrder({ label: 'coop on v2', market: 'ETH_LBTC', state: 'Funded', funds: [1_000n] }).record,
      {
        payToAddress: V2_CONTRACT,
      },
    );
    const bitcoin = wonBy(buildOrder({ label: 'coop bitcoin', state: 'Funded', funds: [35_590n] }).record);
    const complete = wonBy(
      buildOrder({
        label: 'coop complete',
        market: 'ETH_LBTC',
        state: 'Complete',
        funds: [1_000n],
        preimageKnown: true,
      }).record,
    );
    const domain = { chainId: CHAIN_ID, verifyingContract: SWAP_CONTRACT_ADDRESS as Address };

    before(async () => {
      fresh = await openFreshStore(kind);
      const chains = {
        ...CHAINS,
        ethereum: {
          ...ETHEREUM_VIEW,
          contracts: [
            { address: V2_CONTRACT, version: 2 as const, since: 0 },
            { address: SWAP_CONTRACT_ADDRESS, version: 3 as const, since: 1 },
          ],
        },
      };
      await seedStore(fresh.store, {
        configuration: configuration({ chains }),
        orders: [funded, partial, late, onV2, bitcoin, complete],
      });
      transitions = new OrderTransitions(fresh.store, (event) => events.push(event));
    });
    after(() => fresh?.dispose());

    const context = (overrides: Partial<RefundAuthorizationContext> = {}): RefundAuthorizationContext => ({
      store: fresh.store,
      transitions,
      ethereumChainId: CHAIN_ID,
      now: 7000,
      providerId: 'maker-1',
      requestId: 'request-7',
      ...overrides,
    });
    const apply = (payload: unknown, overrides: Partial<RefundAuthorizationContext> = {}) =>
      applyRefundAuthorization(readRefundAuthorization(payload), context(overrides));

    test("refuses a forgery, another slot's, another chain's or contract's signature, a high-s twin: nothing stored", async () => {
      const orderId = funded.id;
      const forged = await signCooperativeRefund(stranger, domain, orderId, FUNDER);
      const otherSlot = await signCooperativeRefund(claimer, domain, orderId, OTHER_FUNDER);
      const otherOrder = await signCooperativeRefund(claimer, domain, partial.id, FUNDER);
      const otherChain = await signCooperativeRefund(claimer, { ...domain, chainId: 1 }, orderId, FUNDER);
      const otherContract = await signCooperativeRefund(
        claimer,
        { ...domain, verifyingContract: V2_CONTRACT as Address },
        orderId,
        FUNDER,
      );
      const genuine = await signCooperativeRefund(claimer, domain, orderId, FUNDER);
      for (const signature of [forged, otherSlot, otherOrder, otherChain, otherContract, highSTwin(genuine)]) {
        assert.equal(
          await refusal(() => apply({ orderId, refunds: [{ funder: FUNDER, signature }] })),
          'InvalidRefundSignature',
        );
      }
      // One bad signature among good ones refuses them all.
      const mixed = [
        { funder: FUNDER, signature: genuine },
        { funder: OTHER_FUNDER, signature: forged },
      ];
      assert.equal(await refusal(() => apply({ orderId, refunds: mixed })), 'InvalidRefundSignature');
      assert.equal((await fresh.store.getOrder(orderId))?.state, 'Funded');
      assert.deepEqual(await fresh.store.listCooperativeRefunds(orderId), []);
      assert.deepEqual(events, []);
    });

    test("OrderNotWonByProvider: another provider, even with the claimer's genuine signature", async () => {
      const signature = await signCooperativeRefund(claimer, domain, funded.id, FUNDER);
      const payload = { orderId: funded.id, refunds: [{ funder: FUNDER, signature }] };
      assert.equal(await refusal(() => apply(payload, { providerId: 'maker-2' })), 'OrderNotWonByProvider');
      assert.equal(
        await refusal(() => apply({ ...payload, orderId: '00000000-0000-4000-8000-000000000000' })),
        'OrderNotFound',
      );
      assert.deepEqual(await fresh.store.listCooperativeRefunds(funded.id), []);
    });

    test('ContractHasNoCooperativeRefund: an order made on the second version, or on Bitcoin', async () => {
      const v2Domain = { ...domain, verifyingContract: V2_CONTRACT as Address };
      const onV2Signature = await signCooperativeRefund(claimer, v2Domain, onV2.id, FUNDER);
      assert.equal(
        await refusal(() => apply({ orderId: onV2.id, refunds: [{ funder: FUNDER, signature: onV2Signature }] })),
        'ContractHasNoCooperativeRefund',
      );
      const bitcoinSignature = await signCooperativeRefund(claimer, domain, bitcoin.id, FUNDER);
      assert.equal(
        await refusal(() => apply({ orderId: bitcoin.id, refunds: [{ funder: FUNDER, signature: bitcoinSignature }] })),
        'ContractHasNoCooperativeRefund',
      );
      assert.equal((await fresh.store.getOrder(onV2.id))?.state, 'Funded');
    });

    test("the claimer's signatures are stored with the move to WaitingForRefundTx, cause providerAuthorizedRefund", async () => {
      const refunds = [
        { funder: FUNDER, signature: await signCooperativeRefund(claimer, domain, funded.id, FUNDER) },
        { funder: OTHER_FUNDER, signature: await signCooperativeRefund(claimer, domain, funded.id, OTHER_FUNDER) },
      ];
      await apply({ orderId: funded.id, refunds });
      assert.equal((await fresh.store.getOrder(funded.id))?.state, 'WaitingForRefundTx');
      assert.deepEqual(await fresh.store.listCooperativeRefunds(funded.id), refunds);
      const history = await fresh.store.getOrderHistory(funded.id);
      assert.deepEqual(history.at(-1), {
        state: 'WaitingForRefundTx',
        at: 7000,
        cause: { source: 'request', reason: 'providerAuthorizedRefund', requestId: 'request-7' },
      });
      assert.deepEqual(events, [
        { orderId: funded.id, state: 'WaitingForRefundTx', sequence: 2, reason: 'providerAuthorizedRefund' },
      ]);

      // A repeat is accepted and moves nothing; a slot keeps its first signature.
      await apply({ orderId: funded.id, refunds: refunds.slice(0, 1) });
      assert.equal((await fresh.store.getOrderHistory(funded.id)).length, 2);
      assert.equal(events.length, 1);
      assert.deepEqual(await fresh.store.listCooperativeRefunds(funded.id), refunds);
      events.length = 0;
    });

    test('a partly funded order and one funded after its window move too; a Complete one keeps its state', async () => {
      for (const order of [partial, late]) {
        const signature = await signCooperativeRefund(claimer, domain, order.id, FUNDER);
        await apply({ orderId: order.id, refunds: [{ funder: FUNDER, signature }] });
        assert.equal((await fresh.store.getOrder(order.id))?.state, 'WaitingForRefundTx', order.id);
      }
      const signature = await signCooperativeRefund(claimer, domain, complete.id, FUNDER);
      await apply({ orderId: complete.id, refunds: [{ funder: FUNDER, signature }] });
      assert.equal((await fresh.store.getOrder(complete.id))?.state, 'Complete');
      assert.deepEqual(await fresh.store.listCooperativeRefunds(complete.id), [{ funder: FUNDER, signature }]);
      assert.deepEqual(
        events.map((event) => event.state),
        ['WaitingForRefundTx', 'WaitingForRefundTx'],
      );
    });

    test('NoBackendConfigured without an Ethereum node to name the chain', async () => {
      const signature = await signCooperativeRefund(claimer, domain, partial.id, FUNDER);
      const refused = await refusal(() =>
        apply({ orderId: partial.id, refunds: [{ funder: FUNDER, signature }] }, { ethereumChainId: undefined }),
      );
      assert.equal(refused, 'NoBackendConfigured');
    });
  });
}
