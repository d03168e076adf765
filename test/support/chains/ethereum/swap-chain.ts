import type { Account, Address, Hex } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../../../src/chains/ethereum/swap-contract-artifact.js';
import { orderIdToBytes16 } from '../../../../src/domain/order-ids.js';
import type { StoreConfiguration } from '../../../../src/store/store.js';
import { startAnvil, type AnvilNode, type AnvilOptions } from '../../anvil.js';
import { configuration } from '../../fixtures.js';

/** Anvil's accounts by role: `wallet2` is a second account of the same user, `attacker` a third party. */
export type Party = 'owner' | 'user' | 'provider' | 'attacker' | 'wallet2';

/** Anvil with the swap contract (v2) deployed, and the calls a user, a provider, an attacker and the owner make on it. */
export interface SwapChain {
  readonly node: AnvilNode;
  readonly rpcUrl: string;
  readonly contractAddress: Hex;
  account(party: Party): Account;
  /** Lowercase address of a party: what orders store as their claimer and observations as funders. */
  address(party: Party): string;
  /**
   * Each call resolves with its transaction id once sent (mined at once unless automine is off).
   * `fund` fills `from`'s slot with `value` wei, naming `claimer` (the provider's account unless given).
   */
  fund(orderId: string, paymentHash: string, value: bigint, from?: Party, claimer?: string): Promise<Hex>;
  /** Claims `funder`'s slot of the order with the preimage, sent by `from`. */
  claim(orderId: string, preimage: string, funder?: Party, from?: Party): Promise<Hex>;
  refund(orderId: string, from?: Party): Promise<Hex>;
  adminRefund(orderId: string, funder?: Party): Promise<Hex>;
  /** Wei a party holds now. */
  balance(party: Party): Promise<bigint>;
  mine(blocks: number): Promise<void>;
  height(): Promise<number>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  close(): Promise<void>;
}

/** The service's configuration for one market on this chain's swap contract, watched from `blockHeight`, no providers. */
export function swapChainConfiguration(
  chain: { readonly contractAddress: string },
  market: string,
  blockHeight = 0,
): StoreConfiguration {
  return configuration({
    markets: [market],
    chains: { ethereum: { blockHeight, swapContractAddress: chain.contractAddress } },
    providers: [],
  });
}

type SwapFunction = 'fund' | 'claim' | 'refund' | 'adminRefund';

export async function startSwapChain(options: AnvilOptions & { refundDelay: number }): Promise<SwapChain> {
  const node = await startAnvil(options);
  const contractAddress = await node.deploySwapContract(BigInt(options.refundDelay)).catch(async (error: unknown) => {
    await node.stop();
    throw error;
  });
  const parties: Record<Party, Account> = {
    owner: node.accounts[0]!,
    user: node.accounts[1]!,
    provider: node.accounts[2]!,
    attacker: node.accounts[3]!,
    wallet2: node.accounts[4]!,
  };
  const address = (party: Party) => parties[party].address.toLowerCase();
  const send = (from: Party, functionName: SwapFunction, args: readonly unknown[], value?: bigint) =>
    node.wallet(parties[from]).writeContract({
      address: contractAddress,
      abi: SWAP_CONTRACT_ARTIFACT_ABI,
      functionName,
      args: args as never,
      ...(value === undefined ? {} : { value }),
    } as never);
  return {
    node,
    rpcUrl: node.rpcUrl,
    contractAddress,
    account: (party) => parties[party],
    address,
    fund: (orderId, paymentHash, value, from = 'user', claimer = address('provider')) =>
      send(from, 'fund', [orderIdToBytes16(orderId), `0x${paymentHash}`, claimer as Address], value),
    claim: (orderId, preimage, funder = 'user', from = 'provider') =>
      send(from, 'claim', [orderIdToBytes16(orderId), parties[funder].address, `0x${preimage}`]),
    refund: (orderId, from = 'user') => send(from, 'refund', [orderIdToBytes16(orderId)]),
    adminRefund: (orderId, funder = 'user') =>
      send('owner', 'adminRefund', [orderIdToBytes16(orderId), parties[funder].address]),
    balance: (party) => node.publicClient.getBalance({ address: parties[party].address }),
    mine: (blocks) => (blocks > 0 ? node.mine(blocks) : Promise.resolve()),
    height: async () => Number(await node.blockNumber()),
    snapshot: () => node.snapshot(),
    revert: (id) => node.revert(id),
    close: () => node.stop(),
  };
}
