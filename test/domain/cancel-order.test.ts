import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { privateKeyToAccount } from 'viem/accounts';
import { cancelOrderSigner, cancelOrderTypedData } from '../../src/domain/cancel-order.js';
import { cooperativeRefundSigner, cooperativeRefundTypedData } from '../../src/domain/cooperative-refund.js';
import { ethereumOrder, SWAP_CONTRACT } from '../support/domain/order-fixtures.js';
import { hex32 } from '../support/fixtures.js';

const funder = privateKeyToAccount(`0x${hex32('domain cancelling funder')}`);
const DOMAIN = { chainId: 31337, verifyingContract: SWAP_CONTRACT };

describe('cancel signatures', () => {
  test("recover to the funder for the order signed, to someone else for another funder's slot, order, chain or contract", async () => {
    const order = ethereumOrder();
    const signature = await funder.signTypedData(cancelOrderTypedData(order.id, funder.address, DOMAIN));
    assert.equal(await cancelOrderSigner(order.id, funder.address, signature, DOMAIN), funder.address.toLowerCase());
    const others = [
      cancelOrderSigner(order.id, `0x${'bb'.repeat(20)}`, signature, DOMAIN),
      cancelOrderSigner('00000000-0000-4000-8000-000000000000', funder.address, signature, DOMAIN),
      cancelOrderSigner(order.id, funder.address, signature, { ...DOMAIN, chainId: 1 }),
      cancelOrderSigner(order.id, funder.address, signature, { ...DOMAIN, verifyingContract: `0x${'cc'.repeat(20)}` }),
    ];
    for (const signer of await Promise.all(others)) assert.notEqual(signer, funder.address.toLowerCase());
  });

  test('a cancel never passes for a cooperative refund of the same slot, nor a cooperative refund for a cancel', async () => {
    const order = ethereumOrder();
    const cancel = await funder.signTypedData(cancelOrderTypedData(order.id, funder.address, DOMAIN));
    const refund = await funder.signTypedData(cooperativeRefundTypedData(order.id, funder.address, DOMAIN));
    assert.notEqual(
      await cooperativeRefundSigner(order.id, { funder: funder.address, signature: cancel }, DOMAIN),
      funder.address.toLowerCase(),
    );
    assert.notEqual(await cancelOrderSigner(order.id, funder.address, refund, DOMAIN), funder.address.toLowerCase());
  });

  test('bytes that are no signature recover no one', async () => {
    assert.equal(await cancelOrderSigner(ethereumOrder().id, funder.address, '0x1234', DOMAIN), undefined);
  });

  test('a funder or contract that is no Ethereum address is refused before anything is signed', () => {
    assert.throws(() => cancelOrderTypedData(ethereumOrder().id, 'not-an-address', DOMAIN), /funder must be/);
    assert.throws(
      () => cancelOrderTypedData(ethereumOrder().id, funder.address, { ...DOMAIN, verifyingContract: '0x12' }),
      /verifyingContract must be/,
    );
  });
});
