/**
 * A Bitcoin order's refund as a PSBT (BIP 174) the user's wallet signs, built from the refund details alone
 * (`requestRefundDetails` or `GET /api/orders/:id/refund`): every HTLC output the details list, back to the refund
 * address, less the fee at the details' rate, locked to the refund height so that the HTLC's
 * OP_CHECKLOCKTIMEVERIFY branch opens. The HTLC's spend is no standard script a wallet finalizes on its own, so
 * `finalizeBitcoinRefund` puts the signature, the key and the redeem script where the form of the HTLC wants them.
 */
import {
  address as bitcoinAddress,
  networks,
  payments,
  Psbt,
  script,
  type Network as BitcoinJsNetwork,
} from 'bitcoinjs-lib';
import { findMarket, type Network } from '../domain/markets.js';
import type { RefundView } from '../wire/response-shapes.js';

/** How the HTLC output holds its redeem script; lnswap's providers quote P2WSH. */
export type HtlcForm = 'p2wsh' | 'p2sh-p2wsh' | 'p2sh';

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

const BITCOINJS_NETWORKS: Readonly<Record<Network, BitcoinJsNetwork>> = {
  mainnet: networks.bitcoin,
  testnet: networks.testnet,
  simnet: networks.regtest,
};

/** Not final, so that OP_CHECKLOCKTIMEVERIFY reads the lock time; no relative lock time. */
const SEQUENCE_LOCKTIME_ENABLED = 0xfffffffe;
/** A DER signature with its sighash byte is at most 73 bytes; the fee is priced for the longest. */
const MAX_SIGNATURE_BYTES = 73;
const COMPRESSED_KEY_BYTES = 33;
/** Below this a P2WPKH output is dust Bitcoin Core does not relay. */
const DUST_SATOSHIS = 294n;

/** The refund of a Bitcoin order as an unsigned PSBT; throws when the details are not a Bitcoin refund. */
export function bitcoinRefundPsbt(refund: RefundView, options: BitcoinRefundOptions = {}): BitcoinRefund {
  const { details } = refund;
  if (!('redeemScript' in details)) throw new Error('an Ethereum order is refunded with an Ethereum transaction');
  const network = findMarket(refund.market)?.network;
  if (network === undefined) throw new Error(`${refund.market} is not a market this client knows`);
  const bitcoinNetwork = BITCOINJS_NETWORKS[network];
  const refundAddress = options.refundAddress ?? ('refundAddress' in details ? details.refundAddress : undefined);
  if (refundAddress === undefined) throw new Error('the order has no refund address: give one');
  const redeemScript = hexBytes(details.redeemScript);
  const form =
    options.payToAddress === undefined ? 'p2wsh' : formOf(redeemScript, options.payToAddress, bitcoinNetwork);
  const lockTime =
    options.lockTime ??
    ('refundableAtBlockHeight' in refund ? refund.refundableAtBlockHeight : refundHeightOf(redeemScript));
  const feeRate = options.feeTokensPerVirtualByte ?? details.feeTokensPerVirtualByte;
  if (details.utxos.length === 0) throw new Error('nothing is left to refund');
  const total = details.utxos.reduce((sum, utxo) => sum + BigInt(utxo.tokens), 0n);
  const outputScript = bitcoinAddress.toOutputScript(refundAddress, bitcoinNetwork);
  const fee = BigInt(
    Math.ceil(virtualSize(form, redeemScript.length, details.utxos.length, outputScript.length) * feeRate),
  );
  const amount = total - fee;
  if (amount < DUST_SATOSHIS) throw new Error(`the refund of ${total} sat does not cover its fee of ${fee} sat`);

  const psbt = new Psbt({ network: bitcoinNetwork });
  psbt.setVersion(2);
  psbt.setLocktime(lockTime);
  const lockingScript = htlcOutputScript(redeemScript, form);
  for (const utxo of details.utxos) {
    const input = { hash: utxo.txId, index: utxo.index, sequence: SEQUENCE_LOCKTIME_ENABLED };
    if (form === 'p2sh') {
      const fundingHex = options.fundingTransactionsHex?.[utxo.txId];
      if (fundingHex === undefined) throw new Error(`a P2SH HTLC needs its funding transaction ${utxo.txId}`);
      psbt.addInput({ ...input, nonWitnessUtxo: hexBytes(fundingHex), redeemScript });
    } else {
      const witnessUtxo = { script: lockingScript, value: BigInt(utxo.tokens) };
      const nested = form === 'p2sh-p2wsh' ? { redeemScript: htlcOutputScript(redeemScript, 'p2wsh') } : {};
      psbt.addInput({ ...input, witnessUtxo, witnessScript: redeemScript, ...nested });
    }
  }
  psbt.addOutput({ script: outputScript, value: amount });
  return { psbt, form, lockTime, fee, amount };
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

function htlcOutputScript(redeemScript: Uint8Array, form: HtlcForm): Uint8Array {
  const redeem = { output: redeemScript };
  const output =
    form === 'p2sh'
      ? payments.p2sh({ redeem }).output
      : form === 'p2wsh'
        ? payments.p2wsh({ redeem }).output
        : payments.p2sh({ redeem: payments.p2wsh({ redeem }) }).output;
  if (output === undefined) throw new Error('no output script for the redeem script');
  return output;
}

function formOf(redeemScript: Uint8Array, payToAddress: string, network: BitcoinJsNetwork): HtlcForm {
  const paid = bitcoinAddress.toOutputScript(payToAddress, network);
  const forms: HtlcForm[] = ['p2wsh', 'p2sh-p2wsh', 'p2sh'];
  const form = forms.find((candidate) => equalBytes(htlcOutputScript(redeemScript, candidate), paid));
  if (form === undefined) throw new Error(`${payToAddress} is not an address of the redeem script`);
  return form;
}

/** The height the HTLC template pushes before OP_CHECKLOCKTIMEVERIFY. */
function refundHeightOf(redeemScript: Uint8Array): number {
  const chunks = script.decompile(redeemScript) ?? [];
  const at = chunks.indexOf(script.OPS.OP_CHECKLOCKTIMEVERIFY);
  const pushed = chunks[at - 1];
  if (at < 1 || pushed === undefined) throw new Error('the redeem script has no refund height');
  return typeof pushed === 'number' ? pushed - 80 : script.number.decode(pushed, 5);
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

function hexBytes(hex: string): Uint8Array {
  if (!/^(?:[0-9a-fA-F]{2})*$/u.test(hex)) throw new Error('not hex');
  return Uint8Array.from(hex.match(/../gu) ?? [], (byte) => parseInt(byte, 16));
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
