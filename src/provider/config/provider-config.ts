import { parseDecimalAmount } from '../../domain/amounts.js';
import { outputScriptOfAddress } from '../../domain/bitcoin.js';
import { isEthereumAddress } from '../../domain/ethereum.js';
import { tokenFieldProblem, tokenMarketName, tokenOnchainAsset } from '../../domain/market-catalog.js';
import { findMarket, OFFCHAIN_TICKER_BY_NETWORK, type Market, type Network } from '../../domain/markets.js';
import type { ClaimFeePolicy } from '../rules/claim-fee-bump.js';
import type { MarketPricing } from '../rules/pricing.js';

/** A market's rate: fixed, or read from a JSON endpoint. In base units of the on-chain asset per bitcoin. */
export type RateConfig =
  | { kind: 'fixed'; rate: bigint }
  | {
      kind: 'url';
      url: string;
      field: string;
      timestampField?: string;
      minimum: bigint;
      maximum: bigint;
      maxAgeMs: number;
      refreshMs: number;
    };

export interface MarketConfig {
  market: Market;
  rate: RateConfig;
  /** The pricing without its rate, which the rate source gives. */
  pricing: Omit<MarketPricing, 'onchainPerBitcoin'>;
}

export type LightningConfig =
  | { kind: 'lnd'; url: string; macaroonFile: string; tlsCertFile: string }
  | { kind: 'cln'; url: string; runeFile: string; tlsCertFile: string };

export interface EthereumConfig {
  swapContract: `0x${string}`;
  confirmations: number;
  claimMarginBlocks: number;
  fundingLookbackBlocks: number;
  feePolicy: ClaimFeePolicy;
}

export interface BitcoinConfig {
  /** Where claims pay the funds: an address of the market's network. */
  payoutAddress: string;
  confirmations: number;
  claimMarginBlocks: number;
  /** Blocks from the quote to the HTLC's refund height. */
  timelockBlocks: number;
  feePolicy: ClaimFeePolicy;
}

/** The configuration file: what the provider trades and how, and where its Lightning node is. */
export interface ProviderFileConfig {
  lightning: LightningConfig;
  inventoryLimitMillisatoshis: bigint;
  fundWindowMs: number;
  paymentTimeoutSeconds: number;
  ethereum?: EthereumConfig;
  bitcoin?: BitcoinConfig;
  markets: MarketConfig[];
}

/** A configuration file that cannot be used; the message names the field. */
export class ProviderConfigError extends Error {
  constructor(field: string, problem: string) {
    super(`${field} ${problem}`);
    this.name = 'ProviderConfigError';
  }
}

type Json = Record<string, unknown>;

const MILLISATOSHIS_PER_SATOSHI = 1_000n;
const NETWORK_OF_OFFCHAIN_TICKER = new Map(
  Object.entries(OFFCHAIN_TICKER_BY_NETWORK).map(([network, ticker]) => [ticker, network as Network]),
);

/** Reads the parsed JSON of a configuration file (docs/provider.md, examples/provider.json). */
export function parseProviderConfig(json: unknown): ProviderFileConfig {
  const root = object(json, 'the configuration');
  const ethereum = root.ethereum === undefined ? undefined : parseEthereum(object(root.ethereum, 'ethereum'));
  const bitcoin = root.bitcoin === undefined ? undefined : parseBitcoin(object(root.bitcoin, 'bitcoin'));
  const marketsJson = object(root.markets, 'markets');
  const markets = Object.entries(marketsJson).map(([name, value]) =>
    parseMarket(name, object(value, `markets.${name}`)),
  );
  if (markets.filter(({ market }) => market.onchain.chain === 'bitcoin').length > 1) {
    throw new ProviderConfigError('markets', 'may hold one Bitcoin market: one payout address, one network');
  }
  if (markets.length === 0) throw new ProviderConfigError('markets', 'must name at least one market');
  for (const { market } of markets) {
    if (market.onchain.chain === 'ethereum' && ethereum === undefined) {
      throw new ProviderConfigError(`markets.${market.name}`, 'is an Ethereum market: the ethereum section is missing');
    }
    if (market.onchain.chain !== 'bitcoin') continue;
    if (bitcoin === undefined) {
      throw new ProviderConfigError(`markets.${market.name}`, 'is a Bitcoin market: the bitcoin section is missing');
    }
    // Checked now, not when the first claim is built: by then the invoice is paid.
    if (outputScriptOfAddress(bitcoin.payoutAddress, market.network) === undefined) {
      throw new ProviderConfigError(
        'bitcoin.payoutAddress',
        `must be a P2PKH, P2SH, P2WPKH or P2WSH address of ${market.name}'s network (${market.network})`,
      );
    }
  }
  return {
    lightning: parseLightning(object(root.lightning, 'lightning')),
    inventoryLimitMillisatoshis:
      satoshis(root.inventoryLimitSatoshis, 'inventoryLimitSatoshis') * MILLISATOSHIS_PER_SATOSHI,
    fundWindowMs: whole(root.fundWindowSeconds ?? 900, 'fundWindowSeconds', 300, 86_400) * 1000,
    paymentTimeoutSeconds: whole(root.paymentTimeoutSeconds ?? 60, 'paymentTimeoutSeconds', 1, 3_600),
    ...(ethereum === undefined ? {} : { ethereum }),
    ...(bitcoin === undefined ? {} : { bitcoin }),
    markets,
  };
}

