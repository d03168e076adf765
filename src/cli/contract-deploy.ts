import { createPublicClient, createWalletClient, defineChain } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { deploySwapContract } from '../chains/ethereum/deploy-swap-contract.js';
import { boundedNodeTransport } from '../chains/ethereum/node-transport.js';
import { nodeCallFailureIn } from '../chains/node-faults.js';
import { nodeUrlForLog } from '../domain/node-url.js';
import type { SwapContractVersion } from '../domain/order.js';
import { UsageError } from './usage-error.js';

export interface DeployRequest {
  readonly rpcUrl: string;
  readonly refundDelay: bigint;
  readonly version: SwapContractVersion;
  readonly privateKey: `0x${string}`;
}

// A public chain mines a block every few seconds; polling faster only loads the node.
const RECEIPT_POLLING_MS = 1_000;

/**
 * Deploys the swap contract and reports each step through `say`; the address is the last line. A node that
 * fails or answers nonsense is named by its host alone, with what went wrong.
 */
export async function deployFromCli(request: DeployRequest, say: (line: string) => void): Promise<void> {
  const account = accountFor(request.privateKey);
  try {
    await deploy(request, account, say);
  } catch (error) {
    const failure = nodeCallFailureIn(error);
    if (failure !== undefined) throw failure;
    if (error instanceof TypeError || error instanceof SyntaxError || error instanceof RangeError) {
      throw new Error(
        `the Ethereum node at ${nodeUrlForLog(request.rpcUrl)} answered something that is not a JSON-RPC result`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}

async function deploy(request: DeployRequest, account: ReturnType<typeof accountFor>, say: (line: string) => void) {
  const transport = boundedNodeTransport(request.rpcUrl);
  const probe = createPublicClient({ transport });
  const chainId = await probe.getChainId();
  const chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [nodeUrlForLog(request.rpcUrl)] } },
  });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: RECEIPT_POLLING_MS });
  const walletClient = createWalletClient({ chain, transport, account, pollingInterval: RECEIPT_POLLING_MS });
  say(
    `deploying the swap contract version ${request.version} on chain id ${chainId} from ${account.address}, refund delay ${request.refundDelay} blocks`,
  );
  const address = await deploySwapContract({
    publicClient,
    walletClient,
    refundDelay: request.refundDelay,
    version: request.version,
  });
  say(address);
}

/** 64 hex digits can still fall outside the curve's order; say so without echoing the key. */
function accountFor(privateKey: `0x${string}`) {
  try {
    return privateKeyToAccount(privateKey);
  } catch {
    throw new UsageError('DEPLOYER_PRIVATE_KEY is not a valid secp256k1 private key');
  }
}
