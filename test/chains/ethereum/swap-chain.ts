import type { Account, Hex } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../../src/chains/ethereum/swap-contract-artifact.js';
import { orderIdToBytes16 } from '../../../src/domain/order-ids.js';
import { startAnvil, type AnvilNode, type AnvilOptions } from '../../support/anvil.js';

export type Party = 'user' | 'provider' | 'owner';

/** Anvil with the swap contract deployed, and the calls a user, a provider and the owner make on it. */
export interface SwapChain {
  readonly node: AnvilNode;
  readonly rpcUrl: string;
  readonly contractAddress: Hex;
  account(party: Party): Account;
  /** Each call resolves with its transaction id once sent (mined at once unless automine is off). */
  fund(orderId: string, paymentHash: string, value: bigint, from?: Party): Promise<Hex>;
  claim(orderId: string, preimage: string, from?: Party): Promise<Hex>;
  refund(orderId: string, from?: Party): Promise<Hex>;
  adminRefund(orderId: string): Promise<Hex>;
  mine(blocks: number): Promise<void>;
  height(): Promise<number>;
  snapshot(): Promise<Hex>;
  revert(id: Hex): Promise<void>;
  close(): Promise<void>;
}

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
  };
  const send = (from: Party, functionName: 'fund' | 'claim' | 'refund' | 'adminRefund', args: readonly unknown[], value?: bigint) =>
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
    fund: (orderId, paymentHash, value, from = 'user') =>
      send(from, 'fund', [orderIdToBytes16(orderId), `0x${paymentHash}`], value),
    claim: (orderId, preimage, from = 'provider') => send(from, 'claim', [orderIdToBytes16(orderId), `0x${preimage}`]),
    refund: (orderId, from = 'user') => send(from, 'refund', [orderIdToBytes16(orderId)]),
    adminRefund: (orderId) => send('owner', 'adminRefund', [orderIdToBytes16(orderId)]),
    mine: (blocks) => (blocks > 0 ? node.mine(blocks) : Promise.resolve()),
    height: async () => Number(await node.blockNumber()),
    snapshot: () => node.snapshot(),
    revert: (id) => node.revert(id),
    close: () => node.stop(),
  };
}
