import type { Account, Address, Chain, PublicClient, Transport, WalletClient } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI, SWAP_CONTRACT_BYTECODE } from './swap-contract-artifact.js';

export interface DeploySwapContractOptions {
  readonly publicClient: PublicClient;
  readonly walletClient: WalletClient<Transport, Chain | undefined, Account>;
  readonly refundDelay: bigint;
}

/** Deploys the compiled swap contract; the deployer becomes its owner, who alone may `adminRefund` a slot to its funder. */
export async function deploySwapContract(options: DeploySwapContractOptions): Promise<Address> {
  const { publicClient, walletClient, refundDelay } = options;
  const hash = await walletClient.deployContract({
    abi: SWAP_CONTRACT_ARTIFACT_ABI,
    bytecode: SWAP_CONTRACT_BYTECODE,
    args: [refundDelay],
    account: walletClient.account,
    chain: walletClient.chain,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || receipt.contractAddress == null) {
    throw new Error(`the deployment transaction ${hash} failed`);
  }
  return receipt.contractAddress;
}
