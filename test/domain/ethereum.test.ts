import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeFunctionData, toFunctionSelector } from 'viem';
import {
  SWAP_CONTRACT_ABI,
  decodeFundCalldata,
  encodeClaimCalldata,
  encodeFundCalldata,
  encodeRefundCalldata,
  isEthereumAddress,
} from '../../src/domain/ethereum.js';

const ORDER_ID = 'a61131f7-0b66-460e-b3d8-37d59f94b8aa';
const PAYMENT_HASH = 'c3d4e83f646fa79a393d75277b1d858db1d1f7ab7137dcb7835db2ecd518e1c9';

describe('swap contract selectors', () => {
  test('match the deployed contract and the ABI signatures', () => {
    assert.equal(toFunctionSelector('fund(bytes16,bytes32)'), '0x3fdcdd1e');
    assert.equal(toFunctionSelector('claim(bytes16,bytes32)'), '0xaadd21c6');
    assert.equal(toFunctionSelector('refund(bytes16)'), '0xdfdecfaf');
    const [fund, claim, refund] = SWAP_CONTRACT_ABI;
    assert.equal(toFunctionSelector(fund), '0x3fdcdd1e');
    assert.equal(toFunctionSelector(claim), '0xaadd21c6');
    assert.equal(toFunctionSelector(refund), '0xdfdecfaf');
  });
});

describe('calldata', () => {
  test('fund is selector, left-aligned order UUID, payment hash', () => {
    assert.equal(
      encodeFundCalldata(ORDER_ID, PAYMENT_HASH),
      `0x3fdcdd1e${'a61131f70b66460eb3d837d59f94b8aa'.padEnd(64, '0')}${PAYMENT_HASH}`,
    );
  });

  test('fund accepts an upper-case payment hash and writes it lowercase', () => {
    assert.equal(encodeFundCalldata(ORDER_ID, PAYMENT_HASH.toUpperCase()), encodeFundCalldata(ORDER_ID, PAYMENT_HASH));
  });

  test('claim carries the preimage', () => {
    const preimage = '11'.repeat(32);
    const data = encodeClaimCalldata(ORDER_ID, preimage);
    assert.ok(data.startsWith('0xaadd21c6'));
    const call = decodeFunctionData({ abi: SWAP_CONTRACT_ABI, data });
    assert.deepEqual(call, { functionName: 'claim', args: ['0xa61131f70b66460eb3d837d59f94b8aa', `0x${preimage}`] });
  });

  test('refund carries only the order UUID', () => {
    assert.equal(encodeRefundCalldata(ORDER_ID), `0xdfdecfaf${'a61131f70b66460eb3d837d59f94b8aa'.padEnd(64, '0')}`);
  });

  test('refuses malformed inputs', () => {
    assert.throws(() => encodeFundCalldata('nope', PAYMENT_HASH));
    assert.throws(() => encodeFundCalldata(ORDER_ID, PAYMENT_HASH.slice(2)));
    assert.throws(() => encodeFundCalldata(ORDER_ID, `0x${PAYMENT_HASH}`));
    assert.throws(() => encodeClaimCalldata(ORDER_ID, 'zz'.repeat(32)));
  });
});

describe('decodeFundCalldata', () => {
  test('round-trips any order id and payment hash', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.uint8Array({ minLength: 32, maxLength: 32 }), (uuid, hashBytes) => {
        const paymentHash = Buffer.from(hashBytes).toString('hex');
        const decoded = decodeFundCalldata(encodeFundCalldata(uuid, paymentHash));
        assert.deepEqual(decoded, { orderId: uuid.toLowerCase(), paymentHash });
      }),
    );
  });

  test('accepts upper-case hex digits', () => {
    const data = encodeFundCalldata(ORDER_ID, PAYMENT_HASH);
    assert.deepEqual(decodeFundCalldata(`0x${data.slice(2).toUpperCase()}`), { orderId: ORDER_ID, paymentHash: PAYMENT_HASH });
  });

  test('refuses anything but a canonical fund call', () => {
    const data = encodeFundCalldata(ORDER_ID, PAYMENT_HASH);
    const dirtyPadding = `${data.slice(0, 10 + 32)}01${data.slice(10 + 34)}`;
    for (const candidate of [
      '',
      '0x',
      'not hex',
      data.slice(2),
      `${data}00`,
      data.slice(0, -2),
      dirtyPadding,
      encodeClaimCalldata(ORDER_ID, PAYMENT_HASH),
      encodeRefundCalldata(ORDER_ID),
      `0xdeadbeef${data.slice(10)}`,
      `${data.slice(0, -1)}`,
    ]) {
      assert.equal(decodeFundCalldata(candidate), undefined, candidate);
    }
  });
});

describe('isEthereumAddress', () => {
  // EIP-55's own examples.
  const checksummed = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
  ];

  test('accepts checksummed, all-lower and all-upper addresses', () => {
    for (const address of checksummed) {
      assert.ok(isEthereumAddress(address), address);
      assert.ok(isEthereumAddress(address.toLowerCase()), address);
      assert.ok(isEthereumAddress(`0x${address.slice(2).toUpperCase()}`), address);
    }
    assert.ok(isEthereumAddress('0xf0398fad8c2aa38c476b010c269158d442730e98'));
  });

  test('refuses a mixed-case address whose checksum does not match', () => {
    for (const address of checksummed) {
      const flipped = address.replace(/[a-f]/, (letter) => letter.toUpperCase());
      assert.equal(isEthereumAddress(flipped), false, flipped);
    }
  });

  test('refuses what is not 0x and 40 hex digits', () => {
    for (const address of ['', '0x', '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
      '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00',
      '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg', ' 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed']) {
      assert.equal(isEthereumAddress(address), false, address);
    }
  });
});
