/**
 * Realistic orders and configuration for tests: real signed BOLT11 invoices, real HTLC redeem
 * scripts and addresses, amounts in base units. Everything is derived from a label, so a fixture
 * built twice with the same label is the same order.
 */
import { createECDH, createHash } from 'node:crypto';
import { payments } from 'bitcoinjs-lib';
import { bitcoinJsNetwork, buildHtlcRedeemScript, htlcPayToAddresses } from '../../src/domain/bitcoin.js';
import { findMarket, type Market } from '../../src/domain/markets.js';
import type { ChainViews, OrderRecord, OrderTransaction, PayReq, ProviderRecord } from '../../src/domain/order.js';
import type { OrderState } from '../../src/domain/states.js';
import type { Store, StoreConfiguration } from '../../src/store/store.js';
import { makeInvoice } from './invoices.js';

export const SWAP_CONTRACT_ADDRESS = '0xf0398fad8c2aa38c476b010c269158d442730e98';

/**
 * The Ethereum payout address the tests' operator registers for a provider unless a test names one, and the one
 * the tests' maker bots name as claimer: their Ethereum quotes pay the provider that sent them.
 */
export const PROVIDER_PAYOUT_ADDRESS = '0x000000000000000000000000000000000000face';

export const BITCOIN_VIEW = { blockHeight: 612100, feeTokensPerVirtualByte: 12 } as const;
export const ETHEREUM_VIEW = { blockHeight: 9230000, swapContractAddress: SWAP_CONTRACT_ADDRESS } as const;
export const CHAINS: ChainViews = { bitcoin: BITCOIN_VIEW, ethereum: ETHEREUM_VIEW };

/** 2019-11-05T20:11:08.821Z, the creation time of the interface's example order. */
export const BASE_TIME_MS = Date.UTC(2019, 10, 5, 20, 11, 8, 821);
const FUND_WINDOW_MS = 30 * 60 * 1000;

/** Deterministic 32 bytes of hex for a label: preimages, keys and transaction ids. */
export function hex32(label: string): string {
  return createHash('sha256').update(label).digest('hex');
}

