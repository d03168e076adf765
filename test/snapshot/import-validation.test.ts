/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return -- each case damages a parsed snapshot document anywhere it likes */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { networks, payments } from 'bitcoinjs-lib';
import { formatWholeUnits } from '../../src/domain/amounts.js';
import { MAX_SNAPSHOT_UNITS } from '../../src/snapshot/fields.js';
import { importSnapshot } from '../../src/snapshot/import-snapshot.js';
import { SnapshotError } from '../../src/snapshot/snapshot-error.js';
import { makeInvoice } from '../support/invoices.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../support/stores.js';
import {
  chunked,
  exportText,
  render,
  sampleOrders,
  seedDocument,
  validDocument,
  type SnapshotDocument,
} from '../support/snapshot/snapshot-fixtures.js';

type Json = Record<string, any>;

const [first, bitcoin, ethereum] = sampleOrders().map(({ record }) => record.id) as [string, string, string];
const TESTNET_ADDRESS = payments.p2wpkh({ hash: Buffer.alloc(20, 7), network: networks.testnet }).address!;
const MAINNET_ADDRESS = payments.p2wpkh({ hash: Buffer.alloc(20, 7), network: networks.bitcoin }).address!;

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `orders[i] (id …): field: problem`, anchored at both ends. */
function orderError(index: number, id: string | undefined, field: string, problem: string | RegExp): RegExp {
  const record = id === undefined ? `orders\\[${index}\\]` : `orders\\[${index}\\] \\(id ${id}\\)`;
  const tail = typeof problem === 'string' ? escaped(problem) : problem.source;
  return new RegExp(`^${record}: ${escaped(field)}: ${tail}$`);
}

function order(document: SnapshotDocument, index: number): Json {
  return document.orders[index] as Json;
}

interface Defect {
  rule: string;
  damage(document: SnapshotDocument): void;
  /** Used instead of the damaged document, when the defect is in the text itself. */
  text?(document: SnapshotDocument): string;
  message: RegExp;
}

