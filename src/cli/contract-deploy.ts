import { deploySwapContract } from '../chains/ethereum/deploy-swap-contract.js';
import { accountOfKey, connectWallet } from './ethereum-wallet.js';

export interface DeployRequest {
  readonly rpcUrl: string;
  readonly refundDelay: bigint;
  readonly privateKey: `0x${string}`;
}

/** Deploys the swap contract and reports each step through `say`; the address is the last line. */
export async function deployFromCli(request: DeployRequest, say: (line: string) => void): Promise<void> {
  const account = accountOfKey(request.privateKey, 'DEPLOYER_PRIVATE_KEY');
  const { chainId, publicClient, walletClient } = await connectWallet(request.rpcUrl, account);
  say(
    `deploying the swap contract on chain id ${chainId} from ${account.address}, refund delay ${request.refundDelay} blocks`,
  );
  const address = await deploySwapContract({ publicClient, walletClient, refundDelay: request.refundDelay });
  say(address);
}
