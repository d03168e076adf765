import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../chains/ethereum/swap-contract-artifact.js';
import { orderIdToBytes16 } from '../../domain/order-ids.js';
import { call, connectBotSocket } from './bot-socket.js';
import type { DemoWallet } from './local-chain.js';
import { DEMO_MARKET } from './provider-bot.js';

export interface StateChanged {
  readonly orderId: string;
  readonly state: string;
  readonly transactionId?: string;
  readonly preimage?: string;
}

interface Quote {
  readonly orderId: string;
  readonly amount: string;
  readonly details: { unsignedFundingTx: { to: `0x${string}`; data: `0x${string}`; value: string } };
}

export interface UserSwap {
  readonly url: string;
  readonly invoice: string;
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
 * One user of the real /user/v1 protocol paying an invoice with SETH: asks for a quote, follows the order,
 * signs and sends the exact funding transaction the quote gives, and takes the coins back with the contract's
 * refund once the order waits for it. Resolves with the order's final state.
 */
export async function runUserSwap(swap: UserSwap, signal: AbortSignal): Promise<string> {
  const socket = await connectBotSocket(swap.url, '/user/v1');
  let onAbort = () => {};
  try {
    const quote = (await call(socket, 'requestQuote', { market: DEMO_MARKET, invoice: swap.invoice })) as Quote;
    swap.onQuote(quote.orderId, quote.amount);
    const { to, data, value } = quote.details.unsignedFundingTx;
    const final = new Promise<string>((resolve, reject) => {
      socket.on('stateChanged', (change: StateChanged) => {
        if (change.orderId !== quote.orderId) return;
        swap.onState(change);
        if (change.state === 'WaitingForRefundTx') {
          refund(swap, to, quote.orderId).catch((error: unknown) => reject(error as Error));
        }
        if (FINAL_STATES.has(change.state)) resolve(change.state);
      });
      onAbort = () => reject(new Error('stopped'));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    // Settled before it is awaited (stopped while funding), it must not count as unhandled.
    final.catch(() => undefined);
    await call(socket, 'subscribeToOrderState', { orderId: quote.orderId });
    const hash = await swap.transact(() => swap.wallet.sendTransaction({ to, data, value: BigInt(value) }));
    swap.report(quote.orderId, `user: funds ${quote.amount} SETH through the swap contract, tx ${hash}`);
    return await final;
  } finally {
    signal.removeEventListener('abort', onAbort);
    socket.close();
  }
}

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
