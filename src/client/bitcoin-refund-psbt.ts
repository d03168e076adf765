/**
 * A Bitcoin order's refund as a PSBT (BIP 174) the user's wallet signs: every HTLC output back to the refund
 * address, less the fee at the rate given, locked to the refund height so that the HTLC's OP_CHECKLOCKTIMEVERIFY
 * branch opens. Built from the service's refund details (`bitcoinRefundPsbt`) or, without the service, from a
 * rescue file and an Esplora (`bitcoinRescueRefund`), both through one core, `htlcRefundPsbt`. The HTLC's spend is
 * no standard script a wallet finalizes on its own, so `finalizeBitcoinRefund` puts the signature, the key and the
 * redeem script where the form of the HTLC wants them.
 */
import { address as bitcoinAddress, Psbt, script, Transaction } from 'bitcoinjs-lib';
import { isHexOfLength } from '../domain/hex.js';
import { LOCKTIME_THRESHOLD, readHtlcScript } from '../domain/htlc-script.js';
import { findMarket, type Network } from '../domain/markets.js';
import type { RefundView } from '../wire/response-shapes.js';
import {
  attempt,
  BITCOIN_NETWORKS,
  equalBytes,
  formOfAddress,
  hexToBytes,
  htlcOutputScript,
  type HtlcForm,
} from './bitcoin-htlc.js';
import { UnsafeFundingDetails } from './unsafe-funding-details.js';

export type { HtlcForm } from './bitcoin-htlc.js';

export interface BitcoinRefundOptions {
  /** Where the coins go back to; the refund details' `refundAddress` (the quote's) by default. */
  refundAddress?: string;
  /** The HTLC's address (the order's `payToAddress`), which tells its form; P2WSH when not given. */
  payToAddress?: string;
  /** Satoshis per virtual byte; the details' `feeTokensPerVirtualByte` by default. */
  feeTokensPerVirtualByte?: number;
  /** The lock time; the refund height (the details' `refundableAtBlockHeight`, else the script's) by default. */
  lockTime?: number;
  /** For a legacy P2SH HTLC only: the funding transactions (hex) by id, which BIP 174 wants for signing. */
  fundingTransactionsHex?: Readonly<Record<string, string>>;
}

export interface BitcoinRefund {
  /** Unsigned; the wallet signs each input with the refund key (`psbt.signAllInputs(key)`). */
  readonly psbt: Psbt;
  readonly form: HtlcForm;
  readonly lockTime: number;
  /** The fee taken from the refunded total, satoshis. */
  readonly fee: bigint;
  /** What reaches the refund address, satoshis. */
  readonly amount: bigint;
}

/** One output of the HTLC to refund. */
export interface HtlcOutput {
  readonly txId: string;
  readonly index: number;
  /** Satoshis. */
  readonly tokens: bigint;
}

/** All a refund is built from, whoever told it: the service's refund details or a rescue file and an Esplora. */
export interface HtlcRefundTerms {
  readonly network: Network;
  readonly redeemScript: Uint8Array;
  readonly form: HtlcForm;
  readonly refundAddress: string;
  readonly lockTime: number;
  readonly feeTokensPerVirtualByte: number;
  readonly outputs: readonly HtlcOutput[];
  readonly fundingTransactionsHex?: Readonly<Record<string, string>> | undefined;
}

/** Not final, so that OP_CHECKLOCKTIMEVERIFY reads the lock time; no relative lock time. */
const SEQUENCE_LOCKTIME_ENABLED = 0xfffffffe;
/** A DER signature with its sighash byte is at most 73 bytes; the fee is priced for the longest. */
const MAX_SIGNATURE_BYTES = 73;
const COMPRESSED_KEY_BYTES = 33;
/** Below this a P2WPKH output is dust Bitcoin Core does not relay. */
const DUST_SATOSHIS = 294n;

/**
 * The refund of a Bitcoin order as an unsigned PSBT, from the refund details (`requestRefundDetails` or
 * `GET /api/orders/:id/refund`); throws `UnsafeFundingDetails` when the details are not a Bitcoin refund a wallet
 * can sign.
 *
 * @example
 * const refund = bitcoinRefundPsbt(await client.requestRefundDetails(orderId), { payToAddress });
 * refund.psbt.signAllInputs(refundKey);
 * await client.broadcastTransaction('BTC', finalizeBitcoinRefund(refund.psbt));
 */
