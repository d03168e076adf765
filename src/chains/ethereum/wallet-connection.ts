import { createPublicClient, createWalletClient, defineChain, type PrivateKeyAccount } from 'viem';
import { nodeUrlForLog } from '../../domain/node-url.js';
import { nodeCallFailureIn } from '../node-faults.js';
import { boundedNodeTransport } from './node-transport.js';

// A public chain mines a block every few seconds; polling faster only loads the node.
const RECEIPT_POLLING_MS = 1_000;

/**
 * The node's chain, and clients that read it and send transactions signed here by `account`, through the bounded
 * transport; the chain names the node by its host alone, so no error repeats an API key in its URL. A node that
 * fails the chain id (or answers one that is not) fails with the NodeCallFailed naming the call, out of viem's
 * wrapping, whose first line says only "An unknown RPC error occurred".
 */
export async function connectWallet(rpcUrl: string, account: PrivateKeyAccount) {
  const transport = boundedNodeTransport(rpcUrl);
  const chainId = await createPublicClient({ transport })
    .getChainId()
    .catch((error: unknown) => {
      throw nodeCallFailureIn(error) ?? error;
    });
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
