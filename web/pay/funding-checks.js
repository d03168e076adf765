// What the page checks before anything is paid, with the client library's own checks: the Ethereum swap contract
// through the browser wallet's node, the transactions against it, the Bitcoin HTLC rebuilt against the refund
// address the person typed. A service (or anything between it and the page) that lies is refused here.
import {
  bitcoinFundingAddress,
  bitcoinRefundPsbt,
  ethereumRefundTransaction,
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
 * The page's only Bitcoin height is the service's, so a lying service could report a height years ahead and quote a
 * timelock "within two weeks" of it. On mainnet the clock bounds it: block 840,000 was mined at 00:09:27 UTC on 20
 * April 2024, and the chain has never averaged nine minutes a block over months, so a height above that pace is
 * refused. This caps such a lie at weeks, not years; testnet and simnet heights follow no clock.
 */
const MAINNET_ANCHOR = { height: 840_000, timestampMs: 1_713_571_767_000 };
const FASTEST_AVERAGE_BLOCK_MS = 9 * 60_000;

const ERC20_DECIMALS_ABI = [
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint8' }] },
];

/**
 * The transactions that fund `quote`, once the contract they call is lnswap's swap contract on the wallet's own node
 * (`node`, a viem PublicClient on the EIP-1193 provider) and every transaction goes to it, locked to `paymentHash`,
 * a token's for the quoted amount in the decimals the node reads from the token, before the window's end by `clock`
 * (read after the contract is verified, just before the wallet signs). Resolves `{ transactions, contract: { version,
 * refundDelayBlocks } }`; rejects with the library's `UnsafeFundingDetails`, or a `ContractCheckFailed` (or
 * `TokenCheckFailed`) refusal when the wallet's node did not answer for the contract (or the token's decimals).
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
  // A token's funding must lock the amount the page shows, in the token's own decimals as the wallet's node reads them.
  const tokenAddress = quote.details.unsignedApprovalTx?.to;
  const token =
    tokenAddress === undefined
      ? undefined
      : { address: tokenAddress, decimals: await tokenDecimals(node, tokenAddress) };
  const transactions = fundingTransactions(quote, { paymentHash, swapContract, token, now: clock() });
  return { transactions, contract };
}

/** The token's `decimals()` through the wallet's node; a `TokenCheckFailed` refusal when it gives none. */
async function tokenDecimals(node, address) {
  try {
    return await node.readContract({ address, abi: ERC20_DECIMALS_ABI, functionName: 'decimals' });
  } catch (error) {
    throw Object.assign(refusal('TokenCheckFailed'), { detail: error?.message });
  }
}

/**
 * The Bitcoin address and amount to pay for `quote`, rebuilt from its redeem script: lnswap's HTLC on `network`, locked
 * to `paymentHash`, refunding the key of `refundAddress` (as typed), its refund height within
 * `BITCOIN_MAX_REFUND_DELAY_BLOCKS` of `currentBlockHeight`, and the window still open at `now`. Answers
 * `{ address, amount, refundableAtBlockHeight }` (`amount` in satoshis, a bigint); throws `UnsafeFundingDetails`, an
 * `UnknownBlockHeight` refusal when the service named no height to check the timelock against, or an
 * `ImplausibleBlockHeight` one for a mainnet height above what the chain can have reached by `now`.
 */
export function checkedBitcoinFunding(quote, { paymentHash, refundAddress, network, currentBlockHeight, now }) {
  if (!Number.isSafeInteger(currentBlockHeight)) throw refusal('UnknownBlockHeight');
  if (network === 'mainnet' && currentBlockHeight > highestMainnetHeight(now ?? Date.now())) {
    throw refusal('ImplausibleBlockHeight');
  }
  return bitcoinFundingAddress(quote, {
    paymentHash,
    refundAddress,
    network,
    currentBlockHeight,
    maxRefundDelayBlocks: BITCOIN_MAX_REFUND_DELAY_BLOCKS,
    now,
  });
}

/**
 * The unsigned refund PSBT of the Bitcoin swap `quote` (checked before it was paid), from the service's refund details
 * only in what cannot send the coins elsewhere: the output pays `refundAddress` as the person typed it, not the
 * details' own, and the input spends the checked HTLC at its checked refund height. Answers `bitcoinRefundPsbt`'s
 * `{ psbt, amount, ... }`; throws an `UnsafeRefund` refusal for details of another script, or any the library refuses.
 */
export function checkedBitcoinRefund(refund, { quote, refundAddress }) {
  const { redeemScript, payToAddress, refundableAtBlockHeight } = quote.details;
  const refunded = refund?.details?.redeemScript;
  if (typeof refunded !== 'string' || refunded.toLowerCase() !== redeemScript.toLowerCase()) {
    throw refusal('UnsafeRefund');
  }
  return unsafeAsRefusal(() =>
    bitcoinRefundPsbt(refund, { refundAddress, payToAddress, lockTime: refundableAtBlockHeight }),
  );
}

/**
 * The refund transaction of the Ethereum swap funded at `swapContract` (verified before it was funded) by `funder`,
 * from the service's refund details: the library checks their calldata, the page that they go to that contract, so
 * a refund the service points at another address is refused (an `UnsafeRefund` refusal) rather than sent as done.
 */
export function checkedEthereumRefund(orderId, refund, { funder, swapContract }) {
  const transaction = unsafeAsRefusal(() => ethereumRefundTransaction(orderId, refund, funder));
  if (transaction.to.toLowerCase() !== swapContract.toLowerCase()) throw refusal('UnsafeRefund');
  return transaction;
}

/** What `build` answers; the library's `UnsafeFundingDetails` becomes an `UnsafeRefund` refusal with its reason. */
function unsafeAsRefusal(build) {
  try {
    return build();
  } catch (error) {
    if (error instanceof UnsafeFundingDetails) throw Object.assign(refusal('UnsafeRefund'), { detail: error.message });
    throw error;
  }
}

/** The highest height mainnet can have reached by `nowMs`, at the fastest pace it has kept. */
function highestMainnetHeight(nowMs) {
  return MAINNET_ANCHOR.height + Math.floor((nowMs - MAINNET_ANCHOR.timestampMs) / FASTEST_AVERAGE_BLOCK_MS);
}
