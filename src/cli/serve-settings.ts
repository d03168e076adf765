import { isEthereumAddress } from '../domain/ethereum.js';
import {
  DEFAULT_ETHEREUM_CONFIRMATIONS,
  DEFAULT_ETHEREUM_POLL_INTERVAL_MS,
} from '../engine/chain-following/ethereum-watch.js';
import { DEFAULT_ENGINE_OPTIONS, resolveEngineOptions, type EngineOptions } from '../engine/operations/options.js';
import {
  DEFAULT_BITCOIN_CONFIRMATIONS,
  DEFAULT_BITCOIN_MEMPOOL_INTERVAL_MS,
  DEFAULT_BITCOIN_POLL_INTERVAL_MS,
  type BitcoinWatchOptions,
} from '../engine/chain-following/bitcoin-watch.js';
import { parseTrustProxy, type TrustProxy } from '../ws/client-address.js';
import { DEFAULT_SOCKET_OPTIONS, type SocketOptions } from '../ws/socket-options.js';
import { secretFromEnv, warnIfCredentialInFlag } from './secrets.js';
import { UsageError } from './usage-error.js';
import { HEAP_GROWING_PERCENT } from './heap-growth.js';

type Environment = Readonly<Record<string, string | undefined>>;

/** One setting of `lnswap serve`: a flag, the environment variable behind it, and how its text is read. */
export interface Setting<T> {
  readonly flag: string;
  readonly env: string;
  readonly valueName: string;
  readonly help: string;
  /** Shown in help and docs; absent when the setting is off by default. */
  readonly defaultText?: string;
  /**
   * The value may carry a credential (a URL's password or API key): it is also read from the file `<env>_FILE`
   * names, a credential given as the flag is warned of, and a refusal never repeats the value.
   */
  readonly secret?: boolean;
  /** Returns the value or a message saying what the value must be. */
  parse(text: string): T | { readonly invalid: string };
}

/**
 * The engine knobs an operator may set; the contract's refund delay is read from the contract itself, and the
 * fund window's grace follows from the chains' poll intervals.
 */
export type EngineSettingName = Exclude<keyof EngineOptions, 'ethereumRefundDelayBlocks' | 'fundWindowGraceMs'>;

const ENGINE_SETTING_HELP: Readonly<Record<EngineSettingName, string>> = {
  quoteDeadlineMs: 'how long providers have to answer a quote request, in ms',
  maxSwapsInFlight: 'live swaps allowed at once, auctions in progress included',
  minFundWindowMs: 'shortest fund window a maker quote may give, in ms',
  maxFundWindowMs: 'longest fund window a maker quote may give, in ms',
  minTimelockBlocks: "lowest Bitcoin HTLC refund height, in blocks above the chain's height",
  maxTimelockBlocks: "highest Bitcoin HTLC refund height, in blocks above the chain's height",
  sweepIntervalMs: 'how often orders whose fund window passed are moved to FundWindowElapsed, in ms',
  chainViewPollIntervalMs: "how often the store's chain views are read for new block heights, in ms",
  presenceIntervalMs: 'how often connected providers are reconciled with the store, in ms',
};

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase();

const wholeNumber = (text: string) => (/^\d{1,15}$/.test(text) ? Number(text) : { invalid: 'must be a whole number' });

/** `quoteDeadlineMs` is `--quote-deadline-ms` and `QUOTE_DEADLINE_MS`, and so on for every knob. */
export const ENGINE_SETTINGS: ReadonlyArray<readonly [EngineSettingName, Setting<number>]> = (
  Object.keys(ENGINE_SETTING_HELP) as EngineSettingName[]
).map((name) => [
  name,
  {
    flag: kebab(name),
    env: snake(name),
    valueName: 'N',
    help: ENGINE_SETTING_HELP[name],
    defaultText: String(DEFAULT_ENGINE_OPTIONS[name]),
    parse: wholeNumber,
  },
]);

