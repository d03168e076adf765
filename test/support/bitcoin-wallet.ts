/**
 * What a user's or a provider's Bitcoin wallet does with an lnswap HTLC, built with bitcoinjs-lib and
 * signed with libsecp256k1: fund it, claim it with the preimage, refund it after the timelock. And
 * bitcore-lib's script interpreter, a second implementation, judges the spends as a node would.
 */
import { createHash } from 'node:crypto';
import bitcore from 'bitcore-lib';
import { address as bitcoinAddress, payments, script, Transaction, type Signer } from 'bitcoinjs-lib';
import secp256k1 from 'secp256k1';
import { bitcoinJsNetwork } from '../../src/domain/bitcoin.js';
import { findMarket, type Network } from '../../src/domain/markets.js';

/** How an HTLC output holds its redeem script: legacy P2SH, native P2WSH, or P2WSH nested in P2SH. */
export type HtlcForm = 'p2sh' | 'p2wsh' | 'p2sh-p2wsh';
export const HTLC_FORMS: readonly HtlcForm[] = ['p2sh', 'p2wsh', 'p2sh-p2wsh'];

export interface WalletKey {
  readonly privateKey: Uint8Array;
  /** Compressed, 33 bytes. */
  readonly publicKey: Uint8Array;
}

export function walletKey(privateKeyHex: string): WalletKey {
  const privateKey = Buffer.from(privateKeyHex, 'hex');
  return { privateKey, publicKey: secp256k1.publicKeyCreate(privateKey, true) };
}

/** The key as bitcoinjs-lib's PSBT signing takes it (`psbt.signAllInputs`), signing with libsecp256k1. */
export function psbtSigner(key: WalletKey): Signer {
  return { publicKey: key.publicKey, sign: (hash) => secp256k1.ecdsaSign(hash, key.privateKey).signature };
}

export function p2wpkhAddress(key: WalletKey, network: Network): string {
  const { address } = payments.p2wpkh({ pubkey: key.publicKey, network: bitcoinJsNetwork(network) });
  if (address === undefined) throw new Error('bitcoinjs produced no address');
  return address;
}

export function htlcOutputScript(redeemScriptHex: string, form: HtlcForm): Uint8Array {
  const redeem = { output: Buffer.from(redeemScriptHex, 'hex') };
  const output =
    form === 'p2sh'
      ? payments.p2sh({ redeem }).output
      : form === 'p2wsh'
        ? payments.p2wsh({ redeem }).output
        : payments.p2sh({ redeem: payments.p2wsh({ redeem }) }).output;
  if (output === undefined) throw new Error('bitcoinjs produced no output script');
  return output;
}

/** The HTLC form whose address is `payToAddress`. */
export function formOfAddress(redeemScriptHex: string, payToAddress: string, network: Network): HtlcForm {
  const outputScript = Buffer.from(bitcoinAddress.toOutputScript(payToAddress, bitcoinJsNetwork(network)));
  const form = HTLC_FORMS.find((candidate) => outputScript.equals(htlcOutputScript(redeemScriptHex, candidate)));
  if (form === undefined) throw new Error(`${payToAddress} is not an address of the redeem script`);
  return form;
}

function signatureFor(sighash: Uint8Array, key: WalletKey): Uint8Array {
  const { signature } = secp256k1.ecdsaSign(sighash, key.privateKey);
  return script.signature.encode(Buffer.from(signature), Transaction.SIGHASH_ALL);
}

