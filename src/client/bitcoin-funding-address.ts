/**
 * The address a wallet pays for a Bitcoin quote, derived by the wallet from what it knows itself rather than taken
 * from the service: a service that lies (or anything between it and the wallet) could hand out its own address,
 * an HTLC locked to another invoice, a refund branch paying someone else, or a timelock years away. The quote is
 * paid only when the redeem script is lnswap's HTLC template exactly, with the wallet's payment hash, refund key
 * and a timelock it accepts, and the address is that script's.
 */
import { parseDecimalAmount } from '../domain/amounts.js';
import { isHexOfLength } from '../domain/hex.js';
import { readHtlcScript, type HtlcScriptParts } from '../domain/htlc-script.js';
import { NETWORKS, type Network } from '../domain/markets.js';
import type { FundingDetailsView } from '../wire/response-shapes.js';
import {
  bytesToHex,
  equalBytes,
  formOfAddress,
  hexToBytes,
  htlcAddress,
  isCount,
  isNetwork,
  refundKeyHashOfAddress,
  type HtlcForm,
} from './bitcoin-htlc.js';
import { isRecord } from './shape-check.js';
import { UnsafeFundingDetails } from './unsafe-funding-details.js';

/** What the wallet knows of the order by itself, which the quote must agree with. */
export interface BitcoinFundingExpectations {
  /** The invoice's payment hash, 64 hex without `0x`, read from the invoice by the wallet. */
  readonly paymentHash: string;
  /** The wallet's own refund address, P2WPKH or P2PKH: the HTLC's refund branch must pay its key. */
  readonly refundAddress: string;
  readonly network: Network;
  /** The chain's height, from the wallet's own node. */
  readonly currentBlockHeight: number;
  /** The most blocks the wallet lets its coins be locked: a timelock further from `currentBlockHeight` is refused. */
  readonly maxRefundDelayBlocks?: number;
  /** Milliseconds since the Unix epoch, `Date.now()` unless given: the quote must be paid before its expiry. */
  readonly now?: number;
}

/** What to pay, as the wallet derived it. */
export interface BitcoinFundingAddress {
  /** The HTLC's address, in the form the quote named (bech32 in lower case). */
  readonly address: string;
  /** Satoshis. */
  readonly amount: bigint;
  /** The height from which the wallet can refund the HTLC on its own. */
  readonly refundableAtBlockHeight: number;
}

/** Everything the check established, for the rescue file. */
export interface CheckedBitcoinFunding extends BitcoinFundingAddress {
  readonly orderId: string;
  readonly network: Network;
  readonly form: HtlcForm;
  /** Lowercase hex. */
  readonly redeemScript: string;
  readonly refundAddress: string;
}

const BITCOIN_DECIMALS = 8;
/** 21 million bitcoin: no honest amount is above it. */
const MAX_SATOSHIS = 2_100_000_000_000_000n;

/**
 * The address and amount to pay for a Bitcoin quote (`requestQuote`'s answer or `GET /api/orders/:id/fundDetails`),
 * each rebuilt by the wallet. Synchronous. Throws `UnsafeFundingDetails` naming the fault unless
 * `details.payToAddress` is an address of `details.redeemScript` on `network` (P2WSH, P2SH-P2WSH or P2SH), the
 * script is lnswap's HTLC template byte for byte, locked to `paymentHash`, its refund branch pays the key hash of
 * `refundAddress` (P2WPKH or P2PKH), its timelock is `details.refundableAtBlockHeight`, above `currentBlockHeight`
 * and, when `maxRefundDelayBlocks` is given, at most that many blocks above it, the amount is a whole number of
 * satoshis, and `now` is before the quote's expiry.
 *
 * @example
 * const quote = await client.requestQuote({ market: 'BTC_LBTC', invoice, refundAddress });
 * const { address, amount } = bitcoinFundingAddress(quote, {
 *   paymentHash, // decoded from the invoice by the wallet, not read from the service
 *   refundAddress,
 *   network: 'mainnet',
 *   currentBlockHeight: await myNode.tipHeight(),
 *   maxRefundDelayBlocks: 288,
 * });
 * await wallet.pay(address, amount); // satoshis
 */
