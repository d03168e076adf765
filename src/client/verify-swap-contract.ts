/**
 * The check a wallet makes of a swap contract before it funds it: through its own node, not the service, the code
 * at the address is lnswap's swap contract as compiled from contracts/ (src/domain/swap-contract-code.ts says how
 * a deployment is recognised), so funding it locks the money as the contract's source says and nothing else.
 */
import type { Address, PublicClient } from 'viem';
import { isEthereumAddress } from '../domain/ethereum.js';
import type { SwapContractVersion } from '../domain/order.js';
import { readSwapContractCode } from '../domain/swap-contract-code.js';
import { UnsafeFundingDetails } from './unsafe-funding-details.js';

export interface VerifySwapContractOptions {
  /**
   * The wallet's own node (a viem `PublicClient`, or any client with its `getCode`): the service, or anything between
   * it and the wallet, must not answer for the chain.
   */
  readonly client: Pick<PublicClient, 'getCode'>;
  /** The contract the wallet is asked to fund. */
  readonly address: string;
  /** The longest refund delay the wallet accepts: its money is locked that many blocks when the swap fails. */
  readonly maxRefundDelayBlocks?: bigint;
}

/** A genuine swap contract: its version and how long a slot's money stays locked before its funder may refund it. */
export interface VerifiedSwapContract {
  readonly version: SwapContractVersion;
  readonly refundDelayBlocks: bigint;
}

/**
 * Resolves the version and refund delay of the swap contract at `address` when its runtime code, read through
 * `client`, is lnswap's swap contract v2 or v3 (its `owner` and `refundDelay` immutables read, not compared), and
 * its delay is at most `maxRefundDelayBlocks` when that is given. Rejects with `UnsafeFundingDetails`:
 * `NotSwapContract` for an account without code, any other code (a look-alike with the same functions, a proxy or
 * delegation in front of a genuine contract, a genuine contract with bytes changed) or an answer of the node that
 * is not code; `RefundDelayTooLong` for a delay above the bound. A node that cannot be reached rejects with viem's
 * own error: nothing is verified then, so nothing is to be paid.
 *
 * @example
 * const quote = await client.requestQuote({ invoice, market: 'ETH_LBTC' });
 * // The deployment the wallet trusts, or the one the quote's funding names, checked through the wallet's own node.
 * const swapContract = quote.details.unsignedFundingTx.to;
 * // A failed swap's money locked a day of 12-second blocks at most.
 * const { version, refundDelayBlocks } = await verifySwapContract({
 *   client: publicClient,
 *   address: swapContract,
 *   maxRefundDelayBlocks: 7200n,
 * });
 * for (const transaction of fundingTransactions(quote, { paymentHash, swapContract })) {
 *   await walletClient.sendTransaction(transaction);
 * }
 */
export async function verifySwapContract(options: VerifySwapContractOptions): Promise<VerifiedSwapContract> {
  const { client, address, maxRefundDelayBlocks } = options;
  if (typeof address !== 'string' || !isEthereumAddress(address)) {
    throw new UnsafeFundingDetails('NotSwapContract', 'the swap contract is not an Ethereum address');
  }
  const code = await codeAt(client, address as Address);
  const read = readSwapContractCode(code);
  if ('mismatch' in read) {
    throw new UnsafeFundingDetails('NotSwapContract', `${address} is not lnswap's swap contract: ${read.reason}`);
  }
  if (maxRefundDelayBlocks !== undefined && read.refundDelayBlocks > maxRefundDelayBlocks) {
    throw new UnsafeFundingDetails(
      'RefundDelayTooLong',
      `the swap contract locks a failed swap's money for ${read.refundDelayBlocks} blocks, more than ${maxRefundDelayBlocks}`,
    );
  }
  return { version: read.version, refundDelayBlocks: read.refundDelayBlocks };
}

/** The node's answer to `eth_getCode`, whatever it is; an answer viem itself cannot read counts as no code. */
async function codeAt(client: Pick<PublicClient, 'getCode'>, address: Address): Promise<unknown> {
  try {
    return await client.getCode({ address });
  } catch (error) {
    if (error instanceof TypeError || error instanceof SyntaxError || error instanceof RangeError) {
      throw new UnsafeFundingDetails('NotSwapContract', `the node's answer for ${address} is not code`);
    }
    throw error;
  }
}