export const ETHEREUM_SETTINGS: {
  readonly rpcUrl: Setting<string>;
  readonly swapContractAddress: Setting<string>;
  readonly confirmations: Setting<number>;
  readonly pollIntervalMs: Setting<number>;
} = {
  rpcUrl: {
    flag: 'ethereum-rpc',
    secret: true,
    env: 'ETHEREUM_RPC_URL',
    valueName: 'URL',
    help: 'Ethereum JSON-RPC node to watch (http:// or https://)',
    parse: (text: string) => {
      try {
        const { protocol } = new URL(text);
        if (protocol === 'http:' || protocol === 'https:') return text;
      } catch {
        // Reported below like any other bad value.
      }
      return { invalid: 'must be an http:// or https:// URL of an Ethereum JSON-RPC node' };
    },
  },
  swapContractAddress: {
    flag: 'swap-contract',
    env: 'SWAP_CONTRACT_ADDRESS',
    valueName: 'ADDRESS',
    help: "swap contract to watch, replacing the address of the store's Ethereum chain view",
    parse: (text: string) =>
      isEthereumAddress(text) ? text : { invalid: 'must be an Ethereum address (0x and 40 hex digits)' },
  },
  confirmations: {
    flag: 'ethereum-confirmations',
    env: 'ETHEREUM_CONFIRMATIONS',
    valueName: 'N',
    help: 'blocks a funding, claim or refund needs (its own included) before it counts',
    defaultText: String(DEFAULT_ETHEREUM_CONFIRMATIONS),
    parse: (text: string) =>
      /^\d{1,4}$/.test(text) && Number(text) >= 1 ? Number(text) : { invalid: 'must be a whole number from 1 to 9999' },
  },
  pollIntervalMs: {
    flag: 'ethereum-poll-interval-ms',
    env: 'ETHEREUM_POLL_INTERVAL_MS',
    valueName: 'N',
    help: 'how often the Ethereum node is asked for new blocks, in ms',
    defaultText: String(DEFAULT_ETHEREUM_POLL_INTERVAL_MS),
    parse: (text: string) =>
      /^\d{1,9}$/.test(text) && Number(text) >= 1
        ? Number(text)
        : { invalid: 'must be a whole number of ms, 1 or more' },
  },
};

export const httpUrl = (text: string) => {
  try {
    if (['http:', 'https:'].includes(new URL(text).protocol)) return text;
  } catch {
    // Reported below like any other bad value.
  }
  return { invalid: 'must be an http or https URL' };
};

export const BITCOIN_SETTINGS: {
  readonly esploraUrl: Setting<string>;
  readonly rpcUrl: Setting<string>;
  readonly confirmations: Setting<number>;
  readonly pollIntervalMs: Setting<number>;
  readonly mempoolIntervalMs: Setting<number>;
} = {
  esploraUrl: {
    flag: 'bitcoin-esplora',
    secret: true,
    env: 'BITCOIN_ESPLORA_URL',
    valueName: 'URL',
    help: 'Esplora REST API to watch Bitcoin with (e.g. https://mempool.space/api); not with --bitcoin-rpc',
    parse: httpUrl,
  },
  rpcUrl: {
    flag: 'bitcoin-rpc',
    secret: true,
    env: 'BITCOIN_RPC_URL',
    valueName: 'URL',
    help: 'Bitcoin Core JSON-RPC to watch Bitcoin with; user and password in BITCOIN_RPC_USER and BITCOIN_RPC_PASSWORD (or their _FILE), or in the URL',
    parse: httpUrl,
  },
  confirmations: {
    flag: 'bitcoin-confirmations',
    env: 'BITCOIN_CONFIRMATIONS',
    valueName: 'N',
    help: 'blocks a Bitcoin funding, claim or refund needs (its own included) before it counts',
    defaultText: String(DEFAULT_BITCOIN_CONFIRMATIONS),
    parse: (text: string) =>
      /^\d{1,4}$/.test(text) && Number(text) >= 1 ? Number(text) : { invalid: 'must be a whole number from 1 to 9999' },
  },
  pollIntervalMs: {
    flag: 'bitcoin-poll-interval-ms',
    env: 'BITCOIN_POLL_INTERVAL_MS',
    valueName: 'N',
    help: 'how often the Bitcoin node is asked for new blocks and the fee rate, in ms',
    defaultText: String(DEFAULT_BITCOIN_POLL_INTERVAL_MS),
    parse: (text: string) =>
      /^\d{1,9}$/.test(text) && Number(text) >= 1
        ? Number(text)
        : { invalid: 'must be a whole number of ms, 1 or more' },
  },
  mempoolIntervalMs: {
    flag: 'bitcoin-mempool-interval-ms',
    env: 'BITCOIN_MEMPOOL_INTERVAL_MS',
    valueName: 'N',
    help: "how often the Bitcoin node's mempool is read between polls for new payments, in ms (at most the poll interval)",
    defaultText: String(DEFAULT_BITCOIN_MEMPOOL_INTERVAL_MS),
    parse: (text: string) =>
      /^\d{1,9}$/.test(text) && Number(text) >= 1
        ? Number(text)
        : { invalid: 'must be a whole number of ms, 1 or more' },
  },
};