/** A version-4 UUID derived from a label. */
export function uuidFor(label: string): string {
  const hex = hex32(`order id:${label}`);
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

function compressedPublicKey(label: string): Buffer {
  const ecdh = createECDH('secp256k1');
  ecdh.setPrivateKey(Buffer.from(hex32(`key:${label}`), 'hex'));
  return ecdh.getPublicKey(null, 'compressed');
}

function hash160(data: Buffer): Buffer {
  return createHash('ripemd160').update(createHash('sha256').update(data).digest()).digest();
}

export function payReq(minExpirationSeconds: bigint, minBaseUnits: bigint, maxBaseUnits: bigint): PayReq {
  return { minExpirationSeconds, minBaseUnits, maxBaseUnits };
}

export function provider(id: string, active: boolean, markets: Record<string, PayReq>): ProviderRecord {
  return { id, active, markets };
}

export function configuration(overrides: Partial<StoreConfiguration> = {}): StoreConfiguration {
  return {
    markets: ['BTC_LBTC', 'ETH_LBTC'],
    tokens: [],
    chains: CHAINS,
    providers: [
      provider('maker-1', true, {
        BTC_LBTC: payReq(3600n, 1000n, 4294967n),
        ETH_LBTC: payReq(3600n, 1000n, 4294967n),
      }),
    ],
    ...overrides,
  };
}

export interface OrderSpec {
  /** Everything not given is derived from it. */
  label: string;
  market?: string;
  state?: OrderState;
  /** Base units of the on-chain asset; defaults to the interface's examples, 0.0003559 BTC or 0.4995 ETH. */
  amount?: bigint;
  /** Satoshis the Lightning invoice asks for. */
  invoiceSatoshis?: bigint;
  createdAt?: number;
  /** Base units of each FUND transaction, confirmed one block apart. */
  funds?: readonly bigint[];
  refunded?: boolean;
  /** Set the preimage, as an order that completed has it. */
  preimageKnown?: boolean;
  /** Quote the same invoice as another order: one invoice can have several orders. */
  sameInvoiceAs?: BuiltOrder;
  refundableAtBlockHeight?: number;
  /** Bitcoin-style orders get a refund address unless this is set. */
  withoutRefundAddress?: boolean;
}

export interface BuiltOrder {
  record: OrderRecord;
  market: Market;
  preimage: string;
}

function requireMarket(name: string): Market {
  const market = findMarket(name);
  if (market === undefined) throw new Error(`fixture market ${name} is unknown`);
  return market;
}

function transactionsFor(spec: OrderSpec, market: Market, refundableAtBlockHeight: number): OrderTransaction[] {
  const isBitcoin = market.onchain.chain === 'bitcoin';
  const funds = (spec.funds ?? []).map((amount, index): OrderTransaction => ({
    type: 'FUND',
    id: isBitcoin ? hex32(`fund:${spec.label}:${index}`) : `0x${hex32(`fund:${spec.label}:${index}`)}`,
    amount,
    ...(isBitcoin ? { outputIndex: index % 3 } : {}),
    blockHeight: refundableAtBlockHeight - 90 + index,
  }));
  if (!spec.refunded) return funds;
  const refundId = isBitcoin ? hex32(`refund:${spec.label}`) : `0x${hex32(`refund:${spec.label}`)}`;
  return [...funds, { type: 'REFUND', id: refundId, blockHeight: refundableAtBlockHeight + 5 }];
}

/**
 * An order as the store keeps it. Bitcoin-style markets get an HTLC redeem script paid at its P2SH
 * address and a P2WPKH refund address; Ethereum-style markets are paid at the swap contract.
 */
export function buildOrder(spec: OrderSpec): BuiltOrder {
  const market = requireMarket(spec.market ?? 'BTC_LBTC');
  const isBitcoin = market.onchain.chain === 'bitcoin';
  const createdAt = spec.createdAt ?? BASE_TIME_MS;
  const { invoice, paymentHash, preimage } =
    spec.sameInvoiceAs === undefined
      ? makeInvoice({
          network: market.network,
          amountSatoshis: spec.invoiceSatoshis ?? 35000n,
          preimage: hex32(`preimage:${spec.label}`),
          timestampSeconds: Math.floor(createdAt / 1000),
        })
      : {
          invoice: spec.sameInvoiceAs.record.invoice,
          paymentHash: spec.sameInvoiceAs.record.paymentHash,
          preimage: spec.sameInvoiceAs.preimage,
        };
  const refundableAtBlockHeight =
    spec.refundableAtBlockHeight ?? (isBitcoin ? BITCOIN_VIEW.blockHeight + 83 : ETHEREUM_VIEW.blockHeight + 1200);
  const defaultAmount = isBitcoin ? 35590n : 499_500_000_000_000_000n;

  const refundKeyHash = hash160(compressedPublicKey(`refund:${spec.label}`));
  const redeemScript = isBitcoin
    ? buildHtlcRedeemScript({
        paymentHash,
        claimPublicKey: compressedPublicKey(`claim:${spec.label}`).toString('hex'),
        refundPublicKeyHash: refundKeyHash.toString('hex'),
        refundableAtBlockHeight,
      })
    : undefined;
  const refundAddress =
    isBitcoin && !spec.withoutRefundAddress
      ? payments.p2wpkh({ hash: refundKeyHash, network: bitcoinJsNetwork(market.network) }).address
      : undefined;

  const record: OrderRecord = {
    id: uuidFor(spec.label),
    market: market.name,
    invoice,
    invoiceHash: hashOfInvoice(invoice),
    paymentHash,
    createdAt,
    expiresAt: createdAt + FUND_WINDOW_MS,
    state: spec.state ?? 'WaitingForFundingTx',
    amount: spec.amount ?? defaultAmount,
    payToAddress:
      redeemScript === undefined ? SWAP_CONTRACT_ADDRESS : htlcPayToAddresses(redeemScript, market.network).p2sh,
    ...(spec.preimageKnown ? { paymentPreimage: preimage } : {}),
    ...(refundAddress === undefined ? {} : { refundAddress }),
    htlc: redeemScript === undefined ? { refundableAtBlockHeight } : { redeemScript, refundableAtBlockHeight },
    transactions: transactionsFor(spec, market, refundableAtBlockHeight),
  };
  return { record, market, preimage };
}

/**
 * One invoice paid twice over: a completed order and a refunded one, the pair behind a lookup by invoice hash
 * that answers several orders. Labels are `<prefix>-complete` and `<prefix>-refunded`.
 */
export function settledOrdersOfOneInvoice(prefix: string): { complete: BuiltOrder; refunded: BuiltOrder } {
  const complete = buildOrder({ label: `${prefix}-complete`, state: 'Complete', funds: [35590n], preimageKnown: true });
  const refunded = buildOrder({
    label: `${prefix}-refunded`,
    state: 'Refunded',
    funds: [35590n],
    refunded: true,
    sameInvoiceAs: complete,
  });
  return { complete, refunded };
}

/** SHA-256 of the invoice string as sent, lowercase hex: what clients look orders up by. */
export function hashOfInvoice(invoice: string): string {
  return createHash('sha256').update(invoice, 'utf8').digest('hex');
}

export interface Seed {
  configuration?: StoreConfiguration;
  orders?: readonly OrderRecord[];
}

/** Writes configuration and orders in one import transaction, as `lnswap import` does. */
export async function seedStore(store: Store, seed: Seed): Promise<void> {
  await store.importAtomically(async (session) => {
    await session.writeConfiguration(seed.configuration ?? configuration());
    if (seed.orders !== undefined && seed.orders.length > 0) await session.writeOrders(seed.orders);
  });
}
