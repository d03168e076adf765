import type { Network } from '../domain/markets.js';
import type { TokenAsset } from '../domain/market-catalog.js';
import type { ChainViews, PayReq, ProviderCredential, ProviderRecord, SwapContract } from '../domain/order.js';
import { swapContractsOf, UNRECORDED_CONTRACT_VERSION } from '../domain/swap-contracts.js';

export interface ChainViewRow {
  chain: string;
  block_height: number;
  fee_tokens_per_virtual_byte: number | null;
  swap_contract_address: string | null;
}

export interface SwapContractRow {
  address: string;
  version: number;
  /** PostgreSQL answers a BIGINT as a string. */
  since: number | string;
}

export interface ProviderRow {
  id: string;
  /** SQLite answers 0/1, PostgreSQL a boolean. */
  active: number | boolean;
}

export interface ProviderMarketRow {
  provider_id: string;
  market: string;
  min_expiration_seconds: string;
  min_base_units: string;
  max_base_units: string;
}

export interface TokenRow {
  ticker: string;
  network: string;
  address: string;
  decimals: number;
}

export interface CredentialRow {
  name: string;
  api_key: string;
  secret_hash: string;
  created_at: number;
  revoked_at: number | null;
  ethereum_payout_address: string | null;
}

/** Rows for `chain_views (chain, block_height, fee_tokens_per_virtual_byte, swap_contract_address)`. */
export function chainViewValues(chains: ChainViews): [string, number, number | null, string | null][] {
  const rows: [string, number, number | null, string | null][] = [];
  if (chains.bitcoin) rows.push(['bitcoin', chains.bitcoin.blockHeight, chains.bitcoin.feeTokensPerVirtualByte, null]);
  if (chains.ethereum) {
    rows.push(['ethereum', chains.ethereum.blockHeight, null, chains.ethereum.swapContractAddress]);
  }
  return rows;
}

/**
 * Rows for `swap_contracts (address, version, since)`: `recorded` replace the stored rows of their address,
 * `unrecorded` (the current contract of a view written without its history) is added only when no row names it.
 */
export function swapContractValues(chains: ChainViews): {
  recorded: [string, number, number][];
  unrecorded: [string, number, number][];
} {
  const ethereum = chains.ethereum;
  if (ethereum === undefined) return { recorded: [], unrecorded: [] };
  return {
    recorded: (ethereum.contracts ?? []).map((contract) => [
      contract.address.toLowerCase(),
      contract.version,
      contract.since,
    ]),
    unrecorded: [[ethereum.swapContractAddress.toLowerCase(), UNRECORDED_CONTRACT_VERSION, 0]],
  };
}

/** The history oldest first: by `since`, then by address for contracts of the same moment. */
function swapContractsFromRows(rows: readonly SwapContractRow[]): SwapContract[] {
  return rows
    .map((row) => ({ address: row.address, version: row.version as SwapContract['version'], since: Number(row.since) }))
    .sort((left, right) => left.since - right.since || compareText(left.address, right.address));
}

/** The schema's CHECKs guarantee each chain's own column is set. */
export function chainViewsFromRows(
  rows: readonly ChainViewRow[],
  contractRows: readonly SwapContractRow[],
): ChainViews {
  const bitcoin = rows.find((row) => row.chain === 'bitcoin');
  const ethereum = rows.find((row) => row.chain === 'ethereum');
  return {
    ...(bitcoin === undefined
      ? {}
      : {
          bitcoin: {
            blockHeight: bitcoin.block_height,
            feeTokensPerVirtualByte: bitcoin.fee_tokens_per_virtual_byte as number,
          },
        }),
    ...(ethereum === undefined
      ? {}
      : {
          ethereum: ethereumView(ethereum, contractRows),
        }),
  };
}

function ethereumView(row: ChainViewRow, contractRows: readonly SwapContractRow[]) {
  const view = { blockHeight: row.block_height, swapContractAddress: row.swap_contract_address as string };
  return { ...view, contracts: swapContractsOf({ ...view, contracts: swapContractsFromRows(contractRows) }) };
}

/** Rows for `tokens (position, ticker, network, address, decimals)`, in configuration order. */
export function tokenValues(tokens: readonly TokenAsset[]): [number, string, string, string, number][] {
  return tokens.map((token, position) => [position, token.ticker, token.network, token.address, token.decimals]);
}

/** The rows must come in `position` order; the schema's CHECK keeps `network` one of the three. */
export function tokensFromRows(rows: readonly TokenRow[]): TokenAsset[] {
  return rows.map((row) => ({
    ticker: row.ticker,
    network: row.network as Network,
    address: row.address,
    decimals: row.decimals,
  }));
}

/** Rows for `provider_markets (market, position, min_expiration_seconds, min_base_units, max_base_units)`. */
export function providerMarketValues(provider: ProviderRecord): [string, number, string, string, string][] {
  return Object.entries(provider.markets).map(([market, payReq], position) => [
    market,
    position,
    payReq.minExpirationSeconds.toString(),
    payReq.minBaseUnits.toString(),
    payReq.maxBaseUnits.toString(),
  ]);
}

function compareText(left: string, right: string): number {
  if (left === right) return 0;
  return left < right ? -1 : 1;
}

/** Providers sorted by id, each provider's markets in `marketRows` order (which must follow `position`). */
export function providersFromRows(
  providerRows: readonly ProviderRow[],
  marketRows: readonly ProviderMarketRow[],
): ProviderRecord[] {
  const marketsByProvider = new Map<string, Record<string, PayReq>>();
  for (const row of marketRows) {
    const markets = marketsByProvider.get(row.provider_id) ?? {};
    markets[row.market] = {
      minExpirationSeconds: BigInt(row.min_expiration_seconds),
      minBaseUnits: BigInt(row.min_base_units),
      maxBaseUnits: BigInt(row.max_base_units),
    };
    marketsByProvider.set(row.provider_id, markets);
  }
  return [...providerRows]
    .sort((left, right) => compareText(left.id, right.id))
    .map((row) => ({ id: row.id, active: Boolean(row.active), markets: marketsByProvider.get(row.id) ?? {} }));
}

export function credentialValues(
  credential: ProviderCredential,
): [string, string, string, number, number | null, string | null] {
  return [
    credential.name,
    credential.apiKey,
    credential.secretHash,
    credential.createdAt,
    credential.revokedAt ?? null,
    credential.ethereumPayoutAddress ?? null,
  ];
}

export function credentialFromRow(row: CredentialRow): ProviderCredential {
  return {
    name: row.name,
    apiKey: row.api_key,
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    ...(row.revoked_at === null ? {} : { revokedAt: row.revoked_at }),
    ...(row.ethereum_payout_address === null ? {} : { ethereumPayoutAddress: row.ethereum_payout_address }),
  };
}

/** Credentials sorted by name. */
export function credentialsFromRows(rows: readonly CredentialRow[]): ProviderCredential[] {
  return rows.map(credentialFromRow).sort((left, right) => compareText(left.name, right.name));
}
