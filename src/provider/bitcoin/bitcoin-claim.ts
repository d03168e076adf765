/**
 * The provider's claim of a Bitcoin HTLC: one transaction spending every output of the order with
 * the preimage and the order's claim key, paying the rest to the provider's payout address.
 *
 * API: `buildBitcoinClaim(request)` → `{ hex, txId, fee, virtualSize }`, signed; throws
 * `ClaimNotWorthIt` when the fee at the rate asked leaves less than the dust limit.
 *
 * Each input's witness is `<signature> <preimage> <redeem script>` (the OP_IF branch of the template
 * in src/domain/bitcoin.ts), signed SIGHASH_ALL over BIP 143's digest. Every input's sequence is
 * 0xfffffffd: it signals replaceability (BIP 125), so a claim stuck at too low a fee can be replaced
 * by the same spend at a higher one. The lock time is 0: the claim path has no time lock.
 *
 * The fee is the rate times the virtual size counted with 72-byte signatures, the longest a low-S DER
 * signature is, so the rate paid is never below the rate asked; and two claims of the same outputs
 * differ in fee by exactly (rate difference × that size), which is how a replacement at a rate one
 * satoshi per vbyte higher always adds the incremental relay fee BIP 125 asks for.
 */
import { address as bitcoinAddress, payments, script, Transaction } from 'bitcoinjs-lib';
import { bitcoinJsNetwork, parseHtlcRedeemScript } from '../../domain/bitcoin.js';
import type { Network } from '../../domain/markets.js';
import type { ClaimKeys } from '../keys/claim-keys.js';

export interface BitcoinClaimRequest {
  orderId: string;
  redeemScript: string;
  /** The HTLC's address: native P2WSH of the redeem script, as the provider quotes. */
  payToAddress: string;
  outputs: readonly { txId: string; outputIndex: number; amount: bigint }[];
  /** 64 hex. */
  preimage: string;
  payoutAddress: string;
  network: Network;
  /** Satoshis per virtual byte. */
  feeRate: bigint;
  keys: ClaimKeys;
}

export interface BitcoinClaim {
  hex: string;
  txId: string;
  fee: bigint;
  virtualSize: number;
}

/** An output below this is refused by nodes as dust (546 satoshis covers every output type). */
export const DUST_LIMIT = 546n;

/** Signals BIP 125 replaceability and leaves the lock time unenforced, which the claim path does not need. */
export const REPLACEABLE_SEQUENCE = 0xfffffffd;

/** The longest DER signature with a low S and its sighash byte. */
const LONGEST_SIGNATURE_BYTES = 73;

export class ClaimNotWorthIt extends Error {
  constructor(
    readonly total: bigint,
    readonly fee: bigint,
  ) {
    super(`ClaimNotWorthIt: a fee of ${fee} satoshis leaves less than ${DUST_LIMIT} of ${total}`);
    this.name = 'ClaimNotWorthIt';
  }
}

export function buildBitcoinClaim(request: BitcoinClaimRequest): BitcoinClaim {
  const { network, keys, orderId } = request;
  const bitcoinNetwork = bitcoinJsNetwork(network);
  const redeemScript = Buffer.from(request.redeemScript, 'hex');
  const terms = parseHtlcRedeemScript(request.redeemScript);
  if (terms === undefined) throw new Error('the claim needs an HTLC redeem script of the template');
  // A script naming another key cannot be spent by this provider: better said now than by the node.
  if (terms.claimPublicKey !== keys.publicKey(orderId)) {
    throw new Error(`the redeem script of order ${orderId} does not name this provider's claim key`);
  }
  const p2wsh = payments.p2wsh({ redeem: { output: redeemScript }, network: bitcoinNetwork });
  if (p2wsh.address !== request.payToAddress) throw new Error('the HTLC address is not the P2WSH of its redeem script');
  if (request.outputs.length === 0) throw new Error('a claim needs at least one HTLC output');
  const preimage = Buffer.from(request.preimage, 'hex');
  if (preimage.length !== 32) throw new Error('the preimage must be 32 bytes');

  const total = request.outputs.reduce((sum, output) => sum + output.amount, 0n);
  const payout = bitcoinAddress.toOutputScript(request.payoutAddress, bitcoinNetwork);
  const unsigned = (value: bigint): Transaction => {
    const tx = new Transaction();
    tx.version = 2;
    tx.locktime = 0;
    for (const output of request.outputs) {
      tx.addInput(Buffer.from(output.txId, 'hex').reverse(), output.outputIndex, REPLACEABLE_SEQUENCE);
    }
    tx.addOutput(payout, value);
    return tx;
  };

  const sizing = unsigned(total);
  request.outputs.forEach((_, index) =>
    sizing.setWitness(index, [Buffer.alloc(LONGEST_SIGNATURE_BYTES), preimage, redeemScript]),
  );
  const virtualSize = sizing.virtualSize();
  const fee = request.feeRate * BigInt(virtualSize);
  if (total - fee < DUST_LIMIT) throw new ClaimNotWorthIt(total, fee);

  const tx = unsigned(total - fee);
  request.outputs.forEach((output, index) => {
    const digest = tx.hashForWitnessV0(index, redeemScript, output.amount, Transaction.SIGHASH_ALL);
    const signature = script.signature.encode(Buffer.from(keys.sign(orderId, digest)), Transaction.SIGHASH_ALL);
    tx.setWitness(index, [signature, preimage, redeemScript]);
  });
  return { hex: tx.toHex(), txId: tx.getId(), fee, virtualSize };
}
