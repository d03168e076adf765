import type { Account, Address, Chain, PublicClient, Transport, WalletClient } from 'viem';
import type { SwapContractVersion } from '../../domain/order.js';
import { SWAP_CONTRACT_ARTIFACT_ABI, SWAP_CONTRACT_BYTECODE } from './swap-contract-artifact.js';
import { SWAP_CONTRACT_V3_ARTIFACT_ABI, SWAP_CONTRACT_V3_BYTECODE } from './swap-contract-v3-artifact.js';

export interface DeploySwapContractOptions {
  readonly publicClient: PublicClient;
  readonly walletClient: WalletClient<Transport, Chain | undefined, Account>;
  readonly refundDelay: bigint;
  /** Which compiled contract to deploy; both take the refund delay alone. */
  readonly version: SwapContractVersion;
}

/** Deploys the compiled swap contract; the deployer becomes its owner, who alone may `adminRefund` a slot to its funder. */
export async function deploySwapContract(options: DeploySwapContractOptions): Promise<Address> {
  const { publicClient, walletClient, refundDelay } = options;
  const common = { args: [refundDelay] as const, account: walletClient.account, chain: walletClient.chain };
  const hash =
    options.version === 3
      ? await walletClient.deployContract({
          abi: SWAP_CONTRACT_V3_ARTIFACT_ABI,
          bytecode: SWAP_CONTRACT_V3_BYTECODE,
          ...common,
        })
      : await walletClient.deployContract({
          abi: SWAP_CONTRACT_ARTIFACT_ABI,
          bytecode: SWAP_CONTRACT_BYTECODE,
          ...common,
        });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || receipt.contractAddress == null) {
    throw new Error(`the deployment transaction ${hash} failed`);
  }
  return receipt.contractAddress;
}
