import type { Logger } from 'pino';
import type { Hex } from 'viem';
import type { BitcoinNodeAddress } from '../../chains/bitcoin/open-bitcoin-backend.js';
import type { LightningBackend } from '../../chains/lightning/lightning-backend.js';
import type { ProviderFileConfig } from '../config/provider-config.js';
import type { ProviderCredentials } from '../service-link/provider-credentials.js';

/** Everything `lnswap provider` reads from its flags, variables and configuration file. */
export interface ProviderDaemonConfig {
  /** The lnswap service's base URL (HTTP API and socket.io). */
  serviceUrl: string;
  credentials: ProviderCredentials;
  /** The provider's SQLite state file. */
  stateFile: string;
  /** How often the loop goes round. */
  pollIntervalMs: number;
  /** Where `/metrics`, `/healthz` and `/readyz` listen; none when absent. */
  probes?: { host: string; port: number };
  file: ProviderFileConfig;
  /** The Ethereum node and the payout account's key: needed when an Ethereum market is served. */
  ethereum?: { rpcUrl: string; payoutKey: Hex };
  /** The Bitcoin node and the seed the claim keys derive from: needed when a Bitcoin market is served. */
  bitcoin?: { node: BitcoinNodeAddress; seed: Uint8Array };
  /** Bounds each call to the service (acks, reads). Default 10 s. */
  serviceTimeoutMs?: number;
}

export interface ProviderDaemonDeps {
  logger: Logger;
  /** The node that pays: LND or Core Lightning, or the demo's simulated payee. */
  lightning: LightningBackend;
  now?: () => number;
}