export function bitcoinFundingAddress(
  quote: FundingDetailsView,
  expectations: BitcoinFundingExpectations,
): BitcoinFundingAddress {
  const { address, amount, refundableAtBlockHeight } = checkBitcoinFunding(quote, expectations);
  return { address, amount, refundableAtBlockHeight };
}

/** `bitcoinFundingAddress`'s check, answering all it established. */
export function checkBitcoinFunding(quote: unknown, expectations: unknown): CheckedBitcoinFunding {
  const { orderId, expiryTimestampMs, amount, details } = readQuote(quote);
  const { paymentHash, refundAddress, network, currentBlockHeight, maxRefundDelayBlocks, now } =
    readExpectations(expectations);
  if (now >= expiryTimestampMs) {
    throw new UnsafeFundingDetails('QuoteExpired', 'the quote expired: a payment now could come after its window');
  }
  const refundKeyHash = refundKeyHashOfAddress(refundAddress, network);
  if (refundKeyHash === undefined) {
    throw new UnsafeFundingDetails(
      'UnusableRefundAddress',
      `the refund address is not a P2WPKH or P2PKH address of ${network}: the HTLC's refund branch cannot pay it`,
    );
  }
  const { redeemScript, parts, form } = readHtlc(details.redeemScript, details.payToAddress, network);
  if (bytesToHex(parts.paymentHash) !== paymentHash) {
    throw new UnsafeFundingDetails('WrongPaymentHash', "the HTLC is locked to another payment hash than the invoice's");
  }
  if (!equalBytes(parts.refundPublicKeyHash, refundKeyHash)) {
    throw new UnsafeFundingDetails(
      'WrongRefundKey',
      "the HTLC's refund branch pays another key than the refund address's",
    );
  }
  checkTimelock(
    parts.refundableAtBlockHeight,
    details.refundableAtBlockHeight,
    currentBlockHeight,
    maxRefundDelayBlocks,
  );
  const satoshis = parseDecimalAmount(amount, BITCOIN_DECIMALS);
  if (satoshis === undefined || satoshis === 0n || satoshis > MAX_SATOSHIS) {
    throw new UnsafeFundingDetails('WrongAmount', `the amount ${amount} is not a whole number of satoshis to pay`);
  }
  return {
    orderId,
    network,
    form,
    address: htlcAddress(redeemScript, form, network),
    amount: satoshis,
    refundableAtBlockHeight: parts.refundableAtBlockHeight,
    redeemScript: bytesToHex(redeemScript),
    refundAddress,
  };
}

/**
 * The redeem script, read as the template, and the form in which `payToAddress` pays it on `network`. Shared with
 * the rescue refund, which holds the same two from a file.
 */
export function readHtlc(
  redeemScriptHex: unknown,
  payToAddress: unknown,
  network: Network,
): { redeemScript: Uint8Array; parts: HtlcScriptParts; form: HtlcForm } {
  const redeemScript = hexToBytes(redeemScriptHex);
  const parts = redeemScript === undefined ? undefined : readHtlcScript(redeemScript);
  if (redeemScript === undefined || parts === undefined) {
    throw new UnsafeFundingDetails('WrongScript', "the redeem script is not lnswap's HTLC");
  }
  const form = formOfAddress(redeemScript, payToAddress, network);
  if (form !== undefined) return { redeemScript, parts, form };
  const otherNetwork = NETWORKS.find((other) => formOfAddress(redeemScript, payToAddress, other) !== undefined);
  if (otherNetwork !== undefined) {
    throw new UnsafeFundingDetails(
      'WrongNetwork',
      `the address to pay is the HTLC's on ${otherNetwork}, not ${network}`,
    );
  }
  throw new UnsafeFundingDetails('WrongAddress', 'the address to pay is not an address of the redeem script');
}

/**
 * The script's timelock must be the one the quote states, and ahead of the chain: a refund branch already open is
 * no quote an honest provider makes (it could be refunded before the provider claims), so a timelock at or below
 * the wallet's height says the service's height or its script is wrong.
 */
