/**
 * The bytes of lnswap's submarine-swap HTLC, written once for the service and for wallets: bitcoinjs-lib's script
 * compiler and nothing of Node, so that the client library checks a quote in a browser against the very template
 * the service builds. Whether a claim key is a point on the curve is the service's check (src/domain/bitcoin.ts):
 * a wallet only needs the script to be the template, whatever key the provider claims with.
 *
 *   OP_SHA256 <paymentHash> OP_EQUAL
 *   OP_IF <claimPublicKey>
 *   OP_ELSE <height> OP_CHECKLOCKTIMEVERIFY OP_DROP OP_DUP OP_HASH160 <refundPublicKeyHash> OP_EQUALVERIFY
 *   OP_ENDIF OP_CHECKSIG
 */
import { opcodes, script } from 'bitcoinjs-lib';

/** The template's terms as bytes. */
export interface HtlcScriptParts {
  /** 32 bytes: the invoice's payment hash, which the claim's preimage must hash to. */
  readonly paymentHash: Uint8Array;
  /** 33 bytes, a compressed key: the provider's, which signs the claim. */
  readonly claimPublicKey: Uint8Array;
  /** 20 bytes: HASH160 of the key that signs the refund. */
  readonly refundPublicKeyHash: Uint8Array;
  /** The height from which the refund branch opens (OP_CHECKLOCKTIMEVERIFY). */
  readonly refundableAtBlockHeight: number;
}

/** Lock times from this value up are Unix times, not block heights. */
export const LOCKTIME_THRESHOLD = 500_000_000;

/** The redeem script of `parts`, which the caller has checked (lengths, a height below `LOCKTIME_THRESHOLD`). */
export function compileHtlcScript(parts: HtlcScriptParts): Uint8Array {
  return script.compile([
    opcodes.OP_SHA256,
    parts.paymentHash,
    opcodes.OP_EQUAL,
    opcodes.OP_IF,
    parts.claimPublicKey,
    opcodes.OP_ELSE,
    script.number.encode(parts.refundableAtBlockHeight),
    opcodes.OP_CHECKLOCKTIMEVERIFY,
    opcodes.OP_DROP,
    opcodes.OP_DUP,
    opcodes.OP_HASH160,
    parts.refundPublicKeyHash,
    opcodes.OP_EQUALVERIFY,
    opcodes.OP_ENDIF,
    opcodes.OP_CHECKSIG,
  ]);
}

/**
 * The terms of a script that is the template exactly, else undefined. Strict by construction: the terms found are
 * compiled again and must give the script byte for byte, which also refuses a non-minimal push, an extra opcode
 * or a byte after the last. Never throws, whatever it is given.
 */
export function readHtlcScript(bytes: Uint8Array): HtlcScriptParts | undefined {
  if (!(bytes instanceof Uint8Array)) return undefined;
  try {
    const chunks = script.decompile(bytes);
    if (chunks === null || chunks.length !== 15) return undefined;
    const [, paymentHash, , , claimPublicKey, , height, , , , , refundPublicKeyHash] = chunks;
    if (!isBytes(paymentHash, 32) || !isBytes(claimPublicKey, 33) || !isBytes(refundPublicKeyHash, 20)) {
      return undefined;
    }
    if (claimPublicKey[0] !== 0x02 && claimPublicKey[0] !== 0x03) return undefined;
    if (height === undefined) return undefined;
    const refundableAtBlockHeight =
      typeof height === 'number' ? smallIntegerOpcodeValue(height) : script.number.decode(height, 5, true);
    if (refundableAtBlockHeight < 1 || refundableAtBlockHeight >= LOCKTIME_THRESHOLD) return undefined;
    const parts = { paymentHash, claimPublicKey, refundPublicKeyHash, refundableAtBlockHeight };
    return equalBytes(compileHtlcScript(parts), bytes) ? parts : undefined;
  } catch {
    return undefined;
  }
}

// Script opcodes decode as plain numbers; these compare with them as numbers.
const OP_1: number = opcodes.OP_1;
const OP_16: number = opcodes.OP_16;

/** Minimal encoding pushes heights 1 to 16 as OP_1..OP_16. */
function smallIntegerOpcodeValue(opcode: number): number {
  return opcode >= OP_1 && opcode <= OP_16 ? opcode - OP_1 + 1 : -1;
}

function isBytes(chunk: Uint8Array | number | undefined, length: number): chunk is Uint8Array {
  return chunk instanceof Uint8Array && chunk.length === length;
}

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}
