import { createHash } from 'node:crypto';
import { payments } from 'bitcoinjs-lib';
import secp256k1 from 'secp256k1';
import { buildHtlcRedeemScript, htlcPayToAddresses } from '../../src/domain/bitcoin.js';
import { hashInvoice } from '../../src/domain/invoice.js';
import type { OrderRecord, OrderTransaction } from '../../src/domain/order.js';
import type { OrderState } from '../../src/domain/states.js';
import { signInvoice, type InvoiceTerms } from '../../src/demo/lightning/bolt11-writer.js';
import { assertInvoiceDecodes } from './bolt11-check.js';
import {
  DATASET_EPOCH_MS,
  DATASET_SPAN_MS,
  SWAP_CONTRACT_ADDRESS,
  bitcoinHeightAt,
  ethereumHeightAt,
} from './configuration.js';
import { Reservoir } from './reservoir.js';
import { SeededRandom } from './seeded-random.js';

/** Bump whenever the generated data changes: cached datasets of another version are rebuilt. */
export const GENERATOR_VERSION = 2;

export interface SampledOrder {
  readonly id: string;
  readonly invoiceHash: string;
  readonly market: string;
  readonly state: OrderState;
}

/** What the load scenarios pick from: random orders, and random invoices (a third of them with several orders). */
export interface DatasetSample {
  readonly orders: readonly SampledOrder[];
  readonly invoiceHashes: readonly string[];
}

/** Orders are generated in chunks that depend only on their index, so separate processes can share the work. */
export const CHUNK_SIZE = 10_000;

export interface GeneratedChunk {
  readonly index: number;
  readonly orders: OrderRecord[];
  /** This chunk's share of the sample, in proportion to its size (a stratified sample of the whole dataset). */
  readonly sample: DatasetSample;
}

export function chunkCount(totalOrders: number): number {
  return Math.ceil(totalOrders / CHUNK_SIZE);
}

type BenchMarket = 'BTC_LBTC' | 'ETH_LBTC';

interface InvoiceGroup {
  readonly invoice: string;
  readonly invoiceHash: string;
  readonly paymentHash: string;
  readonly preimage: string;
  readonly satoshis: number;
  readonly startMs: number;
}

/** The state of an invoice's last (or only) order: mostly settled history, every live state present. */
const LAST_ORDER_STATES: Readonly<Record<OrderState, number>> = {
  Complete: 55,
  FundWindowElapsed: 22,
  Refunded: 6,
  WaitingForFundingTx: 3,
  WaitingForFundingTxConfirmation: 2,
  WaitingForAdditionalFundingTxConfirmation: 1,
  PartiallyFunded: 2,
  Funded: 2,
  WaitingForRefundTx: 3,
  AddressBlacklistedWaitingForRefundTx: 1,
  WaitingForRefundTxConfirmation: 3,
};

/** An invoice retried on another order means the earlier one lapsed or was given back. */
const EARLIER_ORDER_STATES = { FundWindowElapsed: 8, Refunded: 2 } as const;

/** Two thirds of invoices have one order, the rest two to four. */
const ORDERS_PER_INVOICE = { one: 66.7, two: 20, three: 10, four: 3.3 } as const;
const ORDER_COUNT = { one: 1, two: 2, three: 3, four: 4 } as const;

const DESCRIPTIONS = ['', 'coffee', 'Order #', 'Donation to the node runners', 'Invoice for services rendered, ref '];
const EXPIRY_SECONDS = [3600, 7200, 86_400];

const SAMPLE_SIZE = 4096;
const FUND_WINDOW_MS = 900_000;
/**
 * Orders still waiting for funds keep an open window whenever the bench runs, so the service's fund-window sweeper
 * leaves the dataset as generated instead of rewriting thousands of orders at start-up.
 */
const STILL_OPEN_FUND_WINDOW_ENDS_AT = Date.UTC(2100, 0, 1);
/** Invoices are checked against bolt11's decoder about this often (in orders): a signer bug cannot reach a dataset. */
const DECODE_CHECK_EVERY = 10_000;

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

function privateKeys(random: SeededRandom, count: number): Buffer[] {
  const keys: Buffer[] = [];
  while (keys.length < count) {
    const candidate = random.bytes(32);
    if (secp256k1.privateKeyVerify(candidate)) keys.push(Buffer.from(candidate));
  }
  return keys;
}

interface DatasetKeys {
  readonly payeeKeys: readonly Buffer[];
  readonly makerClaimKeys: readonly string[];
}

/** Payee nodes sign the invoices, makers' keys claim the HTLCs; the same in every chunk. */
export function datasetKeys(): DatasetKeys {
  const random = new SeededRandom(`lnswap-bench-keys-${GENERATOR_VERSION}`);
  return {
    payeeKeys: privateKeys(random, 64),
    makerClaimKeys: privateKeys(random, 8).map((key) =>
      Buffer.from(secp256k1.publicKeyCreate(key, true)).toString('hex'),
    ),
  };
}