/** The client-facing bounds an operator behind a load balancer must be able to set. */
export const SOCKET_SETTINGS: {
  readonly trustProxy: Setting<TrustProxy>;
  readonly connectionsPerAddress: Setting<number>;
} = {
  trustProxy: {
    flag: 'trust-proxy',
    env: 'TRUST_PROXY',
    valueName: 'N|ADDRESSES|false',
    help: 'behind proxies: how many are in front, or their addresses, subnets or loopback|linklocal|uniquelocal, comma-separated; per-address limits then count the address the farthest of them saw in X-Forwarded-For',
    defaultText: String(DEFAULT_SOCKET_OPTIONS.trustProxy),
    parse: parseTrustProxy,
  },
  connectionsPerAddress: {
    flag: 'connections-per-address',
    env: 'CONNECTIONS_PER_ADDRESS',
    valueName: 'N',
    help: 'open socket.io connections allowed from one client address to this instance',
    defaultText: String(DEFAULT_SOCKET_OPTIONS.connectionsPerAddress),
    parse: wholeNumber,
  },
};

/**
 * `/metrics` and the per-request counting behind it. On by default; off where nothing scrapes, or to measure what
 * the counting costs (BENCHMARKS.md).
 */
export const METRICS_SETTING: Setting<boolean> = {
  flag: 'metrics',
  env: 'METRICS',
  valueName: 'on|off',
  help: 'serve /metrics for Prometheus and count every request for it',
  defaultText: 'on',
  parse: (text) => (text === 'on' ? true : text === 'off' ? false : { invalid: 'must be on or off' }),
};

/** How far V8 lets the old generation grow between full collections (`heap-growth.ts` says why it is bounded). */
export const HEAP_GROWTH_SETTING: Setting<number> = {
  flag: 'heap-growth-percent',
  env: 'HEAP_GROWTH_PERCENT',
  valueName: 'N',
  help: "growth of V8's old generation past its live size before a full collection, in percent (0: V8 chooses)",
  defaultText: String(HEAP_GROWING_PERCENT),
  // V8 reads the flag as an int; past 300 % the bound is V8's own maximum anyway.
  parse: (text) =>
    /^\d{1,3}$/.test(text) && Number(text) <= 1000
      ? Number(text)
      : { invalid: 'must be a whole number from 0 to 1000' },
};

/** Every setting above, for parseArgs, help and the documentation test. */
export const SERVE_SETTINGS: readonly Setting<unknown>[] = [
  METRICS_SETTING,
  HEAP_GROWTH_SETTING,
  ...Object.values(SOCKET_SETTINGS),
  ...Object.values(ETHEREUM_SETTINGS),
  ...Object.values(BITCOIN_SETTINGS),
  ...ENGINE_SETTINGS.map(([, setting]) => setting),
];

/** Flags win over environment variables, which win over defaults. */
export function readSetting<T>(
  setting: Setting<T>,
  flags: Readonly<Record<string, unknown>>,
  env: Environment,
): T | undefined {
  const flag = flags[setting.flag];
  const fromFlag = typeof flag === 'string';
  if (fromFlag && setting.secret === true) warnIfCredentialInFlag(setting.flag, flag, setting.env, process.stderr);
  const text = fromFlag ? flag : setting.secret === true ? secretFromEnv(setting.env, env) : env[setting.env];
  if (text === undefined) return undefined;
  const value = setting.parse(text);
  if (typeof value === 'object' && value !== null && 'invalid' in value) {
    const source = fromFlag ? `--${setting.flag}` : setting.env;
    throw new UsageError(`${source} ${value.invalid}${setting.secret === true ? '' : `, not "${text}"`}`);
  }
  return value as T;
}

export interface EthereumSettings {
  readonly rpcUrl: string;
  readonly swapContractAddress?: string;
  readonly confirmations: number;
}

export interface ServeSettings {
  readonly engine: Partial<EngineOptions>;
  /** False with `--metrics off`: no `/metrics`, nothing counted for it. */
  readonly metrics: boolean;
  readonly sockets?: Partial<SocketOptions>;
  /** Absent when no node is configured: the service then works from imported chain views. */
  readonly ethereum?: EthereumSettings;
  /** Absent when no Bitcoin node is configured. */
  readonly bitcoin?: BitcoinWatchOptions;
}

