/**
 * The Ethereum transactions a wallet sends for an order, as viem takes them (`walletClient.sendTransaction({ account,
 * chain, ...transaction })`): the funding of a quote (for a token, the approval first), and the refund of a slot.
 * Each is read back from its calldata before it is handed out, so a service (or anything between it and the
 * wallet) that answered a call for another order, another function or another amount is refused here, before
 * the wallet signs it.
 */
import { decodeFunctionData, type Address, type Hex } from 'viem';
import {
  decodeFundingCalldata,
  ERC20_APPROVE_ABI,
  encodeRefundCalldata,
  isEthereumAddress,
} from '../domain/ethereum.js';
import { parseDecimalAmount } from '../domain/amounts.js';
import { decodeRefundCooperativeCalldata, isCooperativeRefundSignature } from '../domain/cooperative-refund.js';
import { normalizeOrderId, orderIdToBytes16 } from '../domain/order-ids.js';
import type { FundingDetailsView, RefundView } from '../wire/response-shapes.js';
import type { RefundableSlot } from './refundable-slots.js';
import { UnsafeFundingDetails } from './unsafe-funding-details.js';

const ETHER_DECIMALS = 18;

/** One transaction to send: the contract, its calldata, and the wei it carries. */
export interface EthereumTransaction {
  readonly to: Address;
  readonly data: Hex;
  readonly value: bigint;
}

/** What the wallet knows of the order besides the quote, checked against the transactions. */
export interface FundingExpectations {
  /** The invoice's payment hash, 64 hex: the HTLC must be locked to it, or paying it would not pay the invoice. */
  paymentHash?: string;
  /**
   * The swap contract the wallet verified (`verifySwapContract`) or trusts: the funding goes to it, and a token's
   * approval lets it, and nobody else, take the amount.
   */
  swapContract: string;
  /** The wallet's clock, milliseconds since the epoch (default `Date.now()`): the quote's window must still be open. */
  now?: number;
  /**
   * For a token order, the token the wallet means to pay and its decimals (its `decimals()`, read through the wallet's
   * own node): the funding must lock that token, and exactly the quote's `amount` of it. Without it, a token
   * funding's amount is checked against its approval only, not against the amount the quote shows.
   */
  token?: { address: string; decimals: number };
}

/**
 * The transactions that fund `quote` (the `requestQuote` answer or `GET /api/orders/:id/fundDetails`), to send in
 * order from one account, each mined before the next: `[fund]` for ether, `[approve, fundToken]` for a token.
 * Throws `UnsafeFundingDetails`, synchronously, for a Bitcoin quote, a quote whose window has closed by `now`
 * (`QuoteExpired`: the service may already have given the invoice to another order, and a late funding is then
 * claimable by whoever learnt its preimage), a transaction to another contract than `swapContract` or an approval
 * for another spender (`WrongContract`, in any letter case compared alike), calldata that is not this order's
 * funding, or, when the wallet names the `token` it pays, a funding of another token or of another amount than the
 * quote's `amount` in that token's decimals.
 *
 * @example
 * const quote = await client.requestQuote({ invoice, market: 'ETH_LBTC' });
 * const swapContract = '0x…'; // the deployment the wallet trusts, or the quote's, checked by verifySwapContract
 * await verifySwapContract({ client: publicClient, address: swapContract });
 * for (const transaction of fundingTransactions(quote, { paymentHash, swapContract })) {
 *   const hash = await walletClient.sendTransaction(transaction);
 *   await publicClient.waitForTransactionReceipt({ hash });
 * }
 */
