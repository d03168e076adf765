/**
 * The provider's Bitcoin seed, from which every order's claim key is derived (claim-keys.ts).
 *
 * API: `parseSeed(text, where)` → the seed bytes. `lnswap provider` reads the text from
 * `LNSWAP_PROVIDER_BITCOIN_SEED` or the file `LNSWAP_PROVIDER_BITCOIN_SEED_FILE` names (`secretFromEnv`), never
 * from a flag: a flag shows in `ps` and shell history. An error names where the seed came from, never the seed.
 */

/** BIP32 takes seeds of 128 to 512 bits. */
const MINIMUM_SEED_BYTES = 16;
const MAXIMUM_SEED_BYTES = 64;

/** `where` names the source in errors; the value itself is never repeated. */
export function parseSeed(text: string, where: string): Uint8Array {
  const hex = text.trim();
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex)) throw new Error(`${where}: the Bitcoin seed must be hex`);
  const bytes = Buffer.from(hex, 'hex');
  if (bytes.length < MINIMUM_SEED_BYTES || bytes.length > MAXIMUM_SEED_BYTES) {
    throw new Error(`${where}: the Bitcoin seed must be ${MINIMUM_SEED_BYTES} to ${MAXIMUM_SEED_BYTES} bytes`);
  }
  return new Uint8Array(bytes);
}