const DEFECTS: Defect[] = [
  // The document
  {
    rule: 'the text is JSON',
    damage: () => {},
    text: (d) => render(d).slice(0, -3),
    message: /^snapshot is not valid JSON: it ends early/,
  },
  { rule: 'the version is 1', damage: (d) => (d.version = 2), message: /^version: must be 1 / },
  { rule: 'the version is present', damage: (d) => delete (d as Json).version, message: /^version: required$/ },
  { rule: 'orders are present', damage: (d) => delete (d as Json).orders, message: /^orders: required$/ },
  { rule: 'no unknown top-level field', damage: (d) => (d.comment = 'hi'), message: /^comment: unknown field$/ },
  // Markets and chains
  {
    rule: 'markets are known',
    damage: (d) => d.markets.push('DOGE_LBTC'),
    message: /^markets\[2\]: not a known market /,
  },
  {
    rule: 'markets do not repeat, whatever their case',
    damage: (d) => d.markets.push('btc_lbtc'),
    message: /^markets\[2\]: repeats BTC_LBTC$/,
  },
  {
    rule: 'every offered market has its chain',
    damage: (d) => delete d.chains.ethereum,
    message: /^chains\.ethereum: required by the offered market ETH_LBTC$/,
  },
  {
    rule: 'chains hold no unknown field',
    damage: (d) => (d.chains.bitcoin!.height = 1),
    message: /^chains\.bitcoin\.height: unknown field$/,
  },
  {
    rule: 'block heights are non-negative integers',
    damage: (d) => (d.chains.bitcoin!.blockHeight = -1),
    message: /^chains\.bitcoin\.blockHeight: must be a non-negative integer$/,
  },
  {
    rule: 'the swap contract is an Ethereum address',
    damage: (d) => (d.chains.ethereum!.swapContractAddress = '0x12'),
    message: /^chains\.ethereum\.swapContractAddress: not an Ethereum address$/,
  },
  // Providers
  { rule: 'a provider has an id', damage: (d) => delete d.providers[1]!.id, message: /^providers\[1\]: id: required$/ },
  {
    rule: 'provider ids do not repeat',
    damage: (d) => (d.providers[1]!.id = 'maker-a'),
    message: /^providers\[1\] \(id maker-a\): id: repeats providers\[0\]$/,
  },
  {
    rule: 'a provider is active or not',
    damage: (d) => (d.providers[1]!.active = 'yes'),
    message: /^providers\[1\] \(id maker-b\): active: must be true or false$/,
  },
  {
    rule: 'a provider serves only offered markets',
    damage: (d) => ((d.providers[0] as Json).markets.SETH_LSBTC = (d.providers[0] as Json).markets.BTC_LBTC),
    message: /^providers\[0\] \(id maker-a\): markets\.SETH_LSBTC: not one of the snapshot's markets$/,
  },
  {
    rule: 'payment requirements are decimal integer strings',
    damage: (d) => ((d.providers[0] as Json).markets.BTC_LBTC.minBaseUnits = 2000),
    message: /^providers\[0\] \(id maker-a\): markets\.BTC_LBTC\.minBaseUnits: must be a decimal integer string$/,
  },
  {
    rule: 'the minimum payment is not above the maximum',
    damage: (d) => ((d.providers[0] as Json).markets.BTC_LBTC.minBaseUnits = '500001'),
    message: /^providers\[0\] \(id maker-a\): markets\.BTC_LBTC\.minBaseUnits: is larger than maxBaseUnits$/,
  },
  // Orders: identity and market
  {
    rule: 'an order holds no unknown field',
    damage: (d) => (order(d, 1).note = 'x'),
    message: orderError(1, bitcoin, 'note', 'unknown field'),
  },
  {
    rule: 'an order id is a UUID',
    damage: (d) => (order(d, 1).id = 'order-1'),
    message: orderError(1, undefined, 'id', 'must be a UUID'),
  },
  {
    rule: 'one payment hash has at most one live order (historical ones may be many)',
    damage: (d) => {
      order(d, 1).state = 'Funded';
      order(d, 2).state = 'PartiallyFunded';
    },
    message: orderError(
      2,
      ethereum,
      'state',
      `PartiallyFunded, but orders[1] (id ${bitcoin}) is already live for the same payment hash`,
    ),
  },
  {
    rule: 'order ids do not repeat, however they are spelled',
    damage: (d) => (order(d, 1).id = first.toUpperCase().replaceAll('-', '')),
    message: orderError(1, first, 'id', 'repeats orders[0]'),
  },
  {
    rule: 'the market is known',
    damage: (d) => (order(d, 1).market = 'LTC_LBTC'),
    message: orderError(1, bitcoin, 'market', 'not a known market'),
  },
  {
    rule: 'the market is offered',
    damage: (d) => {
      d.markets = ['BTC_LBTC'];
      d.providers.pop();
    },
    message: orderError(2, ethereum, 'market', "not one of the snapshot's markets"),
  },
  {
    rule: 'the market is offered, checked at the end when orders come before markets',
    damage: (d) => {
      d.markets = ['BTC_LBTC'];
      d.providers.pop();
    },
    text: (d) => {
      const { orders, version, markets, chains, providers } = d;
      return JSON.stringify({ orders, version, markets, chains, providers });
    },
    message: orderError(2, ethereum, 'market', "not one of the snapshot's markets"),
  },
  // Orders: invoice
  {
    rule: 'the invoice is a validly signed BOLT11 invoice',
    damage: (d) => {
      const invoice = order(d, 1).invoice as string;
      order(d, 1).invoice = `${invoice.slice(0, 40)}${invoice[40] === 'q' ? 'p' : 'q'}${invoice.slice(41)}`;
    },
    message: orderError(1, bitcoin, 'invoice', 'not a BOLT11 invoice with a valid signature'),
  },
  {
    rule: "the invoice's network is the market's",
    damage: (d) => {
      order(d, 1).invoice = makeInvoice({
        network: 'testnet',
        amountSatoshis: 1000n,
        timestampSeconds: 1573000000,
      }).invoice;
    },
    message: orderError(1, bitcoin, 'invoice', 'is a testnet invoice but BTC_LBTC is a mainnet market'),
  },
  // Orders: times, state, amount
  {
    rule: 'createdAt is ISO 8601 UTC with milliseconds',
    damage: (d) => (order(d, 1).createdAt = '2019-11-05T20:12:08Z'),
    message: orderError(1, bitcoin, 'createdAt', /must be an ISO 8601 UTC time with milliseconds, .*/),
  },
  {
    rule: 'expiryTimestamp is a real calendar time',
    damage: (d) => (order(d, 1).expiryTimestamp = '2019-02-30T00:00:00.000Z'),
    message: orderError(1, bitcoin, 'expiryTimestamp', /must be an ISO 8601 UTC time with milliseconds, .*/),
  },
  {
    rule: 'an order does not expire before it is created',
    damage: (d) => (order(d, 1).expiryTimestamp = '2019-11-05T20:00:00.000Z'),
    message: orderError(1, bitcoin, 'expiryTimestamp', 'is before createdAt'),
  },
  {
    rule: 'the state is known',
    damage: (d) => (order(d, 1).state = 'Pending'),
    message: orderError(1, bitcoin, 'state', /not an order state .*/),
  },
  {
    rule: 'the amount has no more decimals than the asset',
    damage: (d) => (order(d, 1).amount = '0.000355901'),
    message: orderError(1, bitcoin, 'amount', 'must be a decimal amount of BTC with at most 8 decimals'),
  },
  {
    rule: 'the amount is not zero',
    damage: (d) => (order(d, 2).amount = '0'),
    message: orderError(2, ethereum, 'amount', 'must be more than zero'),
  },
  // Orders: addresses and preimage
  {
    rule: "payToAddress is an address of the market's network",
    damage: (d) => (order(d, 1).payToAddress = TESTNET_ADDRESS),
    message: orderError(1, bitcoin, 'payToAddress', 'not a mainnet Bitcoin address'),
  },
  {
    rule: 'payToAddress of an Ethereum-style order is an Ethereum address',
    damage: (d) => (order(d, 2).payToAddress = MAINNET_ADDRESS),
    message: orderError(2, ethereum, 'payToAddress', 'not an Ethereum address'),
  },
  {
    rule: 'paymentPreimage is 64 hex digits',
    damage: (d) => (order(d, 0).paymentPreimage = 'not hex'),
    message: orderError(0, first, 'paymentPreimage', 'must be 64 hex digits'),
  },
  {
    rule: "paymentPreimage hashes to the invoice's payment hash",
    damage: (d) => (order(d, 0).paymentPreimage = 'ab'.repeat(32)),
    message: orderError(0, first, 'paymentPreimage', "does not hash to the invoice's payment hash"),
  },
  {
    rule: 'refundAddress is a valid address',
    damage: (d) => (order(d, 1).refundAddress = TESTNET_ADDRESS),
    message: orderError(1, bitcoin, 'refundAddress', 'not a mainnet Bitcoin address'),
  },
  {
    rule: 'only Bitcoin-style orders have a refundAddress',
    damage: (d) => (order(d, 2).refundAddress = MAINNET_ADDRESS),
    message: orderError(2, ethereum, 'refundAddress', 'only Bitcoin-style markets have a refund address'),
  },
  {
    rule: 'provider is a provider name',
    damage: (d) => (order(d, 2).provider = 'maker b'),
    message: orderError(
      2,
      ethereum,
      'provider',
      'not a provider name (1 to 64 letters, digits, dots, dashes or underscores)',
    ),
  },
  {
    rule: 'claimer is an Ethereum address',
    damage: (d) => (order(d, 2).claimer = '0x1234'),
    message: orderError(2, ethereum, 'claimer', 'not an Ethereum address'),
  },
  {
    rule: 'only Ethereum-style orders have a claimer',
    damage: (d) => (order(d, 1).claimer = '0x00000000000000000000000000000000000000b2'),
    message: orderError(1, bitcoin, 'claimer', 'only Ethereum-style markets have a claimer'),
  },
  // Orders: HTLC
  {
    rule: 'the htlc is present',
    damage: (d) => delete order(d, 1).htlc,
    message: orderError(1, bitcoin, 'htlc', 'required'),
  },
  {
    rule: 'a Bitcoin-style htlc has a redeem script',
    damage: (d) => delete order(d, 1).htlc.redeemScript,
    message: orderError(1, bitcoin, 'htlc.redeemScript', 'required on the Bitcoin-style market BTC_LBTC'),
  },
  {
    rule: 'the redeem script is hex',
    damage: (d) => (order(d, 1).htlc.redeemScript = 'a8z0'),
    message: orderError(1, bitcoin, 'htlc.redeemScript', 'must be non-empty hex'),
  },
  {
    rule: 'an Ethereum-style htlc has no redeem script',
    damage: (d) => (order(d, 2).htlc.redeemScript = 'a820'),
    message: orderError(2, ethereum, 'htlc.redeemScript', 'only Bitcoin-style markets have a redeem script'),
  },
  {
    rule: 'refundableAtBlockHeight is a non-negative integer',
    damage: (d) => (order(d, 1).htlc.refundableAtBlockHeight = 612183.5),
    message: orderError(1, bitcoin, 'htlc.refundableAtBlockHeight', 'must be a non-negative integer'),
  },
  {
    rule: 'the htlc holds no unknown field',
    damage: (d) => (order(d, 1).htlc.timeout = 1),
    message: orderError(1, bitcoin, 'htlc.timeout', 'unknown field'),
  },
  // Orders: transactions
  {
    rule: 'a transaction is FUND or REFUND',
    damage: (d) => (order(d, 1).transactions[1].type = 'CLAIM'),
    message: orderError(1, bitcoin, 'transactions[1].type', 'must be FUND or REFUND'),
  },
  {
    rule: 'a transaction id is a transaction id of its chain',
    damage: (d) => (order(d, 1).transactions[0].id = `0x${'ab'.repeat(32)}`),
    message: orderError(1, bitcoin, 'transactions[0].id', 'must be a Bitcoin txid (64 hex digits)'),
  },
  {
    rule: 'a FUND transaction has an amount',
    damage: (d) => delete order(d, 1).transactions[0].amount,
    message: orderError(1, bitcoin, 'transactions[0].amount', 'required'),
  },
  {
    rule: "a FUND amount is well-formed for the asset's decimals",
    damage: (d) => (order(d, 2).transactions[0].amount = '0.4995000000000000001'),
    message: orderError(
      2,
      ethereum,
      'transactions[0].amount',
      /must be a decimal amount of ETH with at most 18 decimals/,
    ),
  },
  {
    rule: 'a REFUND transaction has no amount',
    damage: (d) => (order(d, 2).transactions[1].amount = '0.1'),
    message: orderError(2, ethereum, 'transactions[1].amount', 'only FUND transactions carry an amount'),
  },
  {
    rule: 'a Bitcoin FUND transaction has an outputIndex',
    damage: (d) => delete order(d, 1).transactions[0].outputIndex,
    message: orderError(1, bitcoin, 'transactions[0].outputIndex', 'required'),
  },
  {
    rule: 'an Ethereum transaction has no outputIndex',
    damage: (d) => (order(d, 2).transactions[0].outputIndex = 0),
    message: orderError(2, ethereum, 'transactions[0].outputIndex', 'Ethereum transactions have no output index'),
  },
  {
    rule: 'blockHeight, when present, is a non-negative integer',
    damage: (d) => (order(d, 1).transactions[0].blockHeight = 'soon'),
    message: orderError(1, bitcoin, 'transactions[0].blockHeight', 'must be a non-negative integer'),
  },
  {
    rule: 'a transaction is listed once',
    damage: (d) => order(d, 1).transactions.push({ ...order(d, 1).transactions[0] }),
    message: orderError(1, bitcoin, 'transactions[2]', 'repeats transactions[0]'),
  },
  {
    rule: 'a transaction holds no unknown field',
    damage: (d) => (order(d, 1).transactions[0].fee = 1),
    message: orderError(1, bitcoin, 'transactions[0].fee', 'unknown field'),
  },
  {
    rule: 'absent is not null',
    damage: (d) => (order(d, 2).paymentPreimage = null),
    message: orderError(2, ethereum, 'paymentPreimage', 'must be a string'),
  },
];

