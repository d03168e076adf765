import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeFunctionData, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { SWAP_CONTRACT_V3_ARTIFACT_ABI } from '../../src/chains/ethereum/swap-contract-v3-artifact.js';
import {
  cooperativeRefundSigner,
  encodeRefundCooperativeCalldata,
  isCooperativeRefundSignature,
} from '../../src/domain/cooperative-refund.js';
import { orderIdToBytes16 } from '../../src/domain/order-ids.js';
import type { OrderSlot } from '../../src/domain/order-slots.js';
import { deriveCooperativeRefundDetails } from '../../src/domain/refund.js';
import { CHAINS, ETH_LBTC, ethereumOrder, SWAP_CONTRACT } from '../support/domain/order-fixtures.js';
import { hex32 } from '../support/fixtures.js';
import { signCooperativeRefund } from '../chains/ethereum/swap-contract-v3.js';

const claimer = privateKeyToAccount(`0x${hex32('domain claimer')}`);
const FUNDER = '0x00000000000000000000000000000000000000aa';
const DOMAIN = { chainId: 31337, verifyingContract: SWAP_CONTRACT as Address };
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

function slot(held: bigint, funder = FUNDER): OrderSlot {
  return {
    funder,
    role: 'principal',
    funded: 1_000n,
    held,
    refundHeight: 9_230_240,
    firstFunding: { height: 9_230_000, position: 0 },
    refunded: held === 0n,
    claimed: false,
    fundings: [],
    refunds: [],
    claims: [],
  };
}

describe('cooperative refund signatures', () => {
  test('recover to the claimer for the slot signed, to someone else for any other slot, order, chain or contract', async () => {
    const order = ethereumOrder();
    const signature = await signCooperativeRefund(claimer, DOMAIN, order.id, FUNDER);
    const signed = { funder: FUNDER, signature };
    assert.equal(await cooperativeRefundSigner(order.id, signed, DOMAIN), claimer.address.toLowerCase());
    const others = [
      cooperativeRefundSigner(order.id, { funder: `0x${'bb'.repeat(20)}`, signature }, DOMAIN),
      cooperativeRefundSigner('00000000-0000-4000-8000-000000000000', signed, DOMAIN),
      cooperativeRefundSigner(order.id, signed, { ...DOMAIN, chainId: 1 }),
      cooperativeRefundSigner(order.id, signed, { ...DOMAIN, verifyingContract: `0x${'cc'.repeat(20)}` }),
    ];
    for (const signer of await Promise.all(others)) assert.notEqual(signer, claimer.address.toLowerCase());
  });

  test('only the form the contract takes: 65 bytes, low s, v 27 or 28', async () => {
    const signature = await signCooperativeRefund(claimer, DOMAIN, ethereumOrder().id, FUNDER);
    assert.equal(isCooperativeRefundSignature(signature), true);
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const v = Number.parseInt(signature.slice(130), 16);
    const twin = `${signature.slice(0, 66)}${(CURVE_ORDER - s).toString(16).padStart(64, '0')}${(55 - v).toString(16)}`;
    assert.equal(isCooperativeRefundSignature(twin), false, 'the high-s twin');
    assert.equal(isCooperativeRefundSignature(`${signature.slice(0, 130)}00`), false, 'v of 0');
    assert.equal(isCooperativeRefundSignature(signature.slice(0, 128)), false, '64 bytes');
    assert.equal(isCooperativeRefundSignature(`${signature.slice(0, 66)}${'0'.repeat(64)}1b`), false, 's of 0');
  });
});

describe('deriveCooperativeRefundDetails', () => {
  test("is the refundCooperative call of the slot, to send now; the contract's own ABI reads it back", async () => {
    const order = ethereumOrder();
    const signature = await signCooperativeRefund(claimer, DOMAIN, order.id, FUNDER);
    const refund = deriveCooperativeRefundDetails(order, ETH_LBTC, CHAINS, slot(1_000n), { funder: FUNDER, signature });
    const data = encodeRefundCooperativeCalldata(order.id, { funder: FUNDER, signature });
    assert.deepEqual(refund, {
      market: 'ETH_LBTC',
      type: 'CooperativeRefund',
      state: 'Funded',
      blocksRemaining: 0,
      refundableAtBlockHeight: 9_230_240,
      refundableBalance: 1_000n,
      details: { to: SWAP_CONTRACT, data },
    });
    assert.equal(data.slice(0, 10), '0xd11f56ec');
    const call = decodeFunctionData({ abi: SWAP_CONTRACT_V3_ARTIFACT_ABI, data });
    assert.equal(call.functionName, 'refundCooperative');
    const [orderUUID, funder, sent] = call.args as readonly [Hex, Address, Hex];
    assert.deepEqual([orderUUID, funder.toLowerCase(), sent], [orderIdToBytes16(order.id), FUNDER, signature]);
  });

  test('a slot already emptied answers its timelock refund: nothing is left to send the signature for', async () => {
    const order = ethereumOrder({ state: 'WaitingForRefundTx' });
    const signature = await signCooperativeRefund(claimer, DOMAIN, order.id, FUNDER);
    const refund = deriveCooperativeRefundDetails(order, ETH_LBTC, CHAINS, slot(0n), { funder: FUNDER, signature });
    assert.equal(refund.type, 'TimelockRefund');
    assert.equal(refund.refundableBalance, 0n);
  });
});