function parseLightning(json: Json): LightningConfig {
  const url = httpsUrl(json.url, 'lightning.url');
  const tlsCertFile = text(json.tlsCertFile, 'lightning.tlsCertFile');
  if (json.kind === 'lnd')
    return { kind: 'lnd', url, tlsCertFile, macaroonFile: text(json.macaroonFile, 'lightning.macaroonFile') };
  if (json.kind === 'cln')
    return { kind: 'cln', url, tlsCertFile, runeFile: text(json.runeFile, 'lightning.runeFile') };
  throw new ProviderConfigError('lightning.kind', 'must be "lnd" (LND REST) or "cln" (Core Lightning clnrest)');
}

function parseEthereum(json: Json): EthereumConfig {
  const swapContract = text(json.swapContract, 'ethereum.swapContract');
  if (!isEthereumAddress(swapContract)) throw new ProviderConfigError('ethereum.swapContract', 'must be an address');
  const fees = object(json.claimFees ?? {}, 'ethereum.claimFees');
  const maximumGwei = fees.maximumGwei ?? '500';
  const maximumWei = typeof maximumGwei === 'string' ? parseDecimalAmount(maximumGwei, 9) : undefined;
  if (maximumWei === undefined || maximumWei === 0n) {
    throw new ProviderConfigError('ethereum.claimFees.maximumGwei', 'must be a positive decimal string');
  }
  return {
    swapContract: swapContract as `0x${string}`,
    confirmations: whole(json.confirmations ?? 2, 'ethereum.confirmations', 1, 1_000),
    claimMarginBlocks: whole(json.claimMarginBlocks ?? 60, 'ethereum.claimMarginBlocks', 1, 100_000),
    fundingLookbackBlocks: whole(json.fundingLookbackBlocks ?? 10_000, 'ethereum.fundingLookbackBlocks', 1, 1_000_000),
    feePolicy: {
      stuckAfterBlocks: whole(fees.stuckAfterBlocks ?? 3, 'ethereum.claimFees.stuckAfterBlocks', 1, 1_000),
      urgentBlocks: whole(fees.urgentBlocks ?? 20, 'ethereum.claimFees.urgentBlocks', 1, 100_000),
      bumpPercent: BigInt(whole(fees.bumpPercent ?? 125, 'ethereum.claimFees.bumpPercent', 110, 1_000)),
      // Ethereum nodes ask no fixed increment: the percentage alone makes a replacement.
      minimumIncrement: 1n,
      // Read with 9 decimals, gwei are wei.
      maximumRate: maximumWei,
    },
  };
}

function parseBitcoin(json: Json): BitcoinConfig {
  const fees = object(json.claimFees ?? {}, 'bitcoin.claimFees');
  return {
    payoutAddress: text(json.payoutAddress, 'bitcoin.payoutAddress'),
    confirmations: whole(json.confirmations ?? 1, 'bitcoin.confirmations', 1, 100),
    claimMarginBlocks: whole(json.claimMarginBlocks ?? 12, 'bitcoin.claimMarginBlocks', 1, 1_000),
    timelockBlocks: whole(json.timelockBlocks ?? 72, 'bitcoin.timelockBlocks', 24, 2_016),
    feePolicy: {
      stuckAfterBlocks: whole(fees.stuckAfterBlocks ?? 2, 'bitcoin.claimFees.stuckAfterBlocks', 1, 1_000),
      urgentBlocks: whole(fees.urgentBlocks ?? 6, 'bitcoin.claimFees.urgentBlocks', 1, 1_000),
      bumpPercent: BigInt(whole(fees.bumpPercent ?? 150, 'bitcoin.claimFees.bumpPercent', 110, 1_000)),
      // BIP 125: a replacement adds at least the incremental relay fee, 1 sat/vB.
      minimumIncrement: 1n,
      maximumRate: BigInt(whole(fees.maximumSatPerVbyte ?? 500, 'bitcoin.claimFees.maximumSatPerVbyte', 1, 100_000)),
    },
  };
}