/** Fills input `index` with `stack(signature)` and the redeem script, where the form wants them. */
function signHtlcInput(
  tx: Transaction,
  index: number,
  form: HtlcForm,
  redeemScriptHex: string,
  amount: bigint,
  key: WalletKey,
  stack: (signature: Uint8Array) => Uint8Array[],
): void {
  const redeemScript = Buffer.from(redeemScriptHex, 'hex');
  if (form === 'p2sh') {
    const signature = signatureFor(tx.hashForSignature(index, redeemScript, Transaction.SIGHASH_ALL), key);
    tx.setInputScript(index, script.compile([...stack(signature), redeemScript]));
    return;
  }
  const signature = signatureFor(tx.hashForWitnessV0(index, redeemScript, amount, Transaction.SIGHASH_ALL), key);
  tx.setWitness(index, [...stack(signature), redeemScript]);
  if (form === 'p2sh-p2wsh') tx.setInputScript(index, script.compile([htlcOutputScript(redeemScriptHex, 'p2wsh')]));
}

export interface Outpoint {
  readonly txId: string;
  readonly index: number;
  readonly amount: bigint;
}

function addOutpoint(tx: Transaction, outpoint: Outpoint, sequence: number): void {
  tx.addInput(Buffer.from(outpoint.txId, 'hex').reverse(), outpoint.index, sequence);
}

/** Not final, so that CHECKLOCKTIMEVERIFY looks at the lock time; no relative lock time either. */
const SEQUENCE_LOCKTIME_ENABLED = 0xfffffffe;

/**
 * A transaction paying `payments` from a P2WPKH coin of `key` (`coin`, which the caller made up or took
 * from an earlier transaction), signed; the change goes back to the key. `fee` (1,000 sat unless told) lets
 * a second spend of the same coin outbid the first (replace-by-fee).
 */
export function buildPayment(
  key: WalletKey,
  coin: Outpoint,
  outputs: readonly { address: string; amount: bigint }[],
  network: Network,
  fee = 1_000n,
): Transaction {
  const bitcoinNetwork = bitcoinJsNetwork(network);
  const tx = new Transaction();
  tx.version = 2;
  addOutpoint(tx, coin, SEQUENCE_LOCKTIME_ENABLED);
  for (const output of outputs)
    tx.addOutput(bitcoinAddress.toOutputScript(output.address, bitcoinNetwork), output.amount);
  const spent = outputs.reduce((sum, output) => sum + output.amount, 0n);
  const change = coin.amount - spent - fee;
  if (change < 0n) throw new Error('the coin does not cover the payment and its fee');
  if (change > 0n) tx.addOutput(bitcoinAddress.toOutputScript(p2wpkhAddress(key, network), bitcoinNetwork), change);
  const scriptCode = payments.p2pkh({ pubkey: key.publicKey }).output;
  if (scriptCode === undefined) throw new Error('bitcoinjs produced no script code');
  const signature = signatureFor(tx.hashForWitnessV0(0, scriptCode, coin.amount, Transaction.SIGHASH_ALL), key);
  tx.setWitness(0, [signature, key.publicKey]);
  return tx;
}

/** The provider's claim: its signature and the preimage open the OP_IF branch. */
export function buildClaim(
  redeemScriptHex: string,
  form: HtlcForm,
  htlcOutputs: readonly Outpoint[],
  preimageHex: string,
  claimKey: WalletKey,
  network: Network,
): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  for (const outpoint of htlcOutputs) addOutpoint(tx, outpoint, SEQUENCE_LOCKTIME_ENABLED);
  const total = htlcOutputs.reduce((sum, outpoint) => sum + outpoint.amount, 0n);
  tx.addOutput(
    bitcoinAddress.toOutputScript(p2wpkhAddress(claimKey, network), bitcoinJsNetwork(network)),
    total - 500n,
  );
  const preimage = Buffer.from(preimageHex, 'hex');
  htlcOutputs.forEach((outpoint, index) =>
    signHtlcInput(tx, index, form, redeemScriptHex, outpoint.amount, claimKey, (signature) => [signature, preimage]),
  );
  return tx;
}

/** The refund details object of `GET /api/orders/:id/refund`, as JSON. */
export interface RefundJson {
  readonly market: string;
  readonly refundableAtBlockHeight?: number;
  readonly details: {
    readonly refundAddress?: string;
    readonly redeemScript: string;
    readonly currentBlockHeight: number;
    readonly feeTokensPerVirtualByte: number;
    readonly utxos: readonly { readonly txId: string; readonly index: number; readonly tokens: number }[];
  };
}

