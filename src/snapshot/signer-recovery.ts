import koffi, { type LibraryHandle } from 'koffi';
import { recoverSignerKey } from '../domain/bolt11-reader.js';

/** The compressed key that made a 64-byte signature of a 32-byte hash, or undefined when none did. */
export type RecoverSignerKey = (
  signature: Uint8Array,
  recoveryId: number,
  signingHash: Uint8Array,
) => Uint8Array | undefined;

/**
 * The `secp256k1` package bundles libsecp256k1 as it was in 2019; a system's own build is newer (Debian 12 ships
 * 0.2.0, with the safegcd inversions) and recovers a key about a quarter faster (BENCHMARKS.md). Recovery is most
 * of what a large import costs, so the checker processes use the system's library when there is one, called
 * through koffi, and the bundled one otherwise. Newest soname first.
 */
const SYSTEM_LIBRARY_NAMES = ['libsecp256k1.so.2', 'libsecp256k1.so.1', 'libsecp256k1.so', 'libsecp256k1.dylib'];

/** SECP256K1_CONTEXT_VERIFY: what libraries before 0.2 need for recovery; later ones take it as NONE. */
const CONTEXT_VERIFY = 0x0101;
/** SECP256K1_EC_COMPRESSED. */
const COMPRESSED = 0x0102;
/** The library's opaque structs: a parsed recoverable signature and a public key. */
const RECOVERABLE_SIGNATURE_BYTES = 65;
const PUBLIC_KEY_BYTES = 64;
const COMPRESSED_KEY_BYTES = 33;

/** The system's libsecp256k1, or undefined when none can be loaded (or it was built without recovery). */
export function loadSystemRecovery(names: readonly string[] = SYSTEM_LIBRARY_NAMES): RecoverSignerKey | undefined {
  for (const name of names) {
    try {
      return bindRecovery(koffi.load(name));
    } catch {
      // Not installed under this name, or lacking the recovery module: try the next.
    }
  }
  return undefined;
}

/** The system's libsecp256k1 when it can be loaded, else the one bundled in the `secp256k1` package. */
export function fastestRecovery(): RecoverSignerKey {
  return loadSystemRecovery() ?? recoverSignerKey;
}

function bindRecovery(library: LibraryHandle): RecoverSignerKey {
  const createContext = library.func('void *secp256k1_context_create(unsigned int flags)');
  const parseSignature = library.func(
    'int secp256k1_ecdsa_recoverable_signature_parse_compact(void *ctx, _Out_ uint8_t *signature, const uint8_t *input64, int recid)',
  );
  const recover = library.func(
    'int secp256k1_ecdsa_recover(void *ctx, _Out_ uint8_t *pubkey, const uint8_t *signature, const uint8_t *msghash32)',
  );
  const serialize = library.func(
    'int secp256k1_ec_pubkey_serialize(void *ctx, _Out_ uint8_t *output, _Inout_ size_t *outputlen, const uint8_t *pubkey, unsigned int flags)',
  );
  const context: unknown = createContext(CONTEXT_VERIFY);
  if (context === null) throw new Error('secp256k1_context_create failed');
  const parsed = Buffer.alloc(RECOVERABLE_SIGNATURE_BYTES);
  const publicKey = Buffer.alloc(PUBLIC_KEY_BYTES);
  const outputLength = [COMPRESSED_KEY_BYTES];
  return (signature, recoveryId, signingHash) => {
    // The library reads exactly 64 and 32 bytes through these pointers: shorter buffers would be overrun.
    if (signature.length !== 64 || signingHash.length !== 32 || recoveryId < 0 || recoveryId > 3) return undefined;
    if (parseSignature(context, parsed, signature, recoveryId) !== 1) return undefined;
    if (recover(context, publicKey, parsed, signingHash) !== 1) return undefined;
    const key = new Uint8Array(COMPRESSED_KEY_BYTES);
    outputLength[0] = COMPRESSED_KEY_BYTES;
    serialize(context, key, outputLength, publicKey, COMPRESSED);
    return key;
  };
}
