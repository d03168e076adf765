import { DEFAULT_HOST } from './settings.js';
import { BITCOIN_SETTINGS, ETHEREUM_SETTINGS, httpUrl, type Setting } from './serve-settings.js';

export const DEFAULT_PROVIDER_STATE = './data/provider.sqlite';
export const DEFAULT_METRICS_PORT = 9464;
export const DEFAULT_POLL_INTERVAL_MS = 2_000;

const path = (text: string) => (text.trim() === '' ? { invalid: 'must name a file' } : text);

/** One table for the flags and variables of `lnswap provider`, as `serve` has (serve-settings.ts). */
export const PROVIDER_SETTINGS: {
  readonly config: Setting<string>;
  readonly serviceUrl: Setting<string>;
  readonly state: Setting<string>;
  readonly ethereumRpc: Setting<string>;
  readonly bitcoinEsplora: Setting<string>;
  readonly bitcoinRpc: Setting<string>;
  readonly metricsHost: Setting<string>;
  readonly metricsPort: Setting<number | 'off'>;
  readonly pollIntervalMs: Setting<number>;
} = {
  config: {
    flag: 'config',
    env: 'LNSWAP_PROVIDER_CONFIG',
    valueName: 'FILE',
    help: 'the JSON configuration file: Lightning node, markets and pricing, chain rules (docs/provider.md)',
    parse: path,
  },
  serviceUrl: {
    flag: 'service-url',
    env: 'LNSWAP_SERVICE_URL',
    valueName: 'URL',
    help: 'the lnswap service to quote for (its HTTP API and socket.io)',
    parse: httpUrl,
  },
  state: {
    flag: 'state',
    env: 'LNSWAP_PROVIDER_STATE',
    valueName: 'FILE',
    help: "the provider's own SQLite state file (quotes, payments, claims); created when missing",
    defaultText: DEFAULT_PROVIDER_STATE,
    parse: path,
  },
  ethereumRpc: { ...ETHEREUM_SETTINGS.rpcUrl, help: 'Ethereum JSON-RPC node to settle and claim with' },
  bitcoinEsplora: {
    ...BITCOIN_SETTINGS.esploraUrl,
    help: 'Esplora REST API to read HTLCs and send claims with; not with --bitcoin-rpc',
  },
  bitcoinRpc: {
    ...BITCOIN_SETTINGS.rpcUrl,
    help: 'Bitcoin Core JSON-RPC to read HTLCs and send claims with; user and password in BITCOIN_RPC_USER and BITCOIN_RPC_PASSWORD (or their _FILE), or in the URL',
  },
  metricsHost: {
    flag: 'metrics-host',
    env: 'LNSWAP_PROVIDER_METRICS_HOST',
    valueName: 'H',
    help: 'address /metrics, /healthz and /readyz listen on',
    defaultText: DEFAULT_HOST,
    parse: (text) => (text.trim() === '' ? { invalid: 'must be an address' } : text),
  },
  metricsPort: {
    flag: 'metrics-port',
    env: 'LNSWAP_PROVIDER_METRICS_PORT',
    valueName: 'N|off',
    help: 'port of /metrics, /healthz and /readyz; 0 for any free one, off for none',
    defaultText: String(DEFAULT_METRICS_PORT),
    parse: (text) =>
      text === 'off'
        ? 'off'
        : /^\d{1,5}$/.test(text) && Number(text) <= 65535
          ? Number(text)
          : { invalid: 'must be a port number from 0 to 65535 or off' },
  },
  pollIntervalMs: {
    flag: 'poll-interval-ms',
    env: 'LNSWAP_PROVIDER_POLL_INTERVAL_MS',
    valueName: 'N',
    help: 'how often orders are followed, outcomes reported and claims watched, in ms',
    defaultText: String(DEFAULT_POLL_INTERVAL_MS),
    parse: (text) =>
      /^\d{1,9}$/.test(text) && Number(text) >= 10
        ? Number(text)
        : { invalid: 'must be a whole number of ms, 10 or more' },
  },
};

/** Secrets the command reads from variables only (or the file a `_FILE` variable names), never from flags. */
export const PROVIDER_SECRETS: readonly { readonly env: string; readonly help: string }[] = [
  { env: 'LNSWAP_PROVIDER_API_KEY', help: 'the API key of `lnswap providers add NAME`' },
  { env: 'LNSWAP_PROVIDER_SECRET_KEY', help: 'its secret key' },
  {
    env: 'LNSWAP_PROVIDER_ETHEREUM_KEY',
    help: "the Ethereum payout account's private key (0x and 64 hex): claims are sent from it and pay it",
  },
  {
    env: 'LNSWAP_PROVIDER_BITCOIN_SEED',
    help: 'the BIP32 seed (hex) the per-order Bitcoin claim keys derive from',
  },
];
