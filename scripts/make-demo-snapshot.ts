/**
 * Writes demo/snapshot.json to stdout: a small, realistic store with real signed BOLT11 invoices,
 * real HTLC redeem scripts and their addresses, and every order state. Deterministic: keys,
 * preimages and times are derived from fixed labels, so running it again gives the same bytes.
 *
 *   node --import tsx scripts/make-demo-snapshot.ts > demo/snapshot.json
 */
import { createECDH, createHash } from 'node:crypto';
import { payments } from 'bitcoinjs-lib';
import { parseDecimalAmount } from '../src/domain/amounts.js';
import { buildHtlcRedeemScript, htlcPayToAddresses, refundPublicKeyHashOfAddress } from '../src/domain/bitcoin.js';
import { hashInvoice } from '../src/domain/invoice.js';
import { KNOWN_CATALOG } from '../src/domain/market-catalog.js';
import { findMarket } from '../src/domain/markets.js';
import type { OrderRecord, OrderTransaction } from '../src/domain/order.js';
import type { OrderState } from '../src/domain/states.js';
import { snapshotHead, snapshotOrderLine, snapshotTail } from '../src/snapshot/snapshot-format.js';
import type { StoreConfiguration } from '../src/store/store.js';
import { makeInvoice } from '../test/support/invoices.js';

const BITCOIN_HEIGHT = 612_100;
const ETHEREUM_HEIGHT = 9_230_000;
const SWAP_CONTRACT = '0xf0398fad8c2aa38c476b010c269158d442730e98';
const FIRST_ORDER_AT = Date.parse('2019-11-05T20:11:08.821Z');
const MINUTE = 60_000;
/**
 * The service moves orders whose fund window has passed to FundWindowElapsed when it starts; the
 * demo's orders still waiting for funds keep theirs open, so every state stays on show.
 */
const STILL_OPEN_UNTIL = Date.parse('2100-01-01T00:00:00.000Z');

function digest(label: string): string {
  return createHash('sha256').update(`lnswap demo: ${label}`).digest('hex');
}

/** The provider that won the Ethereum orders, and the payout address the swap contract pays its claims to. */
const ETHEREUM_MAKER = 'maker-1';
const ETHEREUM_MAKER_PAYOUT = `0x${digest('payout address of maker-1').slice(0, 40)}`;

function publicKeyOf(privateKeyHex: string): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(Buffer.from(privateKeyHex, 'hex'));
  return ecdh.getPublicKey(null, 'compressed');
}

/** A version-4-shaped UUID from a label. */
function demoUuid(label: string): string {
  const hex = digest(`order id ${label}`);
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const groups = [hex.slice(0, 8), hex.slice(8, 12), `4${hex.slice(13, 16)}`, `${variant}${hex.slice(17, 20)}`];
  return [...groups, hex.slice(20, 32)].join('-');
}

const makerClaimPublicKey = publicKeyOf(digest('maker-1 claim key')).toString('hex');

interface DemoInvoice {
  invoice: string;
  paymentHash: string;
  preimage: string;
}

function demoInvoice(label: string, amountSatoshis: bigint, at: number): DemoInvoice {
  return makeInvoice({
    network: 'mainnet',
    amountSatoshis,
    preimage: digest(`preimage ${label}`),
    timestampSeconds: Math.floor(at / 1000) - 60,
    expirySeconds: 3600,
    description: `lnswap demo ${label}`,
  });
}

interface OrderSpec {
  label: string;
  market: 'BTC_LBTC' | 'ETH_LBTC';
  invoice: DemoInvoice;
  state: OrderState;
  amount: string;
  /** Minutes after the first order. */
  minute: number;
  refundableAtBlockHeight: number;
  transactions?: OrderTransaction[];
  revealPreimage?: boolean;
}

function baseUnits(amount: string, market: OrderSpec['market']): bigint {
  const units = parseDecimalAmount(amount, findMarket(market)!.onchain.decimals);
  if (units === undefined) throw new Error(`bad demo amount ${amount}`);
  return units;
}

interface TransactionSpec {
  label: string;
  market: OrderSpec['market'];
  blockHeight?: number;
}

function fund(spec: TransactionSpec & { amount: string }): OrderTransaction {
  const isBitcoin = spec.market === 'BTC_LBTC';
  return {
    type: 'FUND',
    id: isBitcoin ? digest(`fund ${spec.label}`) : `0x${digest(`fund ${spec.label}`)}`,
    amount: baseUnits(spec.amount, spec.market),
    ...(isBitcoin ? { outputIndex: 1 } : {}),
    ...(spec.blockHeight === undefined ? {} : { blockHeight: spec.blockHeight }),
  };
}

function refund(spec: TransactionSpec): OrderTransaction {
  const id = digest(`refund ${spec.label}`);
  return {
    type: 'REFUND',
    id: spec.market === 'BTC_LBTC' ? id : `0x${id}`,
    ...(spec.blockHeight === undefined ? {} : { blockHeight: spec.blockHeight }),
  };
}