export function generateChunk(totalOrders: number, index: number, keys: DatasetKeys): GeneratedChunk {
  return new ChunkBuilder(totalOrders, index, keys).build();
}

class ChunkBuilder {
  private readonly random: SeededRandom;
  private readonly sampledOrders: Reservoir<SampledOrder>;
  private readonly sampledInvoices: Reservoir<string>;
  private readonly end: number;
  private produced: number;

  constructor(
    private readonly totalOrders: number,
    private readonly index: number,
    private readonly keys: DatasetKeys,
  ) {
    this.produced = index * CHUNK_SIZE;
    this.end = Math.min(totalOrders, this.produced + CHUNK_SIZE);
    if (this.produced >= this.end) throw new Error(`chunk ${index} is past the end of ${totalOrders} orders`);
    const seed = `lnswap-bench-${GENERATOR_VERSION}-${totalOrders}-${index}`;
    this.random = new SeededRandom(seed);
    const share = Math.max(1, Math.round((SAMPLE_SIZE * (this.end - this.produced)) / totalOrders));
    const samplingRandom = new SeededRandom(`${seed}-sample`);
    this.sampledOrders = new Reservoir(share, samplingRandom);
    this.sampledInvoices = new Reservoir(share, samplingRandom);
  }

  build(): GeneratedChunk {
    const orders: OrderRecord[] = [];
    while (this.produced < this.end) orders.push(...this.nextInvoiceOrders());
    return {
      index: this.index,
      orders,
      sample: { orders: this.sampledOrders.items(), invoiceHashes: this.sampledInvoices.items() },
    };
  }

  private nextInvoiceOrders(): OrderRecord[] {
    const wanted = ORDER_COUNT[this.random.weighted(ORDERS_PER_INVOICE)];
    const count = Math.min(wanted, this.end - this.produced);
    const group = this.nextInvoice();
    this.sampledInvoices.offer(group.invoiceHash);
    const orders: OrderRecord[] = [];
    for (let index = 0; index < count; index++) {
      const isLast = index === count - 1;
      const state: OrderState = isLast
        ? this.random.weighted(LAST_ORDER_STATES)
        : this.random.weighted(EARLIER_ORDER_STATES);
      const market: BenchMarket = this.random.fraction() < 0.6 ? 'BTC_LBTC' : 'ETH_LBTC';
      const createdAt = group.startMs + index * 600_000 + this.random.integer(0, 120_000);
      const order =
        market === 'BTC_LBTC'
          ? this.bitcoinOrder(group, state, createdAt)
          : this.ethereumOrder(group, state, createdAt);
      this.sampledOrders.offer({ id: order.id, invoiceHash: group.invoiceHash, market, state });
      orders.push(order);
    }
    this.produced += count;
    return orders;
  }

