/**
 * The provider's Bitcoin seed, from which every order's claim key is derived (claim-keys.ts).
 *
 * API: `bitcoinSeedFromEnvironment(environment)` → the seed bytes, from `LNSWAP_PROVIDER_BITCOIN_SEED`
 * (hex) or `LNSWAP_PROVIDER_BITCOIN_SEED_FILE` (a file holding the hex). Never a flag: a flag shows in
 * `ps` and shell history. An error names the variable or the file, never the seed.
 */
import { readFileSync } from 'node:fs';

export const SEED_VARIABLE = 'LNSWAP_PROVIDER_BITCOIN_SEED';
export const SEED_FILE_VARIABLE = 'LNSWAP_PROVIDER_BITCOIN_SEED_FILE';

/** BIP32 takes seeds of 128 to 512 bits. */
const MINIMUM_SEED_BYTES = 16;
const MAXIMUM_SEED_BYTES = 64;

/** Exactly one of the two variables must be set; the seed is hex (whitespace around it ignored). */
export function bitcoinSeedFromEnvironment(environment: NodeJS.ProcessEnv): Uint8Array {
  const inline = nonEmpty(environment[SEED_VARIABLE]);
  const file = nonEmpty(environment[SEED_FILE_VARIABLE]);
  if (inline !== undefined && file !== undefined) {
    throw new Error(`set ${SEED_VARIABLE} or ${SEED_FILE_VARIABLE}, not both`);
  }
  if (inline !== undefined) return parseSeed(inline, SEED_VARIABLE);
  if (file !== undefined) return parseSeed(readSeedFile(file), `the file named by ${SEED_FILE_VARIABLE}`);
  throw new Error(`${SEED_VARIABLE} or ${SEED_FILE_VARIABLE} must be set: Bitcoin claim keys are derived from it`);
}

function readSeedFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the Bitcoin seed file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, {
      cause: error,
    });
  }
}

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

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