/** The Bitcoin node settings: one backend or none; RPC credentials from the environment only, never a flag. */
function readBitcoinSettings(
  flags: Readonly<Record<string, unknown>>,
  env: Environment,
): BitcoinWatchOptions | undefined {
  const esploraUrl = readSetting(BITCOIN_SETTINGS.esploraUrl, flags, env);
  const rpcUrl = readSetting(BITCOIN_SETTINGS.rpcUrl, flags, env);
  if (esploraUrl !== undefined && rpcUrl !== undefined) {
    throw new UsageError(
      'give one Bitcoin backend: --bitcoin-esplora (BITCOIN_ESPLORA_URL) or --bitcoin-rpc (BITCOIN_RPC_URL), not both',
    );
  }
  const confirmations = readSetting(BITCOIN_SETTINGS.confirmations, flags, env) ?? DEFAULT_BITCOIN_CONFIRMATIONS;
  const pollIntervalMs = readSetting(BITCOIN_SETTINGS.pollIntervalMs, flags, env) ?? DEFAULT_BITCOIN_POLL_INTERVAL_MS;
  const mempoolIntervalMs =
    readSetting(BITCOIN_SETTINGS.mempoolIntervalMs, flags, env) ?? DEFAULT_BITCOIN_MEMPOOL_INTERVAL_MS;
  if (esploraUrl !== undefined) return { esploraUrl, confirmations, pollIntervalMs, mempoolIntervalMs };
  if (rpcUrl === undefined) return undefined;
  const rpcUser = secretFromEnv('BITCOIN_RPC_USER', env);
  const rpcPassword = secretFromEnv('BITCOIN_RPC_PASSWORD', env);
  return {
    rpcUrl,
    confirmations,
    pollIntervalMs,
    mempoolIntervalMs,
    ...(rpcUser === undefined ? {} : { rpcUser }),
    ...(rpcPassword === undefined ? {} : { rpcPassword }),
  };
}

export function readServeSettings(flags: Readonly<Record<string, unknown>>, env: Environment): ServeSettings {
  const engine: Partial<Record<EngineSettingName, number>> = {};
  for (const [name, setting] of ENGINE_SETTINGS) {
    const value = readSetting(setting, flags, env);
    if (value !== undefined) engine[name] = value;
  }
  try {
    resolveEngineOptions(engine);
  } catch (error) {
    const names = new Map(ENGINE_SETTINGS.map(([name, setting]) => [name as string, `--${setting.flag}`]));
    const message = (error as Error).message.replace(/^engine option /, '');
    throw new UsageError(message.replace(/\b[a-z]\w+\b/g, (word) => names.get(word) ?? word));
  }
  const trustProxy = readSetting(SOCKET_SETTINGS.trustProxy, flags, env);
  const connectionsPerAddress = readSetting(SOCKET_SETTINGS.connectionsPerAddress, flags, env);
  const sockets: Partial<SocketOptions> = {
    ...(trustProxy === undefined ? {} : { trustProxy }),
    ...(connectionsPerAddress === undefined ? {} : { connectionsPerAddress }),
  };
  const metrics = readSetting(METRICS_SETTING, flags, env) ?? true;
  const base = Object.keys(sockets).length === 0 ? { engine, metrics } : { engine, metrics, sockets };
  const rpcUrl = readSetting(ETHEREUM_SETTINGS.rpcUrl, flags, env);
  const swapContractAddress = readSetting(ETHEREUM_SETTINGS.swapContractAddress, flags, env);
  const confirmations = readSetting(ETHEREUM_SETTINGS.confirmations, flags, env) ?? DEFAULT_ETHEREUM_CONFIRMATIONS;
  const pollIntervalMs = readSetting(ETHEREUM_SETTINGS.pollIntervalMs, flags, env);
  if (rpcUrl === undefined) {
    if (swapContractAddress !== undefined) {
      throw new UsageError('--swap-contract (SWAP_CONTRACT_ADDRESS) needs an Ethereum node: give --ethereum-rpc too');
    }
    return withBitcoin(base, flags, env);
  }
  return withBitcoin(
    {
      ...base,
      ethereum: {
        rpcUrl,
        confirmations,
        ...(swapContractAddress === undefined ? {} : { swapContractAddress }),
        ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
      },
    },
    flags,
    env,
  );
}

function withBitcoin(
  settings: ServeSettings,
  flags: Readonly<Record<string, unknown>>,
  env: Environment,
): ServeSettings {
  const bitcoin = readBitcoinSettings(flags, env);
  return bitcoin === undefined ? settings : { ...settings, bitcoin };
}

/** parseArgs' option table for the settings. */
export function settingOptions(): Record<string, { type: 'string' }> {
  return Object.fromEntries(SERVE_SETTINGS.map((setting) => [setting.flag, { type: 'string' as const }]));
}

/** The help lines of the settings, aligned like the rest of `lnswap serve --help`. */
export function settingsHelp(): string {
  return SERVE_SETTINGS.map((setting) => {
    const variables = setting.secret === true ? `${setting.env} or ${setting.env}_FILE` : setting.env;
    const where = `env ${variables}${setting.defaultText === undefined ? '' : `, default ${setting.defaultText}`}`;
    return `  --${setting.flag} ${setting.valueName}\n               ${setting.help}\n               (${where})`;
  }).join('\n');
}
