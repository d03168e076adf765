import type { Logger } from 'pino';
import { BroadcastRefused } from '../chains/chain-backend.js';
import { LnswapError } from '../domain/errors.js';
import type { MarketCatalog } from '../domain/market-catalog.js';
import type { ChainKind, Network } from '../domain/markets.js';
import { payloadReader } from '../engine/lifecycle/payload-shapes.js';
import { broadcastTransactionShape } from '../wire/socket-payloads.js';

/** What broadcasting on one network needs of a chain backend. */
export interface Broadcaster {
  /** Whether the backend's node carries this network's coins: a ticker of another network is not sent to it. */
  carries(network: Network): boolean;
  /** Resolves with the transaction id; rejects with `BroadcastRefused` when the network will not take it. */
  broadcast(signedTxHex: string): Promise<string>;
}

/** The configured backends by chain; a chain without one refuses broadcasts with `NoBackendConfigured`. */
export type Broadcasters = Readonly<Partial<Record<ChainKind, Broadcaster>>>;

const HEX = /^(0x)?([0-9a-fA-F]{2})+$/;

/**
 * The largest transaction, in bytes, each chain's nodes relay: Bitcoin Core's standard weight, 400,000 units
 * (MAX_STANDARD_TX_WEIGHT; a transaction's bytes never exceed its weight), and geth's pool limit, 128 KiB
 * (txMaxSize; blob transactions, which no swap sends, have a pool of their own). Larger ones are PayloadTooLarge.
 */
export const RELAYED_TRANSACTION_BYTES: Readonly<Record<ChainKind, number>> = {
  bitcoin: 400_000,
  ethereum: 128 * 1024,
};

/** The largest relayed transaction as hex with its `0x`, and room for the ticker and the JSON around them. */
export const MAX_BROADCAST_PAYLOAD_BYTES = 2 * Math.max(...Object.values(RELAYED_TRANSACTION_BYTES)) + 2 + 1024;

const readBroadcastRequest = payloadReader<{ onchainTicker: string; signedTxHex: string }>(broadcastTransactionShape);

/**
 * `broadcastTransaction { onchainTicker, signedTxHex }`, as REDSHIFT's client sends it: resolves `{ txId }`.
 * The node's reason for a refusal is logged; the client gets only the token.
 */
export async function broadcastTransaction(
  payload: unknown,
  catalog: MarketCatalog,
  broadcasters: Broadcasters,
  logger: Logger,
): Promise<{ txId: string }> {
  const { onchainTicker, signedTxHex } = readBroadcastRequest(payload);
  const asset = catalog.findOnchainAsset(onchainTicker);
  if (asset === undefined) throw new LnswapError('InvalidOnchainTicker');
  const hexDigits = signedTxHex.length - (signedTxHex.startsWith('0x') ? 2 : 0);
  if (hexDigits > 2 * RELAYED_TRANSACTION_BYTES[asset.chain]) throw new LnswapError('PayloadTooLarge');
  if (!HEX.test(signedTxHex)) throw new LnswapError('InvalidSignedTxHex');
  const broadcaster = broadcasters[asset.chain];
  if (broadcaster === undefined || !broadcaster.carries(asset.network)) throw new LnswapError('NoBackendConfigured');
  try {
    return { txId: await broadcaster.broadcast(signedTxHex) };
  } catch (error) {
    if (!(error instanceof BroadcastRefused)) throw error;
    logger.info({ onchainTicker: asset.ticker, reason: error.reason, node: error.nodeMessage }, 'broadcast refused');
    throw new LnswapError(error.reason === 'InvalidTransaction' ? 'InvalidSignedTxHex' : 'TransactionRejected');
  }
}
