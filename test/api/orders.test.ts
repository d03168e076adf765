import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { OrderRecord } from '../../src/domain/order.js';
import {
  BASE_TIME_MS,
  BITCOIN_VIEW,
  SWAP_CONTRACT_ADDRESS,
  buildOrder,
  configuration,
  hashOfInvoice,
  uuidFor,
} from '../support/fixtures.js';
import { STORE_KINDS, skipReason } from '../support/stores.js';
import { assertJson, assertToken, openApi, type OpenApi } from '../support/api/harness.js';

const btcComplete = buildOrder({ label: 'btc-complete', state: 'Complete', funds: [35590n], preimageKnown: true });
const btcSameInvoiceSameTime = buildOrder({ label: 'btc-same-time', sameInvoiceAs: btcComplete });
const ethSameInvoiceLater = buildOrder({
  label: 'eth-same-invoice',
  market: 'ETH_LBTC',
  sameInvoiceAs: btcComplete,
  createdAt: BASE_TIME_MS + 60_000,
  state: 'FundWindowElapsed',
});
const btcPartial = buildOrder({ label: 'btc-partial', state: 'PartiallyFunded', funds: [20000n, 5000n] });
const btcBlacklisted = buildOrder({
  label: 'btc-blacklisted',
  state: 'AddressBlacklistedWaitingForRefundTx',
  funds: [35590n],
});
const btcRefunded = buildOrder({ label: 'btc-refunded', state: 'Refunded', funds: [35590n], refunded: true });
const btcPastTimelock = buildOrder({
  label: 'btc-past-timelock',
  state: 'WaitingForRefundTx',
  funds: [35590n],
  refundableAtBlockHeight: BITCOIN_VIEW.blockHeight - 17,
});
const ethPartial = buildOrder({
  label: 'eth-partial',
  market: 'ETH_LBTC',
  state: 'PartiallyFunded',
  funds: [100_000_000_000_000_000n],
});
const btcNoRefundAddress = buildOrder({
  label: 'btc-no-refund-address',
  state: 'WaitingForFundingTx',
  withoutRefundAddress: true,
});
// An order on a market the service no longer offers is still readable.
const tbtcOrder = buildOrder({ label: 'tbtc', market: 'TBTC_LTBTC', amount: 120_000_000n, funds: [120_000_000n] });

const ALL_ORDERS = [
  btcComplete,
  btcSameInvoiceSameTime,
  ethSameInvoiceLater,
  btcPartial,
  btcBlacklisted,
  btcRefunded,
  btcPastTimelock,
  ethPartial,
  btcNoRefundAddress,
  tbtcOrder,
].map((built) => built.record);

const UNKNOWN_ID = uuidFor('nobody ordered this');
const ORDER_SUFFIXES = ['', '/state', '/fundDetails', '/transactions', '/refund'];

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The Get Orders item, written out field by field in wire order. */
function summary(order: OrderRecord, onchainTicker: string, amount: string, amountPaid: string) {
  return {
    id: order.id,
    market: order.market,
    onchainTicker,
    createdAt: iso(order.createdAt),
    state: order.state,
    payToAddress: order.payToAddress,
    amount,
    amountPaid,
    expiryTimestamp: iso(order.expiresAt),
  };
}

function compactUuid(id: string): string {
  return id.replaceAll('-', '');
}

