import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { PROPERTY_SEED } from '../support/property-seed.js';
import { decodeFunctionData, toFunctionSelector } from 'viem';
import {
  SWAP_CONTRACT_ABI,
  decodeFundingCalldata,
  encodeAdminRefundCalldata,
  encodeApproveCalldata,
  encodeClaimCalldata,
  encodeFundCalldata,
  encodeFundTokenCalldata,
  encodeRefundCalldata,
  isEthereumAddress,
} from '../../src/domain/ethereum.js';

const ORDER_ID = 'a61131f7-0b66-460e-b3d8-37d59f94b8aa';
const UUID_WORD = 'a61131f70b66460eb3d837d59f94b8aa'.padEnd(64, '0');
const PAYMENT_HASH = 'c3d4e83f646fa79a393d75277b1d858db1d1f7ab7137dcb7835db2ecd518e1c9';
const CLAIMER = '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed';
const TOKEN = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';
const addressWord = (address: string) => address.slice(2).padStart(64, '0');

describe('swap contract selectors', () => {
  test('are those the wire decisions fix, from the ABI signatures', () => {
    const expected = {
      fund: '0x478820ce',
      fundToken: '0xf1f9ff30',
      claim: '0x2580145c',
      refund: '0xdfdecfaf',
      adminRefund: '0xc1416956',
    };
    assert.deepEqual(
      Object.fromEntries(SWAP_CONTRACT_ABI.map((item) => [item.name, toFunctionSelector(item)])),
      expected,
    );
  });
});

describe('calldata', () => {
  test('fund is selector, left-aligned order UUID, payment hash, claimer', () => {
    assert.equal(
      encodeFundCalldata(ORDER_ID, PAYMENT_HASH, CLAIMER),
      `0x478820ce${UUID_WORD}${PAYMENT_HASH}${addressWord(CLAIMER)}`,
    );
  });

  test('fund accepts upper-case hex and a checksummed claimer and writes them lowercase', () => {
    assert.equal(
      encodeFundCalldata(ORDER_ID, PAYMENT_HASH.toUpperCase(), '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'),
      encodeFundCalldata(ORDER_ID, PAYMENT_HASH, CLAIMER),
    );
  });

  test('fundToken carries the token and the amount in base units', () => {
    assert.equal(
      encodeFundTokenCalldata(ORDER_ID, PAYMENT_HASH, CLAIMER, TOKEN, 1_000_000n),
      `0xf1f9ff30${UUID_WORD}${PAYMENT_HASH}${addressWord(CLAIMER)}${addressWord(TOKEN)}${1_000_000n.toString(16).padStart(64, '0')}`,
    );
  });

  test('claim names the slot by its funder and carries the preimage', () => {
    const preimage = '11'.repeat(32);
    const data = encodeClaimCalldata(ORDER_ID, CLAIMER, preimage);
    const call = decodeFunctionData({ abi: SWAP_CONTRACT_ABI, data });
    assert.deepEqual(call, {
      functionName: 'claim',
      args: ['0xa61131f70b66460eb3d837d59f94b8aa', '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', `0x${preimage}`],
    });
  });

  test('refund carries only the order UUID: the same data for every funder', () => {
    assert.equal(encodeRefundCalldata(ORDER_ID), `0xdfdecfaf${UUID_WORD}`);
  });

  test('adminRefund names the funder whose slot goes back', () => {
    assert.equal(encodeAdminRefundCalldata(ORDER_ID, CLAIMER), `0xc1416956${UUID_WORD}${addressWord(CLAIMER)}`);
  });

  test('approve is the ERC-20 call', () => {
    assert.equal(
      encodeApproveCalldata(CLAIMER, 5n),
      `0x095ea7b3${addressWord(CLAIMER)}${5n.toString(16).padStart(64, '0')}`,
    );
  });

  test('refuses malformed inputs', () => {
    assert.throws(() => encodeFundCalldata('nope', PAYMENT_HASH, CLAIMER));
    assert.throws(() => encodeFundCalldata(ORDER_ID, PAYMENT_HASH.slice(2), CLAIMER));
    assert.throws(() => encodeFundCalldata(ORDER_ID, `0x${PAYMENT_HASH}`, CLAIMER));
    assert.throws(() => encodeFundCalldata(ORDER_ID, PAYMENT_HASH, CLAIMER.slice(0, -1)));
    assert.throws(() => encodeFundCalldata(ORDER_ID, PAYMENT_HASH, '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD'));
    assert.throws(() => encodeClaimCalldata(ORDER_ID, CLAIMER, 'zz'.repeat(32)));
    assert.throws(() => encodeFundTokenCalldata(ORDER_ID, PAYMENT_HASH, CLAIMER, TOKEN, -1n));
    assert.throws(() => encodeFundTokenCalldata(ORDER_ID, PAYMENT_HASH, CLAIMER, TOKEN, 2n ** 256n));
  });
});