function buildOrder(spec: OrderSpec): OrderRecord {
  const createdAt = FIRST_ORDER_AT + spec.minute * MINUTE;
  const common = {
    id: demoUuid(spec.label),
    market: spec.market,
    invoice: spec.invoice.invoice,
    invoiceHash: hashInvoice(spec.invoice.invoice),
    paymentHash: spec.invoice.paymentHash,
    createdAt,
    expiresAt: spec.state === 'WaitingForFundingTx' ? STILL_OPEN_UNTIL : createdAt + 30 * MINUTE,
    state: spec.state,
    amount: baseUnits(spec.amount, spec.market),
    ...(spec.revealPreimage ? { paymentPreimage: spec.invoice.preimage } : {}),
    transactions: spec.transactions ?? [],
  };
  if (spec.market === 'ETH_LBTC') {
    return {
      ...common,
      payToAddress: SWAP_CONTRACT,
      htlc: { refundableAtBlockHeight: spec.refundableAtBlockHeight },
      providerId: ETHEREUM_MAKER,
      claimAddress: ETHEREUM_MAKER_PAYOUT,
    };
  }
  const refundPublicKey = publicKeyOf(digest(`refund key ${spec.label}`));
  const refundAddress = payments.p2wpkh({ pubkey: refundPublicKey }).address!;
  const redeemScript = buildHtlcRedeemScript({
    paymentHash: spec.invoice.paymentHash,
    claimPublicKey: makerClaimPublicKey,
    refundPublicKeyHash: refundPublicKeyHashOfAddress(refundAddress, 'mainnet')!,
    refundableAtBlockHeight: spec.refundableAtBlockHeight,
  });
  const addresses = htlcPayToAddresses(redeemScript, 'mainnet');
  // Both kinds makers ask for appear in the demo: native P2WSH and legacy P2SH.
  const payToAddress = spec.minute % 2 === 0 ? addresses.p2wsh : addresses.p2sh;
  const { refundableAtBlockHeight } = spec;
  return { ...common, payToAddress, refundAddress, htlc: { redeemScript, refundableAtBlockHeight } };
}

type SpecWithoutInvoice = Omit<OrderSpec, 'invoice'> & { invoiceSatoshis: bigint };

/** Each order pays its own invoice, signed a minute before the order was created. */
function withOwnInvoice(spec: SpecWithoutInvoice): OrderSpec {
  const createdAt = FIRST_ORDER_AT + spec.minute * MINUTE;
  return { ...spec, invoice: demoInvoice(spec.label, spec.invoiceSatoshis, createdAt) };
}

