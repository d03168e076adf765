import { createPublicClient, createWalletClient, defineChain, http, type PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { UsageError } from './usage-error.js';

// A public chain mines a block every few seconds; polling faster only loads the node.
const RECEIPT_POLLING_MS = 1_000;

/** The node's chain, and clients that read it and send transactions signed here by `account`. */
export async function connectWallet(rpcUrl: string, account: PrivateKeyAccount) {
  const transport = http(rpcUrl, { retryCount: 1 });
  const chainId = await createPublicClient({ transport }).getChainId();
  const chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  return {
    chainId,
    publicClient: createPublicClient({ chain, transport, pollingInterval: RECEIPT_POLLING_MS }),
    walletClient: createWalletClient({ chain, transport, account, pollingInterval: RECEIPT_POLLING_MS }),
  };
}

/** 64 hex digits can still fall outside the curve's order; say so, naming the variable, without echoing the key. */
export function accountOfKey(privateKey: `0x${string}`, variable: string): PrivateKeyAccount {
  try {
    return privateKeyToAccount(privateKey);
  } catch {
    throw new UsageError(`${variable} is not a valid secp256k1 private key`);
  }
}