export function fundingTransactions(
  quote: FundingDetailsView,
  expectations: FundingExpectations,
): EthereumTransaction[] {
  const { details } = quote;
  if (!('unsignedFundingTx' in details))
    throw new UnsafeFundingDetails('WrongChain', 'a Bitcoin order is funded by paying its address');
  const swapContract = expectedSwapContract(expectations.swapContract);
  const token = expectedToken(expectations.token);
  refuseClosedWindow(quote.expiryTimestampMs, expectations.now ?? Date.now());
  const funding = transaction(details.unsignedFundingTx, 'the funding');
  if (funding.to.toLowerCase() !== swapContract)
    throw new UnsafeFundingDetails('WrongContract', 'the funding is to another contract than the swap contract');
  const call = decodeFundingCalldata(funding.data);
  if (call === undefined)
    throw new UnsafeFundingDetails('WrongFunction', 'the funding data is neither fund nor fundToken');
  if (call.orderId !== normalizeOrderId(quote.orderId))
    throw new UnsafeFundingDetails('WrongOrder', 'the funding is for another order');
  if (expectations.paymentHash !== undefined && call.paymentHash !== expectations.paymentHash.toLowerCase()) {
    throw new UnsafeFundingDetails(
      'WrongPaymentHash',
      "the funding is locked to another payment hash than the invoice's",
    );
  }
  if (call.functionName === 'fund') {
    if (token !== undefined) throw new UnsafeFundingDetails('WrongToken', 'the funding is in ether, not the token');
    if ('unsignedApprovalTx' in details)
      throw new UnsafeFundingDetails('WrongToken', 'an ether funding comes with no approval');
    if (funding.value === 0n || funding.value !== parseDecimalAmount(quote.amount, ETHER_DECIMALS)) {
      throw new UnsafeFundingDetails('WrongAmount', 'the ether funding carries another value than the quoted amount');
    }
    return [funding];
  }
  if (!('unsignedApprovalTx' in details))
    throw new UnsafeFundingDetails('WrongToken', 'a token funding needs its approval');
  if (funding.value !== 0n) throw new UnsafeFundingDetails('WrongAmount', 'a token funding carries no ether');
  if (token !== undefined) {
    if (call.token !== token.address)
      throw new UnsafeFundingDetails('WrongToken', 'the funding is in another token than the wallet pays');
    if (call.amount !== parseDecimalAmount(quote.amount, token.decimals))
      throw new UnsafeFundingDetails('WrongAmount', 'the token funding locks another amount than the quoted amount');
  }
  const approval = transaction(details.unsignedApprovalTx, 'the approval');
  if (approval.value !== 0n) throw new UnsafeFundingDetails('WrongAmount', 'an approval carries no ether');
  if (approval.to.toLowerCase() !== call.token)
    throw new UnsafeFundingDetails('WrongToken', 'the approval is of another token');
  const approve = decodeApproval(approval.data);
  if (approve === undefined) throw new UnsafeFundingDetails('WrongFunction', 'the approval data is not approve');
  if (approve.spender !== swapContract)
    throw new UnsafeFundingDetails('WrongContract', 'the approval lets another spender than the swap contract take it');
  if (approve.amount !== call.amount)
    throw new UnsafeFundingDetails('WrongAmount', 'the approval is not of the funding amount');
  return [approval, funding];
}

/** The wallet's swap contract, lower case; a wallet that names none has nothing to check the funding against. */
function expectedSwapContract(swapContract: unknown): string {
  if (typeof swapContract !== 'string' || !isEthereumAddress(swapContract)) {
    throw new UnsafeFundingDetails('WrongContract', 'the swap contract to fund is not an Ethereum address');
  }
  return swapContract.toLowerCase();
}

/** The token the wallet pays (address lower case), when it names one; its decimals a whole number a token has. */
function expectedToken(token: unknown): { address: string; decimals: number } | undefined {
  if (token === undefined) return undefined;
  const { address, decimals } = (token ?? {}) as { address?: unknown; decimals?: unknown };
  if (typeof address !== 'string' || !isEthereumAddress(address)) {
    throw new UnsafeFundingDetails('MalformedExpectations', 'the token to pay is not an Ethereum address');
  }
  if (typeof decimals !== 'number' || !Number.isSafeInteger(decimals) || decimals < 0 || decimals > 255) {
    throw new UnsafeFundingDetails('MalformedExpectations', "the token's decimals are not a whole number up to 255");
  }
  return { address: address.toLowerCase(), decimals };
}

/** A quote may be funded only before its window closes: the service counts a later funding as late. */
function refuseClosedWindow(expiryTimestampMs: unknown, now: number): void {
  if (typeof expiryTimestampMs !== 'number' || !Number.isSafeInteger(expiryTimestampMs)) {
    throw new UnsafeFundingDetails('QuoteExpired', 'the quote names no time its funding window closes');
  }
  if (!(now < expiryTimestampMs)) {
    throw new UnsafeFundingDetails('QuoteExpired', 'the quote expired: its funding window has closed');
  }
}

/**
 * The refund of a slot, built from the chain alone or from the service's refund details.
 *
 * From a slot of `refundableSlots` (the service not asked): `refund(orderUUID)` to the slot's contract, to send from
 * the slot's funder once `refundableNow`; a slot no longer open, or not yet past its refund height, is refused, as the
 * contract would revert its refund.
 *
 * From the refund details (`requestRefundDetails` or `GET /api/orders/:id/refund`, with `funder` for that slot's
 * figures): `refund(orderUUID)` on the swap contract, sendable from the funder's account once the chain is at
 * `refundableAtBlockHeight` (`blocksRemaining` 0); for a `CooperativeRefund`, `refundCooperative(orderUUID, funder,
 * signature)`, sendable at once from any account, which must name this order and `funder` (required then: the
 * wallet's own account) with a signature in the one form the contract takes.
 *
 * @example
 * const [slot] = await refundableSlots({ client: publicClient, funder, contracts: [swapContract], fromBlock });
 * if (slot?.refundableNow) await walletClient.sendTransaction(ethereumRefundTransaction(slot));
 *
 * const details = await client.requestRefundDetails(orderId, funder);
 * await walletClient.sendTransaction(ethereumRefundTransaction(orderId, details, funder));
 */
