import type { Logger } from 'pino';
import { BroadcastRefused } from '../chains/chain-backend.js';
import { LnswapError } from '../domain/errors.js';
import type { MarketCatalog } from '../domain/market-catalog.js';
import type { ChainKind, Network } from '../domain/markets.js';
import { isPlainObject } from '../engine/payload-shapes.js';

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
 * `broadcastTransaction { onchainTicker, signedTxHex }`, as REDSHIFT's client sends it: resolves `{ txId }`.
 * The node's reason for a refusal is logged; the client gets only the token.
 */
export async function broadcastTransaction(
  payload: unknown,
  catalog: MarketCatalog,
  broadcasters: Broadcasters,
  logger: Logger,
): Promise<{ txId: string }> {
  if (!isPlainObject(payload)) throw new LnswapError('InvalidOrMissingBroadcastTxRequestFields');
  const { onchainTicker, signedTxHex } = payload;
  if (typeof onchainTicker !== 'string' || typeof signedTxHex !== 'string') {
    throw new LnswapError('InvalidOrMissingBroadcastTxRequestFields');
  }
  const asset = catalog.findOnchainAsset(onchainTicker);
  if (asset === undefined) throw new LnswapError('InvalidOnchainTicker');
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