describe('importSnapshot refuses a bad snapshot, naming the record and field, and writes nothing', () => {
  let fresh: FreshStore;
  let before_: string;

  before(async () => {
    fresh = await openFreshStore('sqlite');
    await importSnapshot(fresh.store, chunked(render(seedDocument())));
    before_ = await exportText(fresh.store);
  });
  after(() => fresh.dispose());

  test('the undamaged snapshot imports (so each defect below is the only reason for a refusal)', async () => {
    const other = await openFreshStore('sqlite');
    try {
      const summary = await importSnapshot(other.store, chunked(render(validDocument())));
      assert.deepEqual(summary, { markets: 2, providers: 2, orders: 3 });
    } finally {
      await other.dispose();
    }
  });

  for (const defect of DEFECTS) {
    test(defect.rule, async () => {
      const document = validDocument();
      defect.damage(document);
      const text = defect.text ? defect.text(document) : render(document);
      // One order per write: the orders before the bad one reach the store, and must be rolled back.
      await assert.rejects(importSnapshot(fresh.store, chunked(text, 97), { batchSize: 1 }), (error: unknown) => {
        assert.ok(error instanceof SnapshotError, `not a SnapshotError: ${String(error)}`);
        assert.match(error.message, defect.message);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      });
      assert.equal(await exportText(fresh.store), before_);
    });
  }
});

