import type { MarketCatalog } from './market-catalog.js';
import type { Market, Network } from './markets.js';

/** Ethereum mainnet's chain id (EIP-155); every other id is some test chain. */
export const ETHEREUM_MAINNET_CHAIN_ID = 1;

/** The chain ids of local development chains: Anvil and Hardhat (31337), geth --dev and Ganache (1337). */
export const ETHEREUM_DEVELOPMENT_CHAIN_IDS: readonly number[] = [1337, 31337];

/**
 * The network an Ethereum chain id belongs to: 1 is mainnet, a development chain's id simnet (REDSHIFT's
 * `ganache_simnet`), any other a public test network (REDSHIFT's `kovan_testnet`; Sepolia, Holesky today).
 */
export function ethereumNetworkOf(chainId: number): Network {
  if (chainId === ETHEREUM_MAINNET_CHAIN_ID) return 'mainnet';
  return ETHEREUM_DEVELOPMENT_CHAIN_IDS.includes(chainId) ? 'simnet' : 'testnet';
}

/** Whether orders and transactions of `network` belong on the Ethereum chain `chainId`. */
export function ethereumChainFitsNetwork(chainId: number, network: Network): boolean {
  return ethereumNetworkOf(chainId) === network;
}

/** Whether an Ethereum node with this chain id may carry this market's orders. */
export function ethereumChainFitsMarket(chainId: number, market: Market): boolean {
  return market.onchain.chain !== 'ethereum' || ethereumChainFitsNetwork(chainId, market.network);
}

/**
 * Why an Ethereum node with this chain id must not be watched for the offered markets, or undefined when it may.
 * Each market only on a chain of its network: a mainnet order followed on a test chain would be paid for with
 * worthless coins, a test order on mainnet would move real ones, and a testnet order on a development chain
 * would be paid for with coins nobody else can check.
 */
export function ethereumChainMismatch(
  chainId: number,
  offeredMarkets: readonly string[],
  catalog: MarketCatalog,
): string | undefined {
  const misfits = offeredMarkets
    .map((name) => catalog.findMarket(name))
    .filter((market): market is Market => market !== undefined && !ethereumChainFitsMarket(chainId, market));
  if (misfits.length === 0) return undefined;
  const names = misfits.map((market) => `${market.name} (${market.network})`).join(', ');
  const development = ETHEREUM_DEVELOPMENT_CHAIN_IDS.join(' or ');
  return (
    `the Ethereum node's chain id ${chainId} does not fit the offered market ${names}: it is a ${ethereumNetworkOf(chainId)} ` +
    `chain (mainnet is chain id 1, simnet a development chain, ${development}, testnet any other)`
  );
}
