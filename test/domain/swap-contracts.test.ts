import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EthereumChainView } from '../../src/domain/order.js';
import { swapContractOfOrder, swapContractsOf, switchSwapContract } from '../../src/domain/swap-contracts.js';
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