export function bitcoinRefundPsbt(refund: RefundView, options: BitcoinRefundOptions = {}): BitcoinRefund {
  const { details } = refund;
  if (!('redeemScript' in details)) {
    throw new UnsafeFundingDetails('WrongChain', 'an Ethereum order is refunded with an Ethereum transaction');
  }
  const network = findMarket(refund.market)?.network;
  if (network === undefined)
    throw new UnsafeFundingDetails('WrongChain', `${refund.market} is not a market this client knows`);
  const refundAddress = options.refundAddress ?? ('refundAddress' in details ? details.refundAddress : undefined);
  if (refundAddress === undefined) {
    throw new UnsafeFundingDetails('UnusableRefundAddress', 'the order has no refund address: give one');
  }
  const redeemScript = hexToBytes(details.redeemScript);
  if (redeemScript === undefined) throw new UnsafeFundingDetails('WrongScript', 'the redeem script is not hex');
  const form =
    options.payToAddress === undefined ? 'p2wsh' : formOfAddress(redeemScript, options.payToAddress, network);
  if (form === undefined) {
    throw new UnsafeFundingDetails('WrongAddress', `${options.payToAddress} is not an address of the redeem script`);
  }
  return htlcRefundPsbt({
    network,
    redeemScript,
    form,
    refundAddress,
    lockTime:
      options.lockTime ??
      ('refundableAtBlockHeight' in refund ? refund.refundableAtBlockHeight : refundHeightOf(redeemScript)),
    feeTokensPerVirtualByte: options.feeTokensPerVirtualByte ?? details.feeTokensPerVirtualByte,
    outputs: details.utxos.map((utxo) => ({ txId: utxo.txId, index: utxo.index, tokens: satoshisOf(utxo.tokens) })),
    fundingTransactionsHex: options.fundingTransactionsHex,
  });
}

/**
 * The refund PSBT of `terms`: every output back to the refund address, less the fee at the rate given, locked to
 * `lockTime` so that the HTLC's OP_CHECKLOCKTIMEVERIFY branch opens. A P2SH output's value is read from its
 * funding transaction, not taken on trust: a legacy signature does not commit to the value, so a lower one told
 * would hand the difference to the miners. A segwit signature commits to it (BIP 143): a wrong value told makes a
 * refund no node accepts, never one that loses coins.
 */
export function htlcRefundPsbt(terms: HtlcRefundTerms): BitcoinRefund {
  const { network, redeemScript, form, refundAddress, lockTime, feeTokensPerVirtualByte: feeRate, outputs } = terms;
  if (outputs.length === 0) throw new UnsafeFundingDetails('NothingToRefund', 'nothing is left to refund');
  if (typeof feeRate !== 'number' || !Number.isFinite(feeRate) || feeRate <= 0) {
    throw new UnsafeFundingDetails('MalformedExpectations', 'the fee rate is not a positive number of sat/vB');
  }
  if (!Number.isSafeInteger(lockTime) || lockTime < 0 || lockTime >= LOCKTIME_THRESHOLD) {
    throw new UnsafeFundingDetails('WrongTimelock', `the lock time ${String(lockTime)} is not a block height`);
  }
  const bitcoinNetwork = BITCOIN_NETWORKS[network];
  const outputScript = attempt(() => bitcoinAddress.toOutputScript(refundAddress, bitcoinNetwork));
  if (outputScript === undefined) {
    throw new UnsafeFundingDetails('UnusableRefundAddress', `the refund address is not an address of ${network}`);
  }
  const lockingScript = htlcOutputScript(redeemScript, form);
  const inputs = outputs.map((output) => refundInput(output, form, lockingScript, terms.fundingTransactionsHex));
  const total = outputs.reduce((sum, output) => sum + output.tokens, 0n);
  const fee = BigInt(Math.ceil(virtualSize(form, redeemScript.length, outputs.length, outputScript.length) * feeRate));
  const amount = total - fee;
  if (amount < DUST_SATOSHIS) {
    throw new UnsafeFundingDetails(
      'NothingToRefund',
      `the refund of ${total} sat does not cover its fee of ${fee} sat`,
    );
  }

  const psbt = new Psbt({ network: bitcoinNetwork });
  psbt.setVersion(2);
  psbt.setLocktime(lockTime);
  for (const input of inputs) {
    if (input.nonWitnessUtxo !== undefined) {
      psbt.addInput({ ...input.outpoint, nonWitnessUtxo: input.nonWitnessUtxo, redeemScript });
    } else {
      const witnessUtxo = { script: lockingScript, value: input.value };
      const nested = form === 'p2sh-p2wsh' ? { redeemScript: htlcOutputScript(redeemScript, 'p2wsh') } : {};
      psbt.addInput({ ...input.outpoint, witnessUtxo, witnessScript: redeemScript, ...nested });
    }
  }
  psbt.addOutput({ script: outputScript, value: amount });
  return { psbt, form, lockTime, fee, amount };
}

interface RefundInput {
  readonly outpoint: { hash: string; index: number; sequence: number };
  readonly value: bigint;
  readonly nonWitnessUtxo?: Uint8Array;
}