describe('decodeFundingCalldata', () => {
  const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString('hex'));
  const anAddress = fc
    .uint8Array({ minLength: 20, maxLength: 20 })
    .map((bytes) => `0x${Buffer.from(bytes).toString('hex')}`);

  test('round-trips any fund call', () => {
    fc.assert(
      fc.property(fc.uuid(), hex32, anAddress, (uuid, paymentHash, claimer) => {
        assert.deepEqual(decodeFundingCalldata(encodeFundCalldata(uuid, paymentHash, claimer)), {
          functionName: 'fund',
          orderId: uuid.toLowerCase(),
          paymentHash,
          claimer,
        });
      }),
      { seed: PROPERTY_SEED },
    );
  });

  test('round-trips any fundToken call', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        hex32,
        anAddress,
        anAddress,
        fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
        (uuid, paymentHash, claimer, token, amount) => {
          assert.deepEqual(decodeFundingCalldata(encodeFundTokenCalldata(uuid, paymentHash, claimer, token, amount)), {
            functionName: 'fundToken',
            orderId: uuid.toLowerCase(),
            paymentHash,
            claimer,
            token,
            amount,
          });
        },
      ),
      { seed: PROPERTY_SEED },
    );
  });

  test('accepts upper-case hex digits', () => {
    const data = encodeFundCalldata(ORDER_ID, PAYMENT_HASH, CLAIMER);
    assert.deepEqual(decodeFundingCalldata(`0x${data.slice(2).toUpperCase()}`), {
      functionName: 'fund',
      orderId: ORDER_ID,
      paymentHash: PAYMENT_HASH,
      claimer: CLAIMER,
    });
  });

  test('refuses anything but a canonical fund or fundToken call', () => {
    const data = encodeFundCalldata(ORDER_ID, PAYMENT_HASH, CLAIMER);
    const dirtyPadding = `${data.slice(0, 10 + 32)}01${data.slice(10 + 34)}`;
    const dirtyAddress = `${data.slice(0, 10 + 128)}01${data.slice(10 + 130)}`;
    for (const candidate of [
      '',
      '0x',
      'not hex',
      data.slice(2),
      `${data}00`,
      data.slice(0, -2),
      dirtyPadding,
      dirtyAddress,
      encodeClaimCalldata(ORDER_ID, CLAIMER, PAYMENT_HASH),
      encodeRefundCalldata(ORDER_ID),
      encodeAdminRefundCalldata(ORDER_ID, CLAIMER),
      `0xdeadbeef${data.slice(10)}`,
      `${data.slice(0, -1)}`,
    ]) {
      assert.equal(decodeFundingCalldata(candidate), undefined, candidate);
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
    for (const address of [
      '',
      '0x',
      '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      '0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
      '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae',
      '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed00',
      '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaeg',
      ' 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed',
    ]) {
      assert.equal(isEthereumAddress(address), false, address);
    }
  });
});
