import { EthereumBackend } from '../chains/ethereum/ethereum-backend.js';
import { ethereumChainMismatch } from '../domain/chain-networks.js';
import { catalogOf } from '../domain/market-catalog.js';
import { swapContractsOf, switchSwapContract } from '../domain/swap-contracts.js';
import type { ChainWatchStore, ConfigurationReadStore } from '../store/store.js';
import { nodeFailureOrItself } from './ethereum-wallet.js';

export interface UseContractRequest {
  readonly rpcUrl: string;
  /** The swap contract new quotes are to use. */
  readonly address: string;
}

/**
 * Makes the contract at `request.address` the one new quotes use, keeping every earlier contract in the history so
 * the orders made on them stay watched, claimed and refunded there. Its code must be lnswap's swap contract, whose
 * version it tells (`NotSwapContract` otherwise), on a node whose chain fits the offered markets. Reports the
 * history through `say`, oldest first.
 */
export async function useContractFromCli(
  store: ConfigurationReadStore & ChainWatchStore,
  request: UseContractRequest,
  say: (line: string) => void,
  now: () => number = Date.now,
): Promise<void> {
  const backend = new EthereumBackend({ rpcUrl: request.rpcUrl, swapContractAddress: request.address });
  try {
    const configuration = await store.getConfiguration();
    const { chainId = 0 } = await backend.identity();
    const mismatch = ethereumChainMismatch(chainId, configuration.markets, catalogOf(configuration));
    if (mismatch !== undefined) throw new Error(`refusing the Ethereum node: ${mismatch}`);
    const version = await backend.swapContractVersion();
    const view = configuration.chains.ethereum ?? {
      blockHeight: (await backend.tip()).height,
      swapContractAddress: request.address,
    };
    const switched = switchSwapContract(view, { address: request.address, version, since: now() });
    await store.setChainViews({ ethereum: switched });
    for (const contract of swapContractsOf(switched)) {
      const since = contract.since === 0 ? 'before the history' : new Date(contract.since).toISOString();
      const current = contract.address === request.address.toLowerCase() ? ' (current: new quotes)' : '';
      say(`${contract.address} version ${contract.version} since ${since}${current}`);
    }
  } catch (error) {
    throw nodeFailureOrItself(error, request.rpcUrl);
  } finally {
    await backend.close();
  }
}