/**
 * The user's refund, from nothing but the refund JSON and the refund key: every HTLC output back to the
 * refund address, less the fee at the rate given, locked to `lockTime` (the refundable height unless told).
 * The JSON does not say which form the outputs have, so the wallet signs for the form it is told to try.
 */
export function buildRefundFromJson(
  json: RefundJson,
  refundKey: WalletKey,
  form: HtlcForm,
  lockTime: number = json.refundableAtBlockHeight ?? json.details.currentBlockHeight,
): Transaction {
  const network = findMarket(json.market)?.network;
  const { refundAddress, redeemScript, feeTokensPerVirtualByte, utxos } = json.details;
  if (network === undefined || refundAddress === undefined)
    throw new Error('the refund JSON names no market or address');
  const outpoints = utxos.map((utxo) => ({ txId: utxo.txId, index: utxo.index, amount: BigInt(utxo.tokens) }));
  const total = outpoints.reduce((sum, outpoint) => sum + outpoint.amount, 0n);
  const build = (fee: bigint): Transaction => {
    const tx = new Transaction();
    tx.version = 2;
    tx.locktime = lockTime;
    for (const outpoint of outpoints) addOutpoint(tx, outpoint, SEQUENCE_LOCKTIME_ENABLED);
    tx.addOutput(bitcoinAddress.toOutputScript(refundAddress, bitcoinJsNetwork(network)), total - fee);
    outpoints.forEach((outpoint, index) =>
      signHtlcInput(tx, index, form, redeemScript, outpoint.amount, refundKey, (signature) => [
        signature,
        refundKey.publicKey,
        Buffer.alloc(0),
      ]),
    );
    return tx;
  };
  const sized = build(0n);
  return build(BigInt(Math.ceil(sized.virtualSize() * feeTokensPerVirtualByte)));
}

const Interpreter = bitcore.Script.Interpreter;
/**
 * What Bitcoin Core enforces on relay (standardness), for the features the HTLC uses, but CLEANSTACK:
 * bitcore checks it on the stack the scriptSig left even for a native witness spend, which is always empty;
 * a witness script must leave exactly one element anyway (consensus, which bitcore does check).
 */
const NODE_FLAGS =
  Interpreter.SCRIPT_VERIFY_P2SH |
  Interpreter.SCRIPT_VERIFY_STRICTENC |
  Interpreter.SCRIPT_VERIFY_DERSIG |
  Interpreter.SCRIPT_VERIFY_LOW_S |
  Interpreter.SCRIPT_VERIFY_NULLDUMMY |
  Interpreter.SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY |
  Interpreter.SCRIPT_VERIFY_CHECKSEQUENCEVERIFY |
  Interpreter.SCRIPT_VERIFY_WITNESS |
  Interpreter.SCRIPT_VERIFY_MINIMALIF |
  Interpreter.SCRIPT_VERIFY_NULLFAIL;

/** Whether input `index` of `txHex` may spend `spent` (its output script and amount): '' when it may, else why not. */
export function scriptError(txHex: string, index: number, spent: { script: Uint8Array; amount: bigint }): string {
  const tx = new bitcore.Transaction(txHex);
  const input = tx.inputs[index];
  if (input === undefined) throw new Error(`the transaction has no input ${index}`);
  const interpreter = new Interpreter();
  const scriptPubkey = bitcore.Script.fromHex(Buffer.from(spent.script).toString('hex'));
  const ok = interpreter.verify(
    input.script,
    scriptPubkey,
    tx,
    index,
    NODE_FLAGS,
    input.getWitnesses() ?? [],
    Number(spent.amount),
  );
  return ok ? '' : interpreter.errstr || 'failed';
}

export function sha256Hex(hex: string): string {
  return createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
}
