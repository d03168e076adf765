import { createPublicClient, createWalletClient, defineChain, type PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { boundedNodeTransport } from '../chains/ethereum/node-transport.js';
import { nodeCallFailureIn } from '../chains/node-faults.js';
import { nodeUrlForLog } from '../domain/node-url.js';
import { UsageError } from './usage-error.js';

// A public chain mines a block every few seconds; polling faster only loads the node.
const RECEIPT_POLLING_MS = 1_000;

/**
 * The node's chain, and clients that read it and send transactions signed here by `account`, through the bounded
 * transport; the chain names the node by its host alone, so no error repeats an API key in its URL.
 */
export async function connectWallet(rpcUrl: string, account: PrivateKeyAccount) {
  const transport = boundedNodeTransport(rpcUrl);
  const chainId = await createPublicClient({ transport }).getChainId();
  const chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [nodeUrlForLog(rpcUrl)] } },
  });
  return {
    chainId,
    publicClient: createPublicClient({ chain, transport, pollingInterval: RECEIPT_POLLING_MS }),
    walletClient: createWalletClient({ chain, transport, account, pollingInterval: RECEIPT_POLLING_MS }),
  };
}

/** A node's failure as one line naming its host and the fault; anything else as it is. */
export function nodeFailureOrItself(error: unknown, rpcUrl: string): unknown {
  const failure = nodeCallFailureIn(error);
  if (failure !== undefined) return failure;
  if (error instanceof TypeError || error instanceof SyntaxError || error instanceof RangeError) {
    return new Error(`the Ethereum node at ${nodeUrlForLog(rpcUrl)} answered something that is not a JSON-RPC result`, {
      cause: error,
    });
  }
  return error;
}

/** 64 hex digits can still fall outside the curve's order; say so, naming the variable, without echoing the key. */
export function accountOfKey(privateKey: `0x${string}`, variable: string): PrivateKeyAccount {
  try {
    return privateKeyToAccount(privateKey);
  } catch {
    throw new UsageError(`${variable} is not a valid secp256k1 private key`);
  }
}