  private nextInvoice(): InvoiceGroup {
    const preimage = this.random.bytes(32);
    const paymentHash = sha256(preimage);
    const startMs = DATASET_EPOCH_MS + Math.floor((this.produced / this.totalOrders) * DATASET_SPAN_MS);
    // Log-uniform between 1,000 and 4,000,000 satoshis: many small payments, a few large ones.
    const satoshis = Math.round(1000 * Math.pow(4000, this.random.fraction()));
    const description = DESCRIPTIONS[this.random.integer(0, DESCRIPTIONS.length - 1)]!;
    const terms: InvoiceTerms = {
      network: 'mainnet',
      payeePrivateKey: this.keys.payeeKeys[this.random.integer(0, this.keys.payeeKeys.length - 1)]!,
      satoshis,
      timestampSeconds: Math.floor(startMs / 1000),
      paymentHash,
      paymentSecret: this.random.bytes(32),
      description: /[ #]$/.test(description) ? `${description}${this.produced}` : description,
      expirySeconds: EXPIRY_SECONDS[this.random.integer(0, EXPIRY_SECONDS.length - 1)]!,
    };
    const invoice = signInvoice(terms);
    if (this.produced % DECODE_CHECK_EVERY === 0) assertInvoiceDecodes(invoice, terms);
    return {
      invoice,
      invoiceHash: hashInvoice(invoice),
      paymentHash: paymentHash.toString('hex'),
      preimage: preimage.toString('hex'),
      satoshis,
      startMs,
    };
  }

  private commonFields(group: InvoiceGroup, state: OrderState, createdAt: number) {
    return {
      id: this.random.uuid(),
      invoice: group.invoice,
      invoiceHash: group.invoiceHash,
      paymentHash: group.paymentHash,
      createdAt,
      expiresAt: state === 'WaitingForFundingTx' ? STILL_OPEN_FUND_WINDOW_ENDS_AT : createdAt + FUND_WINDOW_MS,
      state,
      ...(state === 'Complete' ? { paymentPreimage: group.preimage } : {}),
    };
  }

  private bitcoinOrder(group: InvoiceGroup, state: OrderState, createdAt: number): OrderRecord {
    const refundHash = this.random.bytes(20);
    const refundPayment = this.random.fraction() < 0.7 ? payments.p2wpkh : payments.p2pkh;
    const refundAddress = refundPayment({ hash: refundHash }).address!;
    const refundableAtBlockHeight = bitcoinHeightAt(createdAt) + 144;
    const redeemScript = buildHtlcRedeemScript({
      paymentHash: group.paymentHash,
      claimPublicKey: this.keys.makerClaimKeys[this.random.integer(0, this.keys.makerClaimKeys.length - 1)]!,
      refundPublicKeyHash: refundHash.toString('hex'),
      refundableAtBlockHeight,
    });
    const addresses = htlcPayToAddresses(redeemScript, 'mainnet');
    const addressKind = this.random.weighted({ p2wsh: 6, p2shP2wsh: 3, p2sh: 1 });
    // Maker fee and the miner fee of the claim on top of the invoice.
    const amount = BigInt(group.satoshis + Math.ceil(group.satoshis * 0.005) + 1500);
    return {
      ...this.commonFields(group, state, createdAt),
      market: 'BTC_LBTC',
      amount,
      payToAddress: addresses[addressKind],
      refundAddress,
      htlc: { redeemScript, refundableAtBlockHeight },
      transactions: this.transactions(state, amount, {
        fundHeight: bitcoinHeightAt(createdAt + 600_000),
        refundHeight: refundableAtBlockHeight + this.random.integer(0, 6),
        txIdPrefix: '',
        outputIndex: () => this.random.integer(0, 1),
      }),
    };
  }

  private ethereumOrder(group: InvoiceGroup, state: OrderState, createdAt: number): OrderRecord {
    const refundableAtBlockHeight = ethereumHeightAt(createdAt) + 6500;
    // About 0.02 BTC per ETH, quoted to the gwei.
    const gweiPerSatoshi = BigInt(this.random.integer(420, 580));
    const amount = ((BigInt(group.satoshis) * gweiPerSatoshi * 1005n) / 1000n) * 1_000_000_000n;
    return {
      ...this.commonFields(group, state, createdAt),
      market: 'ETH_LBTC',
      amount,
      payToAddress: SWAP_CONTRACT_ADDRESS,
      htlc: { refundableAtBlockHeight },
      transactions: this.transactions(state, amount, {
        fundHeight: ethereumHeightAt(createdAt + 120_000),
        refundHeight: refundableAtBlockHeight + this.random.integer(0, 40),
        txIdPrefix: '0x',
      }),
    };
  }

  private transactions(
    state: OrderState,
    amount: bigint,
    chain: { fundHeight: number; refundHeight: number; txIdPrefix: '' | '0x'; outputIndex?: () => number },
  ): OrderTransaction[] {
    const fund = (part: bigint, confirmed: boolean): OrderTransaction => ({
      type: 'FUND',
      id: `${chain.txIdPrefix}${this.random.hex(32)}`,
      amount: part,
      ...(chain.outputIndex ? { outputIndex: chain.outputIndex() } : {}),
      ...(confirmed ? { blockHeight: chain.fundHeight } : {}),
    });
    const refund = (confirmed: boolean): OrderTransaction => ({
      type: 'REFUND',
      id: `${chain.txIdPrefix}${this.random.hex(32)}`,
      ...(confirmed ? { blockHeight: chain.refundHeight } : {}),
    });
    const firstPart = (amount * BigInt(this.random.integer(20, 80))) / 100n;
    switch (state) {
      case 'WaitingForFundingTx':
      case 'FundWindowElapsed':
        return [];
      case 'WaitingForFundingTxConfirmation':
        return [fund(amount, false)];
      case 'PartiallyFunded':
        return [fund(firstPart, true)];
      case 'WaitingForAdditionalFundingTxConfirmation':
        return [fund(firstPart, true), fund(amount - firstPart, false)];
      case 'Complete':
        return this.random.fraction() < 0.1
          ? [fund(firstPart, true), fund(amount - firstPart, true)]
          : [fund(amount, true)];
      case 'Funded':
      case 'AddressBlacklistedWaitingForRefundTx':
        return [fund(amount, true)];
      case 'WaitingForRefundTx':
        return [fund(this.random.fraction() < 0.5 ? firstPart : amount, true)];
      case 'WaitingForRefundTxConfirmation':
        return [fund(amount, true), refund(false)];
      case 'Refunded':
        return [fund(amount, true), refund(true)];
    }
  }
}