const ABOVE_UINT256 = 'must be at most 2^256 - 1 base units (the largest uint256)';

/** Values SQLite's columns would take and PostgreSQL's refuse (numeric overflow, NUL, a 32-bit integer). */
const STORE_BOUNDS: Defect[] = [
  {
    rule: 'an order amount of 1 and 400 zeros',
    damage: (d) => (order(d, 1).amount = `1${'0'.repeat(400)}`),
    message: orderError(1, bitcoin, 'amount', ABOVE_UINT256),
  },
  {
    rule: 'an amount one base unit above 2^256 - 1',
    damage: (d) => (order(d, 2).amount = formatWholeUnits(MAX_SNAPSHOT_UNITS + 1n, 18)),
    message: orderError(2, ethereum, 'amount', ABOVE_UINT256),
  },
  {
    rule: 'a FUND amount of 1 and 400 zeros',
    damage: (d) => (order(d, 1).transactions[0].amount = `1${'0'.repeat(400)}`),
    message: orderError(1, bitcoin, 'transactions[0].amount', ABOVE_UINT256),
  },
  {
    rule: 'a maxBaseUnits of 5,000 nines',
    damage: (d) => ((d.providers[0] as Json).markets.BTC_LBTC.maxBaseUnits = '9'.repeat(5_000)),
    message: new RegExp(
      `^providers\\[0\\] \\(id maker-a\\): markets\\.BTC_LBTC\\.maxBaseUnits: ${escaped(ABOVE_UINT256)}$`,
    ),
  },
  {
    rule: 'a minExpirationSeconds of 2^256',
    damage: (d) =>
      ((d.providers[1] as Json).markets.ETH_LBTC.minExpirationSeconds = (MAX_SNAPSHOT_UNITS + 1n).toString()),
    message: new RegExp(
      `^providers\\[1\\] \\(id maker-b\\): markets\\.ETH_LBTC\\.minExpirationSeconds: ${escaped(ABOVE_UINT256)}$`,
    ),
  },
  {
    rule: 'a NUL in a provider id (left out of the record name, which stays printable)',
    damage: (d) => (d.providers[1]!.id = 'maker\u0000b'),
    message: /^providers\[1\]: id: must not contain a NUL character$/,
  },
  {
    rule: 'a NUL in a refund address',
    damage: (d) => (order(d, 1).refundAddress = `${MAINNET_ADDRESS}\u0000`),
    message: orderError(1, bitcoin, 'refundAddress', 'must not contain a NUL character'),
  },
  {
    rule: 'an output index beyond a 32-bit signed integer',
    damage: (d) => (order(d, 1).transactions[0].outputIndex = 2 ** 31),
    message: orderError(1, bitcoin, 'transactions[0].outputIndex', 'must be at most 2147483647'),
  },
];

