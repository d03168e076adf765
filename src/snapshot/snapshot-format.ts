import { formatWholeUnits } from '../domain/amounts.js';
import type { MarketCatalog, TokenAsset } from '../domain/market-catalog.js';
import type { ChainViews, OrderRecord, OrderTransaction, ProviderRecord } from '../domain/order.js';
import type { OrderState } from '../domain/states.js';
import type { StoreConfiguration } from '../store/store.js';

/**
 * The version-1 snapshot as JSON: the shapes, and how the store's records are written in them.
 * Key order is fixed (as in docs/decisions.md) and optional fields are left out when absent, so the
 * same store always exports the same bytes.
 */
export const SNAPSHOT_VERSION = 1;

/** The required top-level keys besides `orders`, in the order an export writes them. */
export const HEADER_KEYS = ['version', 'markets', 'chains', 'providers'] as const;
/**
 * Configured ERC-20 tokens: optional, written only when there are some (so a store without tokens exports what
 * it always did), and right after `version`, since `markets`, `providers` and orders may name their markets.
 */
export const TOKENS_KEY = 'tokens';
export const ORDERS_KEY = 'orders';

export interface SnapshotPayReq {
  minExpirationSeconds: string;
  minBaseUnits: string;
  maxBaseUnits: string;
}

export interface SnapshotProvider {
  id: string;
  active: boolean;
  markets: Record<string, SnapshotPayReq>;
}

export interface SnapshotTransaction {
  type: OrderTransaction['type'];
  id: string;
  amount?: string;
  outputIndex?: number;
  blockHeight?: number;
}

export interface SnapshotOrder {
  id: string;
  market: string;
  invoice: string;
  createdAt: string;
  expiryTimestamp: string;
  state: OrderState;
  amount: string;
  payToAddress: string;
  paymentPreimage?: string;
  refundAddress?: string;
  provider?: string;
  claimer?: string;
  htlc: { redeemScript?: string; refundableAtBlockHeight: number };
  transactions: SnapshotTransaction[];
}

export interface SnapshotToken {
  ticker: string;
  network: string;
  address: string;
  decimals: number;
}

export function tokenToSnapshot(token: TokenAsset): SnapshotToken {
  return { ticker: token.ticker, network: token.network, address: token.address, decimals: token.decimals };
}

function decimalsOf(marketName: string, catalog: MarketCatalog): number {
  const market = catalog.findMarket(marketName);
  if (market === undefined) throw new Error(`the store holds an order of unknown market ${marketName}`);
  return market.onchain.decimals;
}

function transactionToSnapshot(transaction: OrderTransaction, decimals: number): SnapshotTransaction {
  return {
    type: transaction.type,
    id: transaction.id,
    // Only a FUND's amount is part of the format; a REFUND's (one Ethereum slot's) is derived again by the watcher.
    ...(transaction.type !== 'FUND' || transaction.amount === undefined
      ? {}
      : { amount: formatWholeUnits(transaction.amount, decimals) }),
    ...(transaction.outputIndex === undefined ? {} : { outputIndex: transaction.outputIndex }),
    ...(transaction.blockHeight === undefined ? {} : { blockHeight: transaction.blockHeight }),
  };
}

export function orderToSnapshot(order: OrderRecord, catalog: MarketCatalog): SnapshotOrder {
  const decimals = decimalsOf(order.market, catalog);
  const { redeemScript, refundableAtBlockHeight } = order.htlc;
  return {
    id: order.id,
    market: order.market,
    invoice: order.invoice,
    createdAt: new Date(order.createdAt).toISOString(),
    expiryTimestamp: new Date(order.expiresAt).toISOString(),
    state: order.state,
    amount: formatWholeUnits(order.amount, decimals),
    payToAddress: order.payToAddress,
    ...(order.paymentPreimage === undefined ? {} : { paymentPreimage: order.paymentPreimage }),
    ...(order.refundAddress === undefined ? {} : { refundAddress: order.refundAddress }),
    ...(order.providerId === undefined ? {} : { provider: order.providerId }),
    ...(order.claimAddress === undefined ? {} : { claimer: order.claimAddress }),
    htlc: redeemScript === undefined ? { refundableAtBlockHeight } : { redeemScript, refundableAtBlockHeight },
    transactions: order.transactions.map((transaction) => transactionToSnapshot(transaction, decimals)),
  };
}

export function providerToSnapshot(provider: ProviderRecord): SnapshotProvider {
  const markets: Record<string, SnapshotPayReq> = {};
  for (const [market, payReq] of Object.entries(provider.markets)) {
    markets[market] = {
      minExpirationSeconds: payReq.minExpirationSeconds.toString(),
      minBaseUnits: payReq.minBaseUnits.toString(),
      maxBaseUnits: payReq.maxBaseUnits.toString(),
    };
  }
  return { id: provider.id, active: provider.active, markets };
}

export function chainsToSnapshot({ bitcoin, ethereum }: ChainViews): ChainViews {
  return {
    ...(bitcoin === undefined
      ? {}
      : { bitcoin: { blockHeight: bitcoin.blockHeight, feeTokensPerVirtualByte: bitcoin.feeTokensPerVirtualByte } }),
    ...(ethereum === undefined
      ? {}
      : { ethereum: { blockHeight: ethereum.blockHeight, swapContractAddress: ethereum.swapContractAddress } }),
  };
}

/** One item per line, so a snapshot diffs and greps well. */
function linesArray(items: readonly unknown[]): string {
  return items.length === 0 ? '[]' : `[\n${items.map((item) => JSON.stringify(item)).join(',\n')}\n]`;
}

/** Everything before the first order: the header members, then the opening of `orders`. */
export function snapshotHead(configuration: StoreConfiguration): string {
  return (
    `{"version":${SNAPSHOT_VERSION},\n` +
    (configuration.tokens.length === 0
      ? ''
      : `"${TOKENS_KEY}":${linesArray(configuration.tokens.map(tokenToSnapshot))},\n`) +
    `"markets":${JSON.stringify(configuration.markets)},\n` +
    `"chains":${JSON.stringify(chainsToSnapshot(configuration.chains))},\n` +
    `"providers":${linesArray(configuration.providers.map(providerToSnapshot))},\n` +
    `"${ORDERS_KEY}":[`
  );
}

export function snapshotOrderLine(order: OrderRecord, isFirst: boolean, catalog: MarketCatalog): string {
  return `${isFirst ? '\n' : ',\n'}${JSON.stringify(orderToSnapshot(order, catalog))}`;
}

export function snapshotTail(orderCount: number): string {
  return orderCount === 0 ? ']}\n' : '\n]}\n';
}