function parseMarket(name: string, json: Json): MarketConfig {
  const field = `markets.${name}`;
  const market = json.token === undefined ? findMarket(name) : tokenMarket(name, object(json.token, `${field}.token`));
  if (market === undefined)
    throw new ProviderConfigError(field, 'is not a known market (a token market needs "token")');
  const decimals = market.onchain.decimals;
  const minimumSatoshis = satoshis(json.minimumSatoshis, `${field}.minimumSatoshis`);
  const maximumSatoshis = satoshis(json.maximumSatoshis, `${field}.maximumSatoshis`);
  if (maximumSatoshis < minimumSatoshis) {
    throw new ProviderConfigError(`${field}.maximumSatoshis`, 'must not be below minimumSatoshis');
  }
  return {
    market,
    rate: parseRate(object(json.rate, `${field}.rate`), `${field}.rate`, decimals),
    pricing: {
      feeBasisPoints: BigInt(whole(json.feeBasisPoints ?? 0, `${field}.feeBasisPoints`, 0, 10_000)),
      baseFee: amount(json.baseFee ?? '0', `${field}.baseFee`, decimals),
      minimumMillisatoshis: minimumSatoshis * MILLISATOSHIS_PER_SATOSHI,
      maximumMillisatoshis: maximumSatoshis * MILLISATOSHIS_PER_SATOSHI,
      routingFeeLimitBasisPoints: BigInt(
        whole(json.routingFeeLimitBasisPoints ?? 100, `${field}.routingFeeLimitBasisPoints`, 0, 10_000),
      ),
      minimumInvoiceLifetimeMs:
        whole(json.minimumInvoiceLifetimeSeconds ?? 900, `${field}.minimumInvoiceLifetimeSeconds`, 1, 86_400) * 1000,
    },
  };
}

function tokenMarket(name: string, json: Json): Market | undefined {
  const [ticker = '', offchain = ''] = name.toUpperCase().split('_');
  const network = NETWORK_OF_OFFCHAIN_TICKER.get(offchain);
  if (network === undefined) return undefined;
  const token = {
    ticker,
    network,
    address: text(json.address, `markets.${name}.token.address`).toLowerCase(),
    decimals: whole(json.decimals, `markets.${name}.token.decimals`, 0, 36),
  };
  const problem = tokenFieldProblem(token);
  if (problem !== undefined) throw new ProviderConfigError(`markets.${name}.token.${problem.field}`, problem.problem);
  return {
    name: tokenMarketName(token),
    onchain: tokenOnchainAsset(token),
    offchainTicker: offchain,
    network,
  };
}

function parseRate(json: Json, field: string, decimals: number): RateConfig {
  if (json.fixed !== undefined) return { kind: 'fixed', rate: amount(json.fixed, `${field}.fixed`, decimals) };
  const url = text(json.url, `${field}.url (or ${field}.fixed)`);
  try {
    if (!['http:', 'https:'].includes(new URL(url).protocol)) throw new Error('not http');
  } catch {
    throw new ProviderConfigError(`${field}.url`, 'must be an http or https URL');
  }
  const minimum = amount(json.minimum, `${field}.minimum`, decimals);
  const maximum = amount(json.maximum, `${field}.maximum`, decimals);
  if (maximum < minimum || minimum === 0n) {
    throw new ProviderConfigError(`${field}`, 'needs 0 < minimum <= maximum: an answer outside them is refused');
  }
  return {
    kind: 'url',
    url,
    field: text(json.field, `${field}.field`),
    ...(json.timestampField === undefined
      ? {}
      : { timestampField: text(json.timestampField, `${field}.timestampField`) }),
    minimum,
    maximum,
    maxAgeMs: whole(json.maxAgeSeconds ?? 300, `${field}.maxAgeSeconds`, 1, 86_400) * 1000,
    refreshMs: whole(json.refreshSeconds ?? 30, `${field}.refreshSeconds`, 1, 86_400) * 1000,
  };
}

function object(value: unknown, field: string): Json {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProviderConfigError(field, 'must be an object');
  }
  return value as Json;
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new ProviderConfigError(field, 'must be a non-empty string');
  return value;
}

function httpsUrl(value: unknown, field: string): string {
  const url = text(value, field);
  try {
    if (new URL(url).protocol === 'https:') return url;
  } catch {
    // Reported below.
  }
  throw new ProviderConfigError(field, 'must be an https:// URL (both nodes serve REST over TLS only)');
}

function whole(value: unknown, field: string, minimum: number, maximum: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw new ProviderConfigError(field, `must be a whole number from ${minimum} to ${maximum}`);
  }
  return value;
}

/** Whole on-chain units as a decimal string ("0.0002"), never a JSON number: amounts are exact. */
function amount(value: unknown, field: string, decimals: number): bigint {
  const parsed = typeof value === 'string' ? parseDecimalAmount(value, decimals) : undefined;
  if (parsed === undefined) {
    throw new ProviderConfigError(field, `must be a decimal string with at most ${decimals} decimals`);
  }
  return parsed;
}

function satoshis(value: unknown, field: string): bigint {
  return amount(value, field, 0);
}
