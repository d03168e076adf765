import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { EthereumChainView } from '../../src/domain/order.js';
import { LnswapError } from '../../src/domain/errors.js';
import {
  signingDomainOfOrder,
  swapContractOfOrder,
  swapContractsOf,
  switchSwapContract,
} from '../../src/domain/swap-contracts.js';
import { makeOrder } from '../support/store/fixtures.js';

const A = '0x00000000000000000000000000000000000000aa';
const B = '0x00000000000000000000000000000000000000bb';
const C_CHECKSUMMED = '0x000000000000000000000000000000000000cCcC';

test('a view without its history has its current contract as version 2', () => {
  assert.deepEqual(swapContractsOf({ blockHeight: 1, swapContractAddress: C_CHECKSUMMED }), [
    { address: C_CHECKSUMMED.toLowerCase(), version: 2, since: 0 },
  ]);
});

test('a switch appends the new contract and moves one used before to the end', () => {
  const start: EthereumChainView = { blockHeight: 1, swapContractAddress: A };
  const toB = switchSwapContract(start, { address: B, version: 3, since: 10 });
  const backToA = switchSwapContract(toB, { address: A, version: 2, since: 20 });
  assert.deepEqual(backToA, {
    blockHeight: 1,
    swapContractAddress: A,
    contracts: [
      { address: B, version: 3, since: 10 },
      { address: A, version: 2, since: 20 },
    ],
  });
});

test("an order's contract is its payToAddress, in its spelling, with the history's version or the second's", () => {
  const view = switchSwapContract(
    { blockHeight: 1, swapContractAddress: A },
    { address: C_CHECKSUMMED, version: 3, since: 7 },
  );
  const onC = makeOrder(1, { market: 'ETH_LBTC', payToAddress: C_CHECKSUMMED });
  const onA = makeOrder(2, { market: 'ETH_LBTC', payToAddress: A });
  const elsewhere = makeOrder(3, { market: 'ETH_LBTC', payToAddress: B });
  assert.deepEqual(swapContractOfOrder(onC, view), { address: C_CHECKSUMMED, version: 3, since: 7 });
  assert.deepEqual(swapContractOfOrder(onA, view), { address: A, version: 2, since: 0 });
  assert.deepEqual(swapContractOfOrder(elsewhere, view), { address: B, version: 2, since: 0 });
});

describe("an order's signing domain for cooperative refunds and cancels", () => {
  const view = switchSwapContract(
    { blockHeight: 1, swapContractAddress: A },
    { address: C_CHECKSUMMED, version: 3, since: 7 },
  );
  const refusedWith = (token: string) => (error: unknown) => error instanceof LnswapError && error.token === token;

  test("is the order's third-version contract, in its spelling, on the node's chain", () => {
    const order = makeOrder(1, { market: 'ETH_LBTC', payToAddress: C_CHECKSUMMED });
    assert.deepEqual(signingDomainOfOrder(order, 'ethereum', view, 31337), {
      chainId: 31337,
      verifyingContract: C_CHECKSUMMED,
    });
  });

  test('none for an order on the second version, on a contract the history does not name, or on Bitcoin', () => {
    const onA = makeOrder(2, { market: 'ETH_LBTC', payToAddress: A });
    // A contract this service never used reads as the second version: no signature can name it.
    const stranger = makeOrder(3, { market: 'ETH_LBTC', payToAddress: B });
    for (const order of [onA, stranger]) {
      assert.throws(
        () => signingDomainOfOrder(order, 'ethereum', view, 31337),
        refusedWith('ContractHasNoCooperativeRefund'),
      );
    }
    const onBitcoin = makeOrder(4, { payToAddress: C_CHECKSUMMED });
    assert.throws(
      () => signingDomainOfOrder(onBitcoin, 'bitcoin', view, 31337),
      refusedWith('ContractHasNoCooperativeRefund'),
    );
    const withoutView = makeOrder(5, { market: 'ETH_LBTC', payToAddress: C_CHECKSUMMED });
    assert.throws(
      () => signingDomainOfOrder(withoutView, 'ethereum', undefined, 31337),
      refusedWith('ContractHasNoCooperativeRefund'),
    );
  });

  test('NoBackendConfigured on a third-version order without a node to name the chain', () => {
    const order = makeOrder(6, { market: 'ETH_LBTC', payToAddress: C_CHECKSUMMED });
    assert.throws(() => signingDomainOfOrder(order, 'ethereum', view, undefined), refusedWith('NoBackendConfigured'));
  });
});
