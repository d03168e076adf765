import { formatEther, publicActions, type Hex } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../chains/ethereum/swap-contract-artifact.js';
import { orderIdToBytes16 } from '../domain/order-ids.js';
import { call, connectBotSocket } from './bot-socket.js';
import type { DemoWallet } from './ethereum/local-chain.js';

export interface StateChanged {
  readonly orderId: string;
  readonly state: string;
  readonly transactionId?: string;
  readonly preimage?: string;
}

interface UnsignedTx {
  readonly to: Hex;
  readonly data: Hex;
  readonly value: string;
}

interface Quote {
  readonly orderId: string;
  readonly amount: string;
  /** A token order's quote carries the approval to send first. */
  readonly details: { unsignedFundingTx: UnsignedTx; unsignedApprovalTx?: UnsignedTx };
}

export interface UserSwap {
  readonly url: string;
  readonly market: string;
  /** The on-chain asset's ticker, for the printed lines. */
  readonly ticker: string;
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
 * One user of the real /user/v1 protocol paying an invoice with ether or a token: asks for a quote, follows the
 * order, signs and sends the exact transactions the quote gives (a token's approval, mined, then the funding
 * call), and takes the coins back once the order waits for its refund: at once with `details.data` of the refund
 * details when the provider signed the refund away (`CooperativeRefund`), with the contract's `refund` otherwise.
 * Resolves with the order's final state.
 */
export async function runUserSwap(swap: UserSwap, signal: AbortSignal): Promise<string> {
  const socket = await connectBotSocket(swap.url, '/user/v1');
  let onAbort = () => {};
  try {
    const quote = (await call(socket, 'requestQuote', { market: swap.market, invoice: swap.invoice })) as Quote;
    swap.onQuote(quote.orderId, quote.amount);
    const { unsignedFundingTx, unsignedApprovalTx } = quote.details;
    const final = new Promise<string>((resolve, reject) => {
      socket.on('stateChanged', (change: StateChanged) => {
        if (change.orderId !== quote.orderId) return;
        swap.onState(change);
        if (change.state === 'WaitingForRefundTx') {
          const ether = unsignedApprovalTx === undefined;
          takeBack(swap, socket, unsignedFundingTx.to, quote.orderId, ether).catch((error: unknown) =>
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
    if (unsignedApprovalTx !== undefined) {
      // The funding call's gas estimate reverts until the approval is mined.
      const approval = await swap.transact(async () => {
        const hash = await send(swap.wallet, unsignedApprovalTx);
        const receipt = await swap.wallet.extend(publicActions).waitForTransactionReceipt({ hash });
        if (receipt.status !== 'success') throw new Error(`the approval ${hash} reverted`);
        return hash;
      });
      swap.report(quote.orderId, `user: lets the swap contract take ${quote.amount} ${swap.ticker}, tx ${approval}`);
    }
    const hash = await swap.transact(() => send(swap.wallet, unsignedFundingTx));
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
    const sent = await send(swap.wallet, { ...answer.details, value: '0' });
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

const send = (wallet: DemoWallet, tx: UnsignedTx) =>
  wallet.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value) });

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
