import { formatEther, publicActions, type Hex } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../chains/ethereum/swap-contract-artifact.js';
import { fundingTransactions, type EthereumTransaction } from '../client/ethereum-transactions.js';
import { verifySwapContract } from '../client/verify-swap-contract.js';
import type { FundingDetailsView } from '../wire/response-shapes.js';
import { orderIdToBytes16 } from '../domain/order-ids.js';
import { call, connectBotSocket } from './bot-socket.js';
import type { DemoWallet } from './ethereum/local-chain.js';

export interface StateChanged {
  readonly orderId: string;
  readonly state: string;
  readonly transactionId?: string;
  readonly preimage?: string;
}

export interface UserSwap {
  readonly url: string;
  readonly market: string;
  /** The on-chain asset's ticker, for the printed lines. */
  readonly ticker: string;
  readonly invoice: string;
  /** The invoice's payment hash, 64 hex: the funding must be locked to it. */
  readonly paymentHash: string;
  /** The demo's swap contract, as a wallet that trusts one deployment knows it. */
  readonly swapContract: string;
  readonly wallet: DemoWallet;
  /** Serialises the wallet's transactions. */
  readonly transact: <T>(task: () => Promise<T>) => Promise<T>;
  /** Hears the quote, every state change and what the user does. */
  readonly onQuote: (orderId: string, amount: string) => void;
  readonly onState: (change: StateChanged) => void;
  readonly report: (orderId: string, step: string) => void;
}

const FINAL_STATES = new Set(['Complete', 'Refunded', 'FundWindowElapsed']);

/**
 * One user of the real /user/v1 protocol paying an invoice with ether or a token: asks for a quote, follows the
 * order, checks the swap contract's code through its own node and the quote's transactions against the invoice and
 * that contract (the client library's checks), signs and sends them (a token's approval, mined, then the funding
 * call), and takes the coins back once the order waits for its refund: at once with `details.data` of the refund
 * details when the provider signed the refund away (`CooperativeRefund`), with the contract's `refund` otherwise.
 * Resolves with the order's final state.
 */
export async function runUserSwap(swap: UserSwap, signal: AbortSignal): Promise<string> {
  const socket = await connectBotSocket(swap.url, '/user/v1');
  let onAbort = () => {};
  try {
    const request = { market: swap.market, invoice: swap.invoice };
    const quote = (await call(socket, 'requestQuote', request)) as FundingDetailsView;
    swap.onQuote(quote.orderId, quote.amount);
    await verifySwapContract({ client: swap.wallet.extend(publicActions), address: swap.swapContract });
    // [fund] for ether, [approve, fundToken] for a token: the funding is the last.
    const { paymentHash, swapContract } = swap;
    const transactions = fundingTransactions(quote, { paymentHash, swapContract });
    const fundingTx = transactions.at(-1)!;
    const approvalTx = transactions.length === 2 ? transactions[0] : undefined;
    const final = new Promise<string>((resolve, reject) => {
      socket.on('stateChanged', (change: StateChanged) => {
        if (change.orderId !== quote.orderId) return;
        swap.onState(change);
        if (change.state === 'WaitingForRefundTx') {
          const ether = approvalTx === undefined;
          takeBack(swap, socket, fundingTx.to, quote.orderId, ether).catch((error: unknown) =>
            reject(error as Error),
          );
        }
        if (FINAL_STATES.has(change.state)) resolve(change.state);
      });
      onAbort = () => reject(new Error('stopped'));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    // Settled before it is awaited (stopped while funding), it must not count as unhandled.
    final.catch(() => undefined);
    await call(socket, 'subscribeToOrderState', { orderId: quote.orderId });
    if (approvalTx !== undefined) {
      // The funding call's gas estimate reverts until the approval is mined.
      const approval = await swap.transact(async () => {
        const hash = await send(swap.wallet, approvalTx);
        const receipt = await swap.wallet.extend(publicActions).waitForTransactionReceipt({ hash });
        if (receipt.status !== 'success') throw new Error(`the approval ${hash} reverted`);
        return hash;
      });
      swap.report(quote.orderId, `user: lets the swap contract take ${quote.amount} ${swap.ticker}, tx ${approval}`);
    }
    const hash = await swap.transact(() => send(swap.wallet, fundingTx));
    swap.report(quote.orderId, `user: funds ${quote.amount} ${swap.ticker} through the swap contract, tx ${hash}`);
    return await final;
  } finally {
    signal.removeEventListener('abort', onAbort);
    socket.close();
  }
}

interface RefundDetails {
  readonly type: string;
  readonly details: { to: Hex; data: Hex };
}

/**
 * The user's refund: the provider's signed one (`refundCooperative`, sent now from the user's wallet, its balance
 * printed once it is mined), or the timelock's.
 */
async function takeBack(
  swap: UserSwap,
  socket: Parameters<typeof call>[0],
  contractAddress: Hex,
  orderId: string,
  ether: boolean,
): Promise<void> {
  const funder = swap.wallet.account.address;
  const answer = (await call(socket, 'requestRefundDetails', { orderId, funder })) as RefundDetails;
  if (answer.type !== 'CooperativeRefund') return refund(swap, contractAddress, orderId);
  const startedAt = Date.now();
  const chain = swap.wallet.extend(publicActions);
  const hash = await swap.transact(async () => {
    const sent = await send(swap.wallet, { ...answer.details, value: 0n });
    const receipt = await chain.waitForTransactionReceipt({ hash: sent });
    if (receipt.status !== 'success') throw new Error(`the cooperative refund ${sent} reverted`);
    return sent;
  });
  swap.report(
    orderId,
    `user: the provider signed the refund away, takes the coins back at once (refundCooperative), tx ${hash}, ` +
      `mined ${Date.now() - startedAt} ms later`,
  );
  if (ether) {
    const balance = await chain.getBalance({ address: funder });
    swap.report(orderId, `user: balance back to ${formatEther(balance)} ${swap.ticker}`);
  }
}

const send = (wallet: DemoWallet, tx: EthereumTransaction) => wallet.sendTransaction(tx);

/** The node may still see the refund height's block as the latest when estimating: a block later it cannot. */
const REFUND_ATTEMPTS = 3;
const REFUND_RETRY_MS = 1_000;

async function refund(swap: UserSwap, contractAddress: `0x${string}`, orderId: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const hash = await swap.transact(() =>
        swap.wallet.writeContract({
          address: contractAddress,
          abi: SWAP_CONTRACT_ARTIFACT_ABI,
          functionName: 'refund',
          args: [orderIdToBytes16(orderId)],
        }),
      );
      swap.report(orderId, `user: the refund height has passed, takes the coins back, tx ${hash}`);
      return;
    } catch (error) {
      if (attempt === REFUND_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, REFUND_RETRY_MS));
    }
  }
}