export function ethereumRefundTransaction(slot: RefundableSlot): EthereumTransaction;
export function ethereumRefundTransaction(orderId: string, refund: RefundView, funder?: string): EthereumTransaction;
export function ethereumRefundTransaction(
  orderOrSlot: string | RefundableSlot,
  refund?: RefundView,
  funder?: string,
): EthereumTransaction {
  if (typeof orderOrSlot !== 'string') return slotRefundTransaction(orderOrSlot);
  const orderId = orderOrSlot;
  if (refund === undefined) throw new UnsafeFundingDetails('MalformedTransaction', 'a refund needs its refund details');
  const { details } = refund;
  if (!('to' in details))
    throw new UnsafeFundingDetails('WrongChain', 'a Bitcoin order is refunded with a Bitcoin transaction');
  if (refund.type === 'CooperativeRefund') {
    if (funder === undefined || !isEthereumAddress(funder)) {
      throw new UnsafeFundingDetails(
        'WrongFunder',
        'a cooperative refund is checked against its funder: pass the funding account',
      );
    }
    const call = decodeRefundCooperativeCalldata(details.data as Hex);
    if (call === undefined) throw new UnsafeFundingDetails('WrongFunction', 'the refund data is not refundCooperative');
    if (call.orderUUID !== orderIdToBytes16(orderId).toLowerCase()) {
      throw new UnsafeFundingDetails('WrongOrder', "the refund is not this order's refund");
    }
    if (call.funder !== funder.toLowerCase())
      throw new UnsafeFundingDetails('WrongFunder', 'the refund pays another funder');
    if (!isCooperativeRefundSignature(call.signature)) {
      throw new UnsafeFundingDetails(
        'MalformedSignature',
        'the refund signature is not in the form the contract takes',
      );
    }
    return transaction({ to: details.to, data: details.data, value: '0' }, 'the refund');
  }
  const expected = encodeRefundCalldata(orderId);
  if (details.data.toLowerCase() !== expected)
    throw new UnsafeFundingDetails('WrongOrder', "the refund is not this order's refund");
  return transaction({ to: details.to, data: details.data, value: '0' }, 'the refund');
}

/** `refund(orderUUID)` of a slot the contract still holds and will refund now. */
function slotRefundTransaction(slot: RefundableSlot): EthereumTransaction {
  if (normalizeOrderId(slot.orderId) === undefined)
    throw new UnsafeFundingDetails('WrongOrder', 'the slot names no order');
  if (!slot.open) throw new UnsafeFundingDetails('SlotNotOpen', 'the slot was claimed or refunded already');
  if (!slot.refundableNow) {
    throw new UnsafeFundingDetails(
      'RefundHeightNotReached',
      `the slot is refundable after block ${String(slot.refundHeight)}, not yet`,
    );
  }
  return transaction({ to: slot.contract, data: encodeRefundCalldata(slot.orderId), value: '0' }, 'the refund');
}

function transaction(unsigned: { to: string; data: string; value: string }, what: string): EthereumTransaction {
  if (!isEthereumAddress(unsigned.to))
    throw new UnsafeFundingDetails('MalformedTransaction', `${what} is not to an Ethereum address`);
  if (!/^0x(?:[0-9a-fA-F]{2})*$/u.test(unsigned.data))
    throw new UnsafeFundingDetails('MalformedTransaction', `${what} data is not hex`);
  if (!/^(?:0|[1-9][0-9]{0,77})$/u.test(unsigned.value))
    throw new UnsafeFundingDetails('MalformedTransaction', `${what} value is not wei`);
  return { to: unsigned.to as Address, data: unsigned.data.toLowerCase() as Hex, value: BigInt(unsigned.value) };
}

function decodeApproval(data: Hex): { spender: string; amount: bigint } | undefined {
  try {
    const call = decodeFunctionData({ abi: ERC20_APPROVE_ABI, data });
    const [spender, amount] = call.args;
    return { spender: spender.toLowerCase(), amount };
  } catch {
    return undefined;
  }
}
