/**
 * The provider's Bitcoin claim key of each order, derived from its seed (BIP32).
 *
 * API: `ClaimKeys.fromSeed(seed)`; `keys.publicKey(orderId)` → 33-byte compressed key, hex;
 * `keys.sign(orderId, digest)` → 64-byte compact signature (r‖s, low S, RFC 6979 deterministic);
 * `claimKeyPath(orderId)` → the derivation path.
 *
 * The path is `m/9735'/h0'/h1'/h2'/h3'`, where h0..h3 are the first four 31-bit pieces of
 * SHA-256 of the order id (lowercase, dashed). Why from the order id rather than a counter: the key
 * of any order can be derived again from the seed and the order id alone (both of which survive the
 * loss of the state file, the order id and redeem script being public at the service), nothing must be
 * written before quoting, and two orders never share a key (124 bits of hash). Why hardened at every
 * level: a child private key together with its parent's extended public key gives away the parent
 * private key in non-hardened derivation; hardened, one order's key exposed reveals nothing of the others.
 * 9735' (Lightning's port number) is no wallet's purpose (BIP 44/49/84/86), so a wallet restored
 * from the same seed never takes these keys for its own addresses.
 */
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { HARDENED_OFFSET, HDKey } from '@scure/bip32';
import { normalizeOrderId } from '../../domain/order-ids.js';

const PURPOSE = 9735;
const PIECES = 4;
const PIECE_MASK = 0x7fffffff;

/** The derivation path of an order's claim key below the seed. */
export function claimKeyPath(orderId: string): string {
  return `m/${PURPOSE}'/${orderIndexes(orderId)
    .map((index) => `${index}'`)
    .join('/')}`;
}

function orderIndexes(orderId: string): number[] {
  const normalized = normalizeOrderId(orderId);
  if (normalized === undefined) throw new Error(`not an order id: ${JSON.stringify(orderId)}`);
  const digest = createHash('sha256').update(normalized).digest();
  return Array.from({ length: PIECES }, (_, piece) => digest.readUInt32BE(piece * 4) & PIECE_MASK);
}

/**
 * Holds the seed's root key in a private field and shows nothing of it: `JSON.stringify`, `util.inspect`
 * and string conversion all give `[ClaimKeys]`, so no log line can carry the seed by accident.
 */
export class ClaimKeys {
  readonly #purpose: HDKey;

  private constructor(purpose: HDKey) {
    this.#purpose = purpose;
  }

  static fromSeed(seed: Uint8Array): ClaimKeys {
    return new ClaimKeys(HDKey.fromMasterSeed(seed).deriveChild(HARDENED_OFFSET + PURPOSE));
  }

  /** The order's claim public key, compressed, hex: what the quote's redeem script names. */
  publicKey(orderId: string): string {
    return Buffer.from(this.orderKey(orderId).publicKey ?? []).toString('hex');
  }

  /** Signs a 32-byte digest (a transaction's signature hash) with the order's claim key. */
  sign(orderId: string, digest: Uint8Array): Uint8Array {
    return this.orderKey(orderId).sign(digest);
  }

  private orderKey(orderId: string): HDKey {
    return orderIndexes(orderId).reduce((key, index) => key.deriveChild(HARDENED_OFFSET + index), this.#purpose);
  }

  toJSON(): string {
    return '[ClaimKeys]';
  }

  toString(): string {
    return '[ClaimKeys]';
  }

  [inspect.custom](): string {
    return '[ClaimKeys]';
  }
}