for (const kind of STORE_KINDS) {
  describe(
    `on ${kind}, values bounded by what both stores hold are refused alike, and the bounds import exactly`,
    {
      skip: skipReason(kind),
    },
    () => {
      let fresh: FreshStore;
      let before_: string;

      before(async () => {
        fresh = await openFreshStore(kind);
        await importSnapshot(fresh.store, chunked(render(seedDocument())));
        before_ = await exportText(fresh.store);
      });
      after(() => fresh.dispose());

      for (const defect of STORE_BOUNDS) {
        test(defect.rule, async () => {
          const document = validDocument();
          defect.damage(document);
          await assert.rejects(
            importSnapshot(fresh.store, chunked(render(document)), { batchSize: 1 }),
            (error: unknown) => {
              assert.ok(error instanceof SnapshotError, `not a SnapshotError: ${String(error)}`);
              assert.match(error.message, defect.message);
              return true;
            },
          );
          assert.equal(await exportText(fresh.store), before_);
        });
      }

      test('2^256 - 1 base units, as amount and payment requirement, and output index 2^31 - 1 round-trip exactly', async () => {
        const largest = MAX_SNAPSHOT_UNITS.toString();
        const document = validDocument();
        order(document, 2).amount = formatWholeUnits(MAX_SNAPSHOT_UNITS, 18);
        order(document, 2).transactions[0].amount = formatWholeUnits(MAX_SNAPSHOT_UNITS, 18);
        order(document, 1).transactions[0].outputIndex = 2 ** 31 - 1;
        Object.assign((document.providers[1] as Json).markets.ETH_LBTC, {
          minExpirationSeconds: largest,
          minBaseUnits: largest,
          maxBaseUnits: largest,
        });
        const other = await openFreshStore(kind);
        try {
          await importSnapshot(other.store, chunked(render(document)));
          const exported = JSON.parse(await exportText(other.store)) as Json;
          const ethereumOrder = (exported.orders as Json[]).find((entry) => entry.id === ethereum)!;
          assert.equal(ethereumOrder.amount, order(document, 2).amount);
          assert.equal(ethereumOrder.transactions[0].amount, order(document, 2).transactions[0].amount);
          const bitcoinOrder = (exported.orders as Json[]).find((entry) => entry.id === bitcoin)!;
          assert.equal(bitcoinOrder.transactions[0].outputIndex, 2 ** 31 - 1);
          const makerB = (exported.providers as Json[]).find((entry) => entry.id === 'maker-b')!;
          assert.deepEqual(makerB.markets.ETH_LBTC, {
            minExpirationSeconds: largest,
            minBaseUnits: largest,
            maxBaseUnits: largest,
          });
        } finally {
          await other.dispose();
        }
      });
    },
  );
}
