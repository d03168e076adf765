/**
 * A wallet paying a Lightning invoice with ether or an ERC-20 token through lnswap, with `@lnswap/client` (in this
 * repository, `src/client`): the swap contract the wallet trusts checked through its own node, the quote, the funding
 * from the wallet's own account (ether: `[fund]`; a token: `[approve, fundToken]`, the approval mined first), each
 * transaction checked against the invoice's payment hash and the contract, the order followed until the invoice is
 * paid, and the refund when it is not. The README of packages/client shows `payInvoice` as it is here
 * (test/client/readme.test.ts holds the two equal; test/client/funding-on-anvil.test.ts runs it on Anvil).
 *
 *   npx tsx examples/wallet-swap.ts --url http://127.0.0.1:8080 --rpc http://127.0.0.1:8545 \
 *     --market SETH_LSBTC --invoice lnbcrt... --payment-hash <64 hex> --swap-contract 0x... --private-key 0x...
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createPublicClient, createWalletClient, defineChain, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
// README:start
import type { Account, Chain, PublicClient, Transport, WalletClient } from 'viem';
import { createLnswapClient, ethereumRefundTransaction } from '../src/client/index.js';
import { fundingTransactions, verifySwapContract } from '../src/client/index.js';

/** Pays an invoice into the swap contract the wallet trusts, checked first: its preimage, or the refund's transaction. */
export async function payInvoice(
  url: string,
  { market, invoice, paymentHash, swapContract }: Record<'market' | 'invoice' | 'paymentHash' | 'swapContract', string>,
  wallet: WalletClient<Transport, Chain, Account>,
  chain: PublicClient,
): Promise<{ preimage: string } | { refundTxId: string }> {
  await verifySwapContract({ client: chain, address: swapContract, maxRefundDelayBlocks: 7200n });
  const client = createLnswapClient({ url });
  try {
    const quote = await client.requestQuote({ market, invoice });
    for (const transaction of fundingTransactions(quote, { paymentHash, swapContract })) {
      await chain.waitForTransactionReceipt({ hash: await wallet.sendTransaction(transaction) });
    }
    const end = await client.waitForState(quote.orderId, ['Complete', 'WaitingForRefundTx']);
    if (end.state === 'Complete' && end.preimage !== undefined) return { preimage: end.preimage };
    const funder = wallet.account.address;
    const refund = await client.requestRefundDetails(quote.orderId, funder);
    const refundTxId = await wallet.sendTransaction(ethereumRefundTransaction(quote.orderId, refund, funder));
    await chain.waitForTransactionReceipt({ hash: refundTxId });
    return { refundTxId };
  } finally {
    client.close();
  }
}
// README:end

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:8080' },
      rpc: { type: 'string', default: 'http://127.0.0.1:8545' },
      market: { type: 'string', default: 'SETH_LSBTC' },
      invoice: { type: 'string' },
      'payment-hash': { type: 'string' },
      'swap-contract': { type: 'string' },
      'private-key': { type: 'string' },
    },
  });
  const { invoice, 'payment-hash': paymentHash, 'swap-contract': swapContract } = values;
  if (invoice === undefined) throw new Error('give --invoice with a BOLT11 invoice to pay');
  if (paymentHash === undefined) throw new Error("give --payment-hash with the invoice's payment hash (64 hex)");
  if (swapContract === undefined) throw new Error('give --swap-contract with the swap contract you trust');
  if (values['private-key'] === undefined) throw new Error('give --private-key of the paying account');
  const transport = http(values.rpc);
  const probe = createPublicClient({ transport });
  const chain = defineChain({
    id: await probe.getChainId(),
    name: 'lnswap',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [values.rpc] } },
  });
  const account = privateKeyToAccount(values['private-key'] as Hex);
  const wallet = createWalletClient({ account, chain, transport });
  const outcome = await payInvoice(
    values.url,
    { market: values.market, invoice, paymentHash, swapContract },
    wallet,
    createPublicClient({ chain, transport }),
  );
  console.log(JSON.stringify(outcome));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
