import { parseBaseUnits } from '../domain/amounts.js';
import { isEthereumAddress } from '../domain/ethereum.js';
import { catalogOf, tokenListProblem, type MarketCatalog, type TokenAsset } from '../domain/market-catalog.js';
import type { ChainKind, Network } from '../domain/markets.js';
import type { BitcoinChainView, ChainViews, EthereumChainView, PayReq, ProviderRecord } from '../domain/order.js';
import type { StoreConfiguration } from '../store/store.js';
import {
  fail,
  fieldPath,
  readArray,
  readBoolean,
  readBoundedUnits,
  readNonNegativeInteger,
  readNonNegativeNumber,
  readObject,
  readString,
} from './fields.js';
import { FieldError, recordError, SnapshotError } from './snapshot-error.js';
import { SNAPSHOT_VERSION } from './snapshot-format.js';

/** The snapshot's top-level members besides `orders`, as parsed JSON. */
export interface SnapshotHeader {
  readonly version: unknown;
  readonly markets: unknown;
  readonly chains: unknown;
  readonly providers: unknown;
  /** Absent when the snapshot configures no token. */
  readonly tokens?: unknown;
}

const CHAINS_FIELDS = new Set(['bitcoin', 'ethereum']);
const BITCOIN_FIELDS = new Set(['blockHeight', 'feeTokensPerVirtualByte']);
const ETHEREUM_FIELDS = new Set(['blockHeight', 'swapContractAddress']);
const TOKEN_FIELDS = new Set(['ticker', 'network', 'address', 'decimals']);
const PROVIDER_FIELDS = new Set(['id', 'active', 'markets']);
const PAY_REQ_FIELDS = new Set(['minExpirationSeconds', 'minBaseUnits', 'maxBaseUnits']);
const MAX_PROVIDER_ID_LENGTH = 128;
const CONTROL_CHARACTER = /\p{Cc}/u;

export function validateVersion(version: unknown): void {
  if (version !== SNAPSHOT_VERSION) {
    throw new SnapshotError(`version: must be ${SNAPSHOT_VERSION} (the only snapshot version this lnswap reads)`);
  }
}

/** Checks every header member; throws SnapshotError naming the first bad record and field. */
export function validateConfiguration(header: SnapshotHeader): StoreConfiguration {
  validateVersion(header.version);
  const tokens = validateTokens(header.tokens);
  const catalog = catalogOf({ tokens });
  const markets = atTopLevel(() => readMarkets(header.markets, catalog));
  const chains = atTopLevel(() => readChains(header.chains, markets, catalog));
  const providers = readProviders(header.providers, new Set(markets), catalog);
  return { markets, chains, providers, tokens };
}

/** The snapshot's `tokens`, absent meaning none; throws SnapshotError naming the first bad token and field. */
export function validateTokens(value: unknown): TokenAsset[] {
  if (value === undefined) return [];
  const entries = atTopLevel(() => readArray(value, 'tokens'));
  const tokens = entries.map((entry, index) => {
    try {
      return readToken(entry);
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      throw recordError(`tokens[${index}]`, error);
    }
  });
  const problem = tokenListProblem(tokens);
  if (problem !== undefined) {
    throw recordError(`tokens[${problem.index}]`, new FieldError(problem.field, problem.problem));
  }
  return tokens;
}

function readToken(value: unknown): TokenAsset {
  const token = readObject(value, '', TOKEN_FIELDS);
  return {
    ticker: readString(token.ticker, 'ticker'),
    network: readString(token.network, 'network') as Network,
    address: readString(token.address, 'address'),
    decimals: readNonNegativeInteger(token.decimals, 'decimals'),
  };
}

function atTopLevel<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof FieldError) throw new SnapshotError(error.message);
    throw error;
  }
}

function readMarkets(value: unknown, catalog: MarketCatalog): string[] {
  const names: string[] = [];
  readArray(value, 'markets').forEach((entry, index) => {
    const field = `markets[${index}]`;
    const market = catalog.findMarket(readString(entry, field));
    if (market === undefined) {
      fail(field, `not a known market (known: ${catalog.markets.map((m) => m.name).join(', ')})`);
    }
    if (names.includes(market.name)) fail(field, `repeats ${market.name}`);
    names.push(market.name);
  });
  return names;
}

