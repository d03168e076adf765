// What the page checks before anything is paid, with the client library's own checks: the Ethereum swap contract
// through the browser wallet's node, the transactions against it, the Bitcoin HTLC rebuilt against the refund
// address the person typed. A service (or anything between it and the page) that lies is refused here.
import {
  bitcoinFundingAddress,
  fundingTransactions,
  UnsafeFundingDetails,
  verifySwapContract,
} from '../../src/client/index.js';

/**
 * The longest an Ethereum swap may keep the coins when its payment fails: two weeks of 12-second blocks. A genuine
 * contract deployed with a longer refund delay is refused, as a look-alike is.
 */
export const ETHEREUM_MAX_REFUND_DELAY_BLOCKS = 100_800n;

/**
 * The longest a Bitcoin HTLC may keep the coins when its payment fails: two weeks of 10-minute blocks, the highest
 * timelock an lnswap service accepts from a provider by default.
 */
export const BITCOIN_MAX_REFUND_DELAY_BLOCKS = 2_016;

const refusal = (token) => Object.assign(new Error(token), { token });

/**
 * The transactions that fund `quote`, once the contract they call is lnswap's swap contract on the wallet's own node
 * (`node`, a viem PublicClient on the EIP-1193 provider) and every transaction goes to it, locked to `paymentHash`,
 * before the window's end by `clock` (read after the contract is verified, just before the wallet signs).
 * Resolves `{ transactions, contract: { version, refundDelayBlocks } }`; rejects with the library's
 * `UnsafeFundingDetails`, or a `ContractCheckFailed` refusal when the wallet's node did not answer.
 */
export async function checkedEthereumFunding(quote, { node, paymentHash, clock }) {
  const swapContract = quote.details.unsignedFundingTx?.to;
  let contract;
  try {
    contract = await verifySwapContract({
      client: node,
      address: swapContract,
      maxRefundDelayBlocks: ETHEREUM_MAX_REFUND_DELAY_BLOCKS,
    });
  } catch (error) {
    if (error instanceof UnsafeFundingDetails) throw error;
    throw Object.assign(refusal('ContractCheckFailed'), { detail: error?.message });
  }
  const transactions = fundingTransactions(quote, { paymentHash, swapContract, now: clock() });
  return { transactions, contract };
}

/**
 * The Bitcoin address and amount to pay for `quote`, rebuilt from its redeem script: lnswap's HTLC on `network`, locked
 * to `paymentHash`, refunding the key of `refundAddress` (as typed), its refund height within
 * `BITCOIN_MAX_REFUND_DELAY_BLOCKS` of `currentBlockHeight`, and the window still open at `now`. Answers
 * `{ address, amount, refundableAtBlockHeight }` (`amount` in satoshis, a bigint); throws `UnsafeFundingDetails`, or
 * an `UnknownBlockHeight` refusal when the service named no height to check the timelock against.
 */
export function checkedBitcoinFunding(quote, { paymentHash, refundAddress, network, currentBlockHeight, now }) {
  if (!Number.isSafeInteger(currentBlockHeight)) throw refusal('UnknownBlockHeight');
  return bitcoinFundingAddress(quote, {
    paymentHash,
    refundAddress,
    network,
    currentBlockHeight,
    maxRefundDelayBlocks: BITCOIN_MAX_REFUND_DELAY_BLOCKS,
    now,
  });
}
