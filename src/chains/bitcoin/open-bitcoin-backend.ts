import type { Network } from '../../domain/markets.js';
import type { BitcoinBackend } from './bitcoin-backend.js';
import { CoreRpcBackend } from './core-rpc-backend.js';
import { EsploraBackend } from './esplora-backend.js';
import { DEFAULT_NODE_CALL_LIMITS } from '../node-http.js';

/** Where the Bitcoin node answers: exactly one of an Esplora base URL and a Bitcoin Core RPC URL. */
export interface BitcoinNodeAddress {
  readonly esploraUrl?: string;
  readonly rpcUrl?: string;
  /** Used when `rpcUrl` carries no credentials. */
  readonly rpcUser?: string;
  readonly rpcPassword?: string;
  /** Milliseconds one call to the node may take, its whole answer read; 15,000 by default. */
  readonly timeoutMs?: number;
}

/** The backend speaking the API configured, reading addresses with `network`'s prefixes. */
export function openBitcoinBackend(options: BitcoinNodeAddress, network: Network): BitcoinBackend {
  if (options.esploraUrl !== undefined && options.rpcUrl !== undefined) {
    throw new Error('give either an Esplora URL or a Bitcoin Core RPC URL, not both');
  }
  const limits = {
    ...DEFAULT_NODE_CALL_LIMITS,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  };
  if (options.esploraUrl !== undefined) return new EsploraBackend(options.esploraUrl, network, limits);
  if (options.rpcUrl !== undefined) {
    const credentials = {
      ...(options.rpcUser === undefined ? {} : { user: options.rpcUser }),
      ...(options.rpcPassword === undefined ? {} : { password: options.rpcPassword }),
    };
    return new CoreRpcBackend(options.rpcUrl, network, credentials, limits);
  }
  throw new Error('watching Bitcoin needs an Esplora URL or a Bitcoin Core RPC URL');
}
