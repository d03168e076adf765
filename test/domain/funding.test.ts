import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { deriveFundingDetails } from '../../src/domain/funding.js';
import { encodeFunctionData, erc20Abi, parseAbi } from 'viem';
import { catalogOf } from '../../src/domain/market-catalog.js';
import {
  BTC_LBTC,
  ETH_LBTC,
  SWAP_CONTRACT,
  CHAINS,
  paymentHash,
  redeemScript,
  bitcoinOrder,
  ethereumOrder,
} from '../support/domain/order-fixtures.js';

const SWAP_ABI = parseAbi([
  'function fund(bytes16 orderUUID, bytes32 paymentHash, address claimer) payable',
  'function fundToken(bytes16 orderUUID, bytes32 paymentHash, address claimer, address token, uint256 amount)',
]);
const ORDER_UUID = '0x0b5d2f4e9a8c4c718f3e2d6b1a7c9e40';
const CLAIMER = `0x${'c1'.repeat(20)}` as const;
const TOKEN = `0x${'5f'.repeat(20)}` as const;
const SUSDC_LSBTC = catalogOf({
  tokens: [{ ticker: 'SUSDC', network: 'simnet', address: TOKEN, decimals: 6 }],
}).findMarket('SUSDC_LSBTC')!;

// Funding reads only the amount, the pay-to address and the HTLC terms; state and funds are irrelevant.
const bitcoinFundingOrder = bitcoinOrder({ transactions: [] });
const ethereumFundingOrder = ethereumOrder({ state: 'WaitingForFundingTx', transactions: [] });

describe('deriveFundingDetails', () => {
  test('a Bitcoin order is funded by paying its HTLC address the full amount', () => {
    assert.deepEqual(deriveFundingDetails(bitcoinFundingOrder, BTC_LBTC, CHAINS), {
      orderId: 'a61131f7-0b66-460e-b3d8-37d59f94b8aa',
      expiryTimestampMs: Date.parse('2019-11-05T20:41:08.821Z'),
      amount: 35_590n,
      details: { redeemScript, payToAddress: bitcoinFundingOrder.payToAddress, refundableAtBlockHeight: 612_183 },
    });
  });

  test('a Bitcoin order needs no chain view', () => {
    assert.equal(deriveFundingDetails(bitcoinFundingOrder, BTC_LBTC, {}).amount, 35_590n);
  });

  test('a Bitcoin order without a redeem script cannot be funded', () => {
    assert.throws(() =>
      deriveFundingDetails({ ...bitcoinFundingOrder, htlc: { refundableAtBlockHeight: 612_183 } }, BTC_LBTC, CHAINS),
    );
  });

  test('an Ethereum order is funded by calling fund(orderUUID, paymentHash, claimer) with the full amount in wei', () => {
    assert.deepEqual(deriveFundingDetails({ ...ethereumFundingOrder, claimAddress: CLAIMER }, ETH_LBTC, CHAINS), {
      orderId: '0b5d2f4e-9a8c-4c71-8f3e-2d6b1a7c9e40',
      expiryTimestampMs: Date.parse('2019-11-05T20:41:08.821Z'),
      amount: 499_500_000_000_000_000n,
      details: {
        unsignedFundingTx: {
          to: SWAP_CONTRACT,
          data: encodeFunctionData({
            abi: SWAP_ABI,
            functionName: 'fund',
            args: [ORDER_UUID, `0x${paymentHash}`, CLAIMER],
          }),
          value: 499_500_000_000_000_000n,
        },
      },
    });
  });

  test('a token order is funded by fundToken with value 0, after approving the contract for the full amount', () => {
    const amount = 1_234_560_000n;
    const order = { ...ethereumFundingOrder, market: 'SUSDC_LSBTC', amount, claimAddress: CLAIMER };
    const details = deriveFundingDetails(order, SUSDC_LSBTC, CHAINS).details;
    assert.deepEqual(details, {
      unsignedFundingTx: {
        to: SWAP_CONTRACT,
        data: encodeFunctionData({
          abi: SWAP_ABI,
          functionName: 'fundToken',
          args: [ORDER_UUID, `0x${paymentHash}`, CLAIMER, TOKEN, amount],
        }),
        value: 0n,
      },
      unsignedApprovalTx: {
        to: TOKEN,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [SWAP_CONTRACT, amount] }),
        value: 0n,
      },
    });
  });

  test('an ether order carries no approval', () => {
    assert.ok(!('unsignedApprovalTx' in deriveFundingDetails(ethereumFundingOrder, ETH_LBTC, CHAINS).details));
  });

  test('an Ethereum order needs the swap contract from the chain view', () => {
    assert.throws(
      () => deriveFundingDetails(ethereumFundingOrder, ETH_LBTC, { bitcoin: CHAINS.bitcoin }),
      /ethereum chain view/,
    );
  });
});
