import type { Account, Address, Chain, PublicClient, Transport, WalletClient } from 'viem';
import { DEMO_TOKEN_ARTIFACT_ABI, DEMO_TOKEN_BYTECODE } from './demo-token-artifact.js';

export interface DeployDemoTokenOptions {
  readonly publicClient: PublicClient;
  readonly walletClient: WalletClient<Transport, Chain | undefined, Account>;
  readonly name: string;
  readonly symbol: string;
  /** Base units per whole token as a power of ten (6 for USDC-like, 18 for ether-like). */
  readonly decimals: number;
}

/** Deploys the demo ERC-20; the deployer becomes its only minter. */
export async function deployDemoToken(options: DeployDemoTokenOptions): Promise<Address> {
  const { publicClient, walletClient, name, symbol, decimals } = options;
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) {
    throw new Error(`decimals must be an integer from 0 to 255, got ${decimals}`);
  }
  const hash = await walletClient.deployContract({
    abi: DEMO_TOKEN_ARTIFACT_ABI,
    bytecode: DEMO_TOKEN_BYTECODE,
    args: [name, symbol, decimals],
    account: walletClient.account,
    chain: walletClient.chain,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || receipt.contractAddress == null) {
    throw new Error(`the deployment transaction ${hash} failed`);
  }
  return receipt.contractAddress;
}