function refundInput(
  output: HtlcOutput,
  form: HtlcForm,
  lockingScript: Uint8Array,
  fundingTransactionsHex: Readonly<Record<string, string>> | undefined,
): RefundInput {
  const { txId, index, tokens } = output;
  if (typeof txId !== 'string' || !isHexOfLength(txId, 64) || !Number.isSafeInteger(index) || index < 0) {
    throw new UnsafeFundingDetails('MalformedOutputs', 'an output to refund has no transaction id or index');
  }
  if (typeof tokens !== 'bigint' || tokens <= 0n) {
    throw new UnsafeFundingDetails('MalformedOutputs', `output ${txId}:${index} has no value`);
  }
  const outpoint = { hash: txId.toLowerCase(), index, sequence: SEQUENCE_LOCKTIME_ENABLED };
  if (form !== 'p2sh') return { outpoint, value: tokens };
  const fundingHex = fundingTransactionsHex?.[txId];
  if (fundingHex === undefined) {
    throw new UnsafeFundingDetails('MissingFundingTransaction', `a P2SH HTLC needs its funding transaction ${txId}`);
  }
  const funding = attempt(() => Transaction.fromHex(fundingHex));
  const paid = funding?.getId() === outpoint.hash ? funding.outs[index] : undefined;
  if (paid === undefined || !equalBytes(paid.script, lockingScript) || paid.value !== tokens) {
    throw new UnsafeFundingDetails(
      'MalformedOutputs',
      `the funding transaction given for ${txId} does not pay the HTLC ${tokens} sat at output ${index}`,
    );
  }
  return { outpoint, value: tokens, nonWitnessUtxo: funding!.toBuffer() };
}

/**
 * Finalizes a signed refund PSBT (one signature per input, by the refund key) and gives the transaction's hex,
 * for `broadcastTransaction`: the HTLC's refund branch takes `<signature> <key> OP_FALSE` before its script.
 */
export function finalizeBitcoinRefund(psbt: Psbt): string {
  psbt.data.inputs.forEach((input, index) => {
    const signed = input.partialSig?.[0];
    if (signed === undefined) throw new Error(`input ${index} is not signed`);
    const stack = [signed.signature, signed.pubkey, new Uint8Array(0)];
    psbt.finalizeInput(index, () => {
      if (input.witnessScript !== undefined) {
        return {
          finalScriptSig: input.redeemScript === undefined ? undefined : script.compile([input.redeemScript]),
          finalScriptWitness: witnessBytes([...stack, input.witnessScript]),
        };
      }
      if (input.redeemScript === undefined) throw new Error(`input ${index} has no redeem script`);
      return { finalScriptSig: script.compile([...stack, input.redeemScript]), finalScriptWitness: undefined };
    });
  });
  return psbt.extractTransaction().toHex();
}

function refundHeightOf(redeemScript: Uint8Array): number {
  const parts = readHtlcScript(redeemScript);
  if (parts === undefined) throw new UnsafeFundingDetails('WrongScript', "the redeem script is not lnswap's HTLC");
  return parts.refundableAtBlockHeight;
}

/** The details' satoshis, a JSON number. */
function satoshisOf(tokens: number): bigint {
  if (!Number.isSafeInteger(tokens)) throw new UnsafeFundingDetails('MalformedOutputs', 'an output has no value');
  return BigInt(tokens);
}

/** The refund's virtual size, with each signature at its longest. */
function virtualSize(form: HtlcForm, scriptBytes: number, inputs: number, outputScriptBytes: number): number {
  const stackBytes = 1 + MAX_SIGNATURE_BYTES + 1 + COMPRESSED_KEY_BYTES + 1 + varIntBytes(scriptBytes) + scriptBytes;
  const scriptSigBytes = form === 'p2sh' ? stackBytes : form === 'p2sh-p2wsh' ? 35 : 0;
  const inputBytes = 32 + 4 + varIntBytes(scriptSigBytes) + scriptSigBytes + 4;
  const baseBytes = 4 + 1 + inputs * inputBytes + 1 + 8 + varIntBytes(outputScriptBytes) + outputScriptBytes + 4;
  const witnessWeight = form === 'p2sh' ? 0 : 2 + inputs * (1 + stackBytes);
  return Math.ceil((baseBytes * 4 + witnessWeight) / 4);
}

function witnessBytes(stack: readonly Uint8Array[]): Uint8Array {
  const parts = [varInt(stack.length), ...stack.flatMap((item) => [varInt(item.length), item])];
  const whole = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    whole.set(part, offset);
    offset += part.length;
  }
  return whole;
}

function varIntBytes(value: number): number {
  return value < 0xfd ? 1 : value <= 0xffff ? 3 : 5;
}

function varInt(value: number): Uint8Array {
  if (value < 0xfd) return Uint8Array.of(value);
  if (value <= 0xffff) return Uint8Array.of(0xfd, value & 0xff, value >> 8);
  return Uint8Array.of(0xfe, value & 0xff, (value >> 8) & 0xff, (value >> 16) & 0xff, value >>> 24);
}