for (const kind of STORE_KINDS) {
  describe(`order endpoints on ${kind}`, { skip: skipReason(kind) }, () => {
    let api: OpenApi;
    before(async () => {
      api = await openApi(kind, { configuration: configuration(), orders: ALL_ORDERS });
    });
    after(() => api.close());

    const get = (url: string) => api.app.inject({ method: 'GET', url });

    describe('Get Orders', () => {
      const invoiceHash = hashOfInvoice(btcComplete.record.invoice);
      // Newest first; orders created in the same millisecond go by id, descending.
      const sameTime = [btcComplete.record, btcSameInvoiceSameTime.record].sort((a, b) => (a.id < b.id ? 1 : -1));
      const btcItems = sameTime.map((order) =>
        summary(order, 'BTC', '0.0003559', order === btcComplete.record ? '0.0003559' : '0'),
      );
      const ethItem = summary(ethSameInvoiceLater.record, 'ETH', '0.4995', '0');

      test('every order quoting the invoice, newest first, every field', async () => {
        assertJson(await get(`/api/orders?invoiceHash=${invoiceHash}`), [ethItem, ...btcItems]);
      });

      test('dates are ISO 8601 UTC with milliseconds and amounts are whole units', async () => {
        const [item] = JSON.parse((await get(`/api/orders?invoiceHash=${invoiceHash}&onchainTicker=ETH`)).body);
        assert.equal(item.createdAt, '2019-11-05T20:12:08.821Z');
        assert.equal(item.expiryTimestamp, '2019-11-05T20:42:08.821Z');
        assert.equal(item.amount, '0.4995');
        assert.equal(item.amountPaid, '0');
      });

      test('onchainTicker narrows to one asset, in any case', async () => {
        for (const ticker of ['BTC', 'btc', 'Btc']) {
          assertJson(await get(`/api/orders?invoiceHash=${invoiceHash}&onchainTicker=${ticker}`), btcItems);
        }
        assertJson(await get(`/api/orders?invoiceHash=${invoiceHash}&onchainTicker=eth`), [ethItem]);
      });

      test('the hash is matched in any case', async () => {
        assertJson(await get(`/api/orders?invoiceHash=${invoiceHash.toUpperCase()}`), [ethItem, ...btcItems]);
      });

      test('amountPaid sums the FUND transactions and ignores refunds', async () => {
        const partial = `/api/orders?invoiceHash=${btcPartial.record.invoiceHash}`;
        assertJson(await get(partial), [summary(btcPartial.record, 'BTC', '0.0003559', '0.00025')]);
        const refunded = `/api/orders?invoiceHash=${btcRefunded.record.invoiceHash}`;
        assertJson(await get(refunded), [summary(btcRefunded.record, 'BTC', '0.0003559', '0.0003559')]);
        const eth = `/api/orders?invoiceHash=${ethPartial.record.invoiceHash}`;
        assertJson(await get(eth), [summary(ethPartial.record, 'ETH', '0.4995', '0.1')]);
      });

      test('an order of a market no longer offered is listed without a ticker filter', async () => {
        const url = `/api/orders?invoiceHash=${tbtcOrder.record.invoiceHash}`;
        assertJson(await get(url), [summary(tbtcOrder.record, 'TBTC', '1.2', '1.2')]);
      });

      test('no match is an empty list, not an error', async () => {
        assertJson(await get(`/api/orders?invoiceHash=${'ab'.repeat(32)}`), []);
        assertJson(await get(`/api/orders?invoiceHash=${btcPartial.record.invoiceHash}&onchainTicker=ETH`), []);
      });

      test('unknown query parameters are ignored', async () => {
        assertJson(await get(`/api/orders?invoiceHash=${invoiceHash}&onchainTicker=eth&page=2`), [ethItem]);
      });

      test('InvalidInvoiceHash: missing, empty, repeated, or not exactly 64 hex digits', async () => {
        const hex = 'ab'.repeat(32);
        for (const query of [
          '',
          '?onchainTicker=BTC',
          '?invoiceHash',
          '?invoiceHash=',
          `?invoiceHash=${hex}&invoiceHash=${hex}`,
          `?invoiceHash=${hex}&invoiceHash=${'cd'.repeat(32)}`,
          `?invoiceHash=${hex.slice(1)}`,
          `?invoiceHash=${hex}0`,
          `?invoiceHash=${hex.slice(1)}g`,
          `?invoiceHash=0x${hex.slice(2)}`,
          `?invoiceHash=${hex.slice(1)}%0A`,
          `?invoiceHash=%20${hex}`,
          `?invoicehash=${hex}`,
        ]) {
          assertToken(await get(`/api/orders${query}`), 400, 'InvalidInvoiceHash');
        }
      });

      test('InvalidInvoiceHash is checked before the ticker', async () => {
        assertToken(await get('/api/orders?onchainTicker=DOGE&invoiceHash=nothex'), 400, 'InvalidInvoiceHash');
        assertToken(await get('/api/orders?onchainTicker=DOGE'), 400, 'InvalidInvoiceHash');
      });

      test('InvalidOnchainTicker: unknown, not offered, off-chain, empty or repeated tickers', async () => {
        for (const ticker of ['DOGE', 'TBTC', 'tbtc', 'LBTC', 'BTC_LBTC', '', 'BTC&onchainTicker=BTC']) {
          assertToken(
            await get(`/api/orders?invoiceHash=${invoiceHash}&onchainTicker=${ticker}`),
            400,
            'InvalidOnchainTicker',
          );
        }
      });
    });

    describe('Get Order', () => {
      const btcCompleteView = {
        ...summary(btcComplete.record, 'BTC', '0.0003559', '0.0003559'),
        invoice: btcComplete.record.invoice,
        paymentHash: btcComplete.record.paymentHash,
        paymentPreimage: btcComplete.preimage,
      };

      test('a completed order carries invoice, payment hash and preimage', async () => {
        assertJson(await get(`/api/orders/${btcComplete.record.id}`), btcCompleteView);
      });

      test('the payment hash is the invoice’s and the preimage hashes to it', async () => {
        const body = JSON.parse((await get(`/api/orders/${btcComplete.record.id}`)).body) as {
          paymentHash: string;
          paymentPreimage: string;
        };
        assert.match(body.paymentHash, /^[0-9a-f]{64}$/);
        assert.equal(
          createHash('sha256').update(Buffer.from(body.paymentPreimage, 'hex')).digest('hex'),
          body.paymentHash,
        );
      });

      test('before the preimage is known the field is absent', async () => {
        const order = ethSameInvoiceLater.record;
        assertJson(await get(`/api/orders/${order.id}`), {
          ...summary(order, 'ETH', '0.4995', '0'),
          invoice: order.invoice,
          paymentHash: order.paymentHash,
        });
      });

      test('ids in upper case and without dashes find the same order', async () => {
        const id = btcComplete.record.id;
        for (const spelling of [id.toUpperCase(), compactUuid(id), compactUuid(id).toUpperCase()]) {
          assertJson(await get(`/api/orders/${spelling}`), btcCompleteView);
        }
      });
    });

    describe('Get Order State', () => {
      test('the state as a JSON string literal', async () => {
        for (const { record } of [btcComplete, ethSameInvoiceLater, btcPartial, btcBlacklisted, btcRefunded]) {
          const response = await get(`/api/orders/${record.id}/state`);
          assertJson(response, record.state);
          assert.equal(response.body, `"${record.state}"`);
        }
      });
    });

    describe('Get Order Funding Details', () => {
      test('Bitcoin: the HTLC to pay, the full amount with 8 decimals', async () => {
        const { record } = btcPartial;
        assertJson(await get(`/api/orders/${record.id}/fundDetails`), {
          orderId: record.id,
          expiryTimestampMs: BASE_TIME_MS + 30 * 60 * 1000,
          amount: '0.00035590',
          details: {
            redeemScript: record.htlc.redeemScript,
            payToAddress: record.payToAddress,
            refundableAtBlockHeight: BITCOIN_VIEW.blockHeight + 83,
          },
        });
      });

      test('Ethereum: a fund(orderUUID, paymentHash, claimer) call to the swap contract worth the full amount', async () => {
        const { record } = ethPartial;
        assertJson(await get(`/api/orders/${record.id}/fundDetails`), {
          orderId: record.id,
          expiryTimestampMs: record.expiresAt,
          amount: '0.499500000000000000',
          details: {
            unsignedFundingTx: {
              to: SWAP_CONTRACT_ADDRESS,
              // selector, bytes16 left-aligned in its 32-byte word, bytes32, and the claimer: an order imported
              // without one names the zero address, which the contract refuses
              data: `0x478820ce${compactUuid(record.id)}${'0'.repeat(32)}${record.paymentHash}${'0'.repeat(64)}`,
              value: '499500000000000000',
            },
          },
        });
      });
    });

    describe('Get Order Transactions', () => {
      test('type and id of each transaction, nothing else', async () => {
        const { record } = btcRefunded;
        const [fund, refund] = record.transactions;
        assertJson(await get(`/api/orders/${record.id}/transactions`), [
          { type: 'FUND', id: fund?.id },
          { type: 'REFUND', id: refund?.id },
        ]);
      });

      test('none yet is an empty list', async () => {
        assertJson(await get(`/api/orders/${ethSameInvoiceLater.record.id}/transactions`), []);
      });

      test('Ethereum transaction ids as stored', async () => {
        const [fund] = ethPartial.record.transactions;
        assert.match(fund?.id ?? '', /^0x[0-9a-f]{64}$/);
        assertJson(await get(`/api/orders/${ethPartial.record.id}/transactions`), [{ type: 'FUND', id: fund?.id }]);
      });
    });

    describe('Get Refund', () => {
      test('Bitcoin timelock refund: unspent FUND outputs, blocks left, chain view', async () => {
        const { record } = btcPartial;
        const [first, second] = record.transactions;
        assertJson(await get(`/api/orders/${record.id}/refund`), {
          market: 'BTC_LBTC',
          type: 'TimelockRefund',
          state: 'PartiallyFunded',
          blocksRemaining: 83,
          refundableAtBlockHeight: BITCOIN_VIEW.blockHeight + 83,
          refundableBalance: '0.00025',
          details: {
            refundAddress: record.refundAddress,
            redeemScript: record.htlc.redeemScript,
            currentBlockHeight: BITCOIN_VIEW.blockHeight,
            feeTokensPerVirtualByte: BITCOIN_VIEW.feeTokensPerVirtualByte,
            utxos: [
              { txId: first?.id, index: first?.outputIndex, tokens: 20000 },
              { txId: second?.id, index: second?.outputIndex, tokens: 5000 },
            ],
          },
        });
      });

      test('blocksRemaining is 0 once the timelock has passed', async () => {
        const body = JSON.parse((await get(`/api/orders/${btcPastTimelock.record.id}/refund`)).body);
        assert.equal(body.blocksRemaining, 0);
        assert.equal(body.refundableAtBlockHeight, BITCOIN_VIEW.blockHeight - 17);
        assert.equal(body.refundableBalance, '0.0003559');
      });

      test('AdminRefund carries no timing fields', async () => {
        const { record } = btcBlacklisted;
        const [fund] = record.transactions;
        assertJson(await get(`/api/orders/${record.id}/refund`), {
          market: 'BTC_LBTC',
          type: 'AdminRefund',
          state: 'AddressBlacklistedWaitingForRefundTx',
          refundableBalance: '0.0003559',
          details: {
            refundAddress: record.refundAddress,
            redeemScript: record.htlc.redeemScript,
            currentBlockHeight: BITCOIN_VIEW.blockHeight,
            feeTokensPerVirtualByte: BITCOIN_VIEW.feeTokensPerVirtualByte,
            utxos: [{ txId: fund?.id, index: fund?.outputIndex, tokens: 35590 }],
          },
        });
      });

      test('a refund address is left out when the order has none', async () => {
        const { record } = btcNoRefundAddress;
        assertJson(await get(`/api/orders/${record.id}/refund`), {
          market: 'BTC_LBTC',
          type: 'TimelockRefund',
          state: 'WaitingForFundingTx',
          blocksRemaining: 83,
          refundableAtBlockHeight: BITCOIN_VIEW.blockHeight + 83,
          refundableBalance: '0',
          details: {
            redeemScript: record.htlc.redeemScript,
            currentBlockHeight: BITCOIN_VIEW.blockHeight,
            feeTokensPerVirtualByte: BITCOIN_VIEW.feeTokensPerVirtualByte,
            utxos: [],
          },
        });
      });

      test('nothing is left to refund once refunded', async () => {
        const body = JSON.parse((await get(`/api/orders/${btcRefunded.record.id}/refund`)).body);
        assert.equal(body.state, 'Refunded');
        assert.equal(body.refundableBalance, '0');
        assert.deepEqual(body.details.utxos, []);
      });

      test('Ethereum: a refund(orderUUID) call to the swap contract', async () => {
        const { record } = ethPartial;
        assertJson(await get(`/api/orders/${record.id}/refund`), {
          market: 'ETH_LBTC',
          type: 'TimelockRefund',
          state: 'PartiallyFunded',
          blocksRemaining: 1200,
          refundableAtBlockHeight: record.htlc.refundableAtBlockHeight,
          refundableBalance: '0.1',
          details: { to: SWAP_CONTRACT_ADDRESS, data: `0xdfdecfaf${compactUuid(record.id)}${'0'.repeat(32)}` },
        });
      });
    });

    describe('order id errors on every /api/orders/:id route', () => {
      const id = btcComplete.record.id;
      const invalidIds = [
        'nope',
        '1234',
        `${id}0`,
        id.slice(1),
        `${id.slice(0, -1)}g`,
        id.replaceAll('-', '_'),
        `${compactUuid(id)}0`,
        `{${id}}`,
        `%20${id}`,
        `${id}%00`,
        encodeURIComponent(`${id}/`),
        encodeURIComponent("' OR '1'='1"),
      ];

      test('400 InvalidOrderId for anything that is not a UUID', async () => {
        for (const suffix of ORDER_SUFFIXES) {
          for (const invalid of invalidIds) {
            assertToken(await get(`/api/orders/${invalid}${suffix}`), 400, 'InvalidOrderId');
          }
        }
      });

      test('404 OrderNotFound for a UUID no order has, however it is spelled', async () => {
        for (const suffix of ORDER_SUFFIXES) {
          for (const unknown of [UNKNOWN_ID, UNKNOWN_ID.toUpperCase(), compactUuid(UNKNOWN_ID)]) {
            assertToken(await get(`/api/orders/${unknown}${suffix}`), 404, 'OrderNotFound');
          }
        }
      });
    });
  });
}