function checkTimelock(
  scriptHeight: number,
  statedHeight: unknown,
  currentBlockHeight: number,
  maxRefundDelayBlocks: number | undefined,
): void {
  if (scriptHeight !== statedHeight) {
    throw new UnsafeFundingDetails(
      'WrongTimelock',
      `the HTLC's refund opens at block ${scriptHeight}, not at the quoted ${String(statedHeight)}`,
    );
  }
  if (scriptHeight <= currentBlockHeight) {
    throw new UnsafeFundingDetails(
      'WrongTimelock',
      `the HTLC's refund opens at block ${scriptHeight}, which the chain has reached (${currentBlockHeight})`,
    );
  }
  if (maxRefundDelayBlocks !== undefined && scriptHeight - currentBlockHeight > maxRefundDelayBlocks) {
    throw new UnsafeFundingDetails(
      'RefundDelayTooLong',
      `the HTLC locks the coins for ${scriptHeight - currentBlockHeight} blocks, more than ${maxRefundDelayBlocks}`,
    );
  }
}

interface BitcoinQuote {
  orderId: string;
  expiryTimestampMs: number;
  amount: string;
  details: { redeemScript: unknown; payToAddress: unknown; refundableAtBlockHeight: unknown };
}

function readQuote(quote: unknown): BitcoinQuote {
  if (!isRecord(quote) || !isRecord(quote.details)) {
    throw new UnsafeFundingDetails('MalformedQuote', 'the quote is not an object with details');
  }
  const { orderId, expiryTimestampMs, amount, details } = quote;
  if ('unsignedFundingTx' in details) {
    throw new UnsafeFundingDetails('WrongChain', 'an Ethereum order is funded with an Ethereum transaction');
  }
  if (typeof orderId !== 'string' || typeof amount !== 'string' || !Number.isSafeInteger(expiryTimestampMs)) {
    throw new UnsafeFundingDetails('MalformedQuote', 'the quote has no order id, amount or expiry');
  }
  const { redeemScript, payToAddress, refundableAtBlockHeight } = details;
  return {
    orderId,
    expiryTimestampMs: expiryTimestampMs as number,
    amount,
    details: { redeemScript, payToAddress, refundableAtBlockHeight },
  };
}

interface Expectations {
  paymentHash: string;
  refundAddress: string;
  network: Network;
  currentBlockHeight: number;
  maxRefundDelayBlocks: number | undefined;
  now: number;
}

function readExpectations(expectations: unknown): Expectations {
  if (!isRecord(expectations)) {
    throw new UnsafeFundingDetails('MalformedExpectations', 'what the wallet expects of the quote is not given');
  }
  const { paymentHash, refundAddress, network, currentBlockHeight, maxRefundDelayBlocks } = expectations;
  const now = expectations.now ?? Date.now();
  if (typeof paymentHash !== 'string' || !isHexOfLength(paymentHash, 64)) {
    throw new UnsafeFundingDetails('MalformedExpectations', 'the payment hash is not 64 hex digits');
  }
  if (!isNetwork(network)) {
    throw new UnsafeFundingDetails('MalformedExpectations', `the network is not one of ${NETWORKS.join(', ')}`);
  }
  if (!isCount(currentBlockHeight)) {
    throw new UnsafeFundingDetails('MalformedExpectations', 'the current block height is not a block height');
  }
  if (maxRefundDelayBlocks !== undefined && !isCount(maxRefundDelayBlocks)) {
    throw new UnsafeFundingDetails('MalformedExpectations', 'the refund delay bound is not a number of blocks');
  }
  if (typeof now !== 'number' || !Number.isFinite(now)) {
    throw new UnsafeFundingDetails('MalformedExpectations', 'the clock reading is not a number of milliseconds');
  }
  if (typeof refundAddress !== 'string') {
    throw new UnsafeFundingDetails('UnusableRefundAddress', 'the refund address is not text');
  }
  return {
    paymentHash: paymentHash.toLowerCase(),
    refundAddress,
    network,
    currentBlockHeight,
    maxRefundDelayBlocks,
    now,
  };
}
