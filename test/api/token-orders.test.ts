import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeFunctionData, erc20Abi, parseAbi } from 'viem';
import type { TokenAsset } from '../../src/domain/market-catalog.js';
import { ZERO_ADDRESS } from '../../src/domain/ethereum.js';
import type { OrderRecord } from '../../src/domain/order.js';
import { SWAP_CONTRACT_ADDRESS, buildOrder, configuration } from '../support/fixtures.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { assertJson, assertToken, openApi, type OpenApi } from '../support/api/harness.js';

const USDC: TokenAsset = { ticker: 'USDC', network: 'mainnet', address: `0x${'a0'.repeat(20)}`, decimals: 6 };
const CLAIMER = `0x${'c1'.repeat(20)}` as const;
const SWAP_ABI = parseAbi([
  'function fundToken(bytes16 orderUUID, bytes32 paymentHash, address claimer, address token, uint256 amount)',
  'function refund(bytes16 orderUUID)',
]);

/** 1234.56 USDC asked, 1000.5 of it paid so far: amounts in the token's 6 decimals, not ether's 18. */
const usdcOrder: OrderRecord = (() => {
  const { record } = buildOrder({ label: 'usdc-partial', market: 'ETH_LBTC', state: 'PartiallyFunded' });
  return {
    ...record,
    market: 'USDC_LBTC',
    amount: 1_234_560_000n,
    claimAddress: CLAIMER,
    transactions: [{ type: 'FUND', id: `0x${'dd'.repeat(32)}`, amount: 1_000_500_000n, blockHeight: 9_229_990 }],
  };
})();

function uuidBytes(id: string): `0x${string}` {
  return `0x${id.replaceAll('-', '')}`;
}

for (const kind of STORE_KINDS) {
  describe(`${kind}: token orders over HTTP`, { skip: skipReason(kind) }, () => {
    let api: OpenApi;
    const get = (url: string) => api.app.inject({ method: 'GET', url });

    before(async () => {
      const base = configuration();
      api = await openApi(kind, {
        configuration: { ...base, tokens: [USDC], markets: [...base.markets, 'USDC_LBTC'] },
        orders: [usdcOrder],
      });
    });
    after(() => api?.close());

    test('Get Markets lists the token market with its ticker', async () => {
      const markets = JSON.parse((await get('/api/markets')).body) as { market: string }[];
      assert.deepEqual(markets.at(-1), { onchainTicker: 'USDC', offchainTicker: 'LBTC', market: 'USDC_LBTC' });
    });

    test("Get Order: amounts in whole tokens with the token's decimals", async () => {
      const order = JSON.parse((await get(`/api/orders/${usdcOrder.id}`)).body) as Record<string, unknown>;
      assert.equal(order.market, 'USDC_LBTC');
      assert.equal(order.onchainTicker, 'USDC');
      assert.equal(order.amount, '1234.56');
      assert.equal(order.amountPaid, '1000.5');
    });

    test('Get Orders filters by the token ticker, in any case', async () => {
      for (const ticker of ['USDC', 'usdc']) {
        const response = await get(`/api/orders?invoiceHash=${usdcOrder.invoiceHash}&onchainTicker=${ticker}`);
        assert.deepEqual(
          (JSON.parse(response.body) as { id: string }[]).map((order) => order.id),
          [usdcOrder.id],
        );
      }
      assertToken(
        await get(`/api/orders?invoiceHash=${usdcOrder.invoiceHash}&onchainTicker=SUSDC`),
        400,
        'InvalidOnchainTicker',
      );
    });

    test('Get Order Funding Details: fundToken with value 0 and the approval beside it', async () => {
      // The claimer the store kept for the order (the zero address while a store keeps none).
      const claimer = ((await api.store.getOrder(usdcOrder.id))?.claimAddress ?? ZERO_ADDRESS) as `0x${string}`;
      assertJson(await get(`/api/orders/${usdcOrder.id}/fundDetails`), {
        orderId: usdcOrder.id,
        expiryTimestampMs: usdcOrder.expiresAt,
        amount: '1234.560000',
        details: {
          unsignedFundingTx: {
            to: SWAP_CONTRACT_ADDRESS,
            data: encodeFunctionData({
              abi: SWAP_ABI,
              functionName: 'fundToken',
              args: [
                uuidBytes(usdcOrder.id),
                `0x${usdcOrder.paymentHash}`,
                claimer,
                USDC.address as `0x${string}`,
                1_234_560_000n,
              ],
            }),
            value: '0',
          },
          unsignedApprovalTx: {
            to: USDC.address,
            data: encodeFunctionData({
              abi: erc20Abi,
              functionName: 'approve',
              args: [SWAP_CONTRACT_ADDRESS, 1_234_560_000n],
            }),
            value: '0',
          },
        },
      });
    });

    test('Get Order Refund: the same refund(orderUUID) call as an ether order, the balance in tokens', async () => {
      assertJson(await get(`/api/orders/${usdcOrder.id}/refund`), {
        market: 'USDC_LBTC',
        type: 'TimelockRefund',
        state: 'PartiallyFunded',
        blocksRemaining: 1200,
        refundableAtBlockHeight: usdcOrder.htlc.refundableAtBlockHeight,
        refundableBalance: '1000.5',
        details: {
          to: SWAP_CONTRACT_ADDRESS,
          data: encodeFunctionData({ abi: SWAP_ABI, functionName: 'refund', args: [uuidBytes(usdcOrder.id)] }),
        },
      });
    });

    test("the tracker's history names the token, its network and decimals", async () => {
      const response = await get(`/tracker/orders/${usdcOrder.id}/history`);
      assert.equal(response.statusCode, 200);
      assert.deepEqual((JSON.parse(response.body) as { asset: unknown }).asset, {
        ticker: 'USDC',
        chain: 'ethereum',
        network: 'mainnet',
        decimals: 6,
        tokenAddress: USDC.address,
      });
    });
  });
}