function readChains(value: unknown, markets: readonly string[], catalog: MarketCatalog): ChainViews {
  const chains = readObject(value, 'chains', CHAINS_FIELDS);
  const views: { bitcoin?: BitcoinChainView; ethereum?: EthereumChainView } = {};
  if (chains.bitcoin !== undefined) {
    const bitcoin = readObject(chains.bitcoin, 'chains.bitcoin', BITCOIN_FIELDS);
    views.bitcoin = {
      blockHeight: readNonNegativeInteger(bitcoin.blockHeight, 'chains.bitcoin.blockHeight'),
      feeTokensPerVirtualByte: readNonNegativeNumber(
        bitcoin.feeTokensPerVirtualByte,
        'chains.bitcoin.feeTokensPerVirtualByte',
      ),
    };
  }
  if (chains.ethereum !== undefined) {
    const ethereum = readObject(chains.ethereum, 'chains.ethereum', ETHEREUM_FIELDS);
    const field = 'chains.ethereum.swapContractAddress';
    const swapContractAddress = readString(ethereum.swapContractAddress, field);
    if (!isEthereumAddress(swapContractAddress)) fail(field, 'not an Ethereum address');
    views.ethereum = {
      blockHeight: readNonNegativeInteger(ethereum.blockHeight, 'chains.ethereum.blockHeight'),
      swapContractAddress,
    };
  }
  for (const name of markets) {
    const chain: ChainKind = catalog.findMarket(name)!.onchain.chain;
    if (views[chain] === undefined) fail(`chains.${chain}`, `required by the offered market ${name}`);
  }
  return views;
}

function readProviders(value: unknown, offeredMarkets: ReadonlySet<string>, catalog: MarketCatalog): ProviderRecord[] {
  const entries = atTopLevel(() => readArray(value, 'providers'));
  const firstIndexById = new Map<string, number>();
  const providers = entries.map((entry, index) => {
    try {
      const provider = readProvider(entry, offeredMarkets, catalog);
      const earlier = firstIndexById.get(provider.id);
      if (earlier !== undefined) fail('id', `repeats providers[${earlier}]`);
      firstIndexById.set(provider.id, index);
      return provider;
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      throw recordError(providerLabel(entry, index), error);
    }
  });
  return providers.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** An id holding a control character (a NUL, a line break) is left out: the message stays one printable line. */
function providerLabel(entry: unknown, index: number): string {
  const id = typeof entry === 'object' && entry !== null ? (entry as { id?: unknown }).id : undefined;
  return typeof id === 'string' && id !== '' && !CONTROL_CHARACTER.test(id)
    ? `providers[${index}] (id ${id})`
    : `providers[${index}]`;
}

function readProvider(value: unknown, offeredMarkets: ReadonlySet<string>, catalog: MarketCatalog): ProviderRecord {
  const provider = readObject(value, '', PROVIDER_FIELDS);
  const id = readString(provider.id, 'id');
  if (id.trim() === '' || id.length > MAX_PROVIDER_ID_LENGTH) {
    fail('id', `must be 1 to ${MAX_PROVIDER_ID_LENGTH} characters, not only spaces`);
  }
  const active = readBoolean(provider.active, 'active');
  const offered = readObject(provider.markets, 'markets');
  const markets: Record<string, PayReq> = {};
  for (const [key, payReq] of Object.entries(offered)) {
    const field = fieldPath('markets', key);
    const market = catalog.findMarket(key);
    if (market === undefined) fail(field, 'not a known market');
    if (!offeredMarkets.has(market.name)) fail(field, "not one of the snapshot's markets");
    if (Object.hasOwn(markets, market.name)) fail(field, `repeats ${market.name}`);
    markets[market.name] = readPayReq(payReq, field);
  }
  return { id, active, markets };
}

function readPayReq(value: unknown, field: string): PayReq {
  const payReq = readObject(value, field, PAY_REQ_FIELDS);
  const read = (key: keyof PayReq): bigint => {
    const keyField = fieldPath(field, key);
    const value = payReq[key];
    if (value === undefined) fail(keyField, 'required');
    const units = typeof value === 'string' ? readBoundedUnits(value, keyField, parseBaseUnits) : undefined;
    return units ?? fail(keyField, 'must be a decimal integer string');
  };
  const result: PayReq = {
    minExpirationSeconds: read('minExpirationSeconds'),
    minBaseUnits: read('minBaseUnits'),
    maxBaseUnits: read('maxBaseUnits'),
  };
  if (result.minBaseUnits > result.maxBaseUnits) fail(fieldPath(field, 'minBaseUnits'), 'is larger than maxBaseUnits');
  return result;
}