function demoOrders(): OrderRecord[] {
  const shared = demoInvoice('shared invoice', 35_000n, FIRST_ORDER_AT);
  const specs: OrderSpec[] = [
    // One invoice, two markets: the BTC quote was never funded, the same invoice was then paid with ETH.
    {
      label: 'shared btc',
      market: 'BTC_LBTC',
      invoice: shared,
      state: 'FundWindowElapsed',
      amount: '0.0003559',
      minute: 0,
      refundableAtBlockHeight: 612_183,
    },
    {
      label: 'shared eth',
      market: 'ETH_LBTC',
      invoice: shared,
      state: 'Complete',
      amount: '0.0495',
      minute: 35,
      refundableAtBlockHeight: 9_230_500,
      revealPreimage: true,
      transactions: [fund({ label: 'shared eth', market: 'ETH_LBTC', amount: '0.0495', blockHeight: 9_229_870 })],
    },
    ...[
      {
        label: 'complete btc',
        market: 'BTC_LBTC',
        invoiceSatoshis: 120_000n,
        state: 'Complete',
        amount: '0.00121318',
        minute: 7,
        refundableAtBlockHeight: 612_190,
        revealPreimage: true,
        transactions: [fund({ label: 'complete btc', market: 'BTC_LBTC', amount: '0.00121318', blockHeight: 612_010 })],
      },
      {
        label: 'waiting btc',
        market: 'BTC_LBTC',
        invoiceSatoshis: 50_000n,
        state: 'WaitingForFundingTx',
        amount: '0.0005071',
        minute: 14,
        refundableAtBlockHeight: 612_240,
      },
      {
        label: 'mempool btc',
        market: 'BTC_LBTC',
        invoiceSatoshis: 75_000n,
        state: 'WaitingForFundingTxConfirmation',
        amount: '0.00076012',
        minute: 21,
        refundableAtBlockHeight: 612_245,
        transactions: [fund({ label: 'mempool btc', market: 'BTC_LBTC', amount: '0.00076012' })],
      },
      {
        label: 'partial btc',
        market: 'BTC_LBTC',
        invoiceSatoshis: 200_000n,
        state: 'PartiallyFunded',
        amount: '0.0020189',
        minute: 28,
        refundableAtBlockHeight: 612_250,
        transactions: [fund({ label: 'partial btc', market: 'BTC_LBTC', amount: '0.001', blockHeight: 612_060 })],
      },
      {
        label: 'topped up btc',
        market: 'BTC_LBTC',
        invoiceSatoshis: 150_000n,
        state: 'WaitingForAdditionalFundingTxConfirmation',
        amount: '0.00151502',
        minute: 42,
        refundableAtBlockHeight: 612_255,
        transactions: [
          fund({ label: 'topped up btc 1', market: 'BTC_LBTC', amount: '0.001', blockHeight: 612_070 }),
          fund({ label: 'topped up btc 2', market: 'BTC_LBTC', amount: '0.00051502' }),
        ],
      },
      {
        label: 'funded eth',
        market: 'ETH_LBTC',
        invoiceSatoshis: 400_000n,
        state: 'Funded',
        amount: '0.4995',
        minute: 49,
        refundableAtBlockHeight: 9_230_600,
        transactions: [fund({ label: 'funded eth', market: 'ETH_LBTC', amount: '0.4995', blockHeight: 9_229_990 })],
      },
      {
        label: 'refund due btc',
        market: 'BTC_LBTC',
        invoiceSatoshis: 90_000n,
        state: 'WaitingForRefundTx',
        amount: '0.00091213',
        minute: 56,
        refundableAtBlockHeight: 612_090,
        transactions: [
          fund({ label: 'refund due btc', market: 'BTC_LBTC', amount: '0.00091213', blockHeight: 612_001 }),
        ],
      },
      {
        label: 'blacklisted btc',
        market: 'BTC_LBTC',
        invoiceSatoshis: 60_000n,
        state: 'AddressBlacklistedWaitingForRefundTx',
        amount: '0.0006085',
        minute: 63,
        refundableAtBlockHeight: 612_260,
        transactions: [
          fund({ label: 'blacklisted btc', market: 'BTC_LBTC', amount: '0.0006085', blockHeight: 612_080 }),
        ],
      },
      {
        label: 'refunding btc',
        market: 'BTC_LBTC',
        invoiceSatoshis: 80_000n,
        state: 'WaitingForRefundTxConfirmation',
        amount: '0.0008111',
        minute: 70,
        refundableAtBlockHeight: 612_095,
        transactions: [
          fund({ label: 'refunding btc', market: 'BTC_LBTC', amount: '0.0008111', blockHeight: 612_011 }),
          refund({ label: 'refunding btc', market: 'BTC_LBTC' }),
        ],
      },
      {
        label: 'refunded btc',
        market: 'BTC_LBTC',
        invoiceSatoshis: 45_000n,
        state: 'Refunded',
        amount: '0.00045667',
        minute: 77,
        refundableAtBlockHeight: 612_085,
        transactions: [
          fund({ label: 'refunded btc', market: 'BTC_LBTC', amount: '0.00045667', blockHeight: 612_003 }),
          refund({ label: 'refunded btc', market: 'BTC_LBTC', blockHeight: 612_097 }),
        ],
      },
      {
        label: 'refunded eth',
        market: 'ETH_LBTC',
        invoiceSatoshis: 250_000n,
        state: 'Refunded',
        amount: '0.3122',
        minute: 84,
        refundableAtBlockHeight: 9_229_950,
        transactions: [
          fund({ label: 'refunded eth', market: 'ETH_LBTC', amount: '0.3122', blockHeight: 9_229_800 }),
          refund({ label: 'refunded eth', market: 'ETH_LBTC', blockHeight: 9_229_960 }),
        ],
      },
      {
        label: 'waiting eth',
        market: 'ETH_LBTC',
        invoiceSatoshis: 30_000n,
        state: 'WaitingForFundingTx',
        amount: '0.0375',
        minute: 91,
        refundableAtBlockHeight: 9_230_700,
      },
    ].map((spec) => withOwnInvoice(spec as SpecWithoutInvoice)),
  ];
  // The store exports by creation time then id; writing them that way makes this file a fixed point of export.
  return specs.map(buildOrder).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const configuration: StoreConfiguration = {
  markets: ['BTC_LBTC', 'ETH_LBTC'],
  tokens: [],
  chains: {
    bitcoin: { blockHeight: BITCOIN_HEIGHT, feeTokensPerVirtualByte: 12 },
    ethereum: { blockHeight: ETHEREUM_HEIGHT, swapContractAddress: SWAP_CONTRACT },
  },
  providers: [
    {
      id: 'maker-1',
      active: true,
      markets: {
        BTC_LBTC: { minExpirationSeconds: 3600n, minBaseUnits: 1000n, maxBaseUnits: 4294967n },
        ETH_LBTC: { minExpirationSeconds: 3600n, minBaseUnits: 10000n, maxBaseUnits: 2000000n },
      },
    },
    {
      id: 'maker-2',
      active: true,
      markets: { BTC_LBTC: { minExpirationSeconds: 1800n, minBaseUnits: 5000n, maxBaseUnits: 10000000n } },
    },
  ],
};

const orders = demoOrders();
let text = snapshotHead(configuration);
orders.forEach((order, index) => {
  text += snapshotOrderLine(order, index === 0, KNOWN_CATALOG);
});
process.stdout.write(text + snapshotTail(orders.length));
