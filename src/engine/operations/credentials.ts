import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { LnswapError } from '../../domain/errors.js';
import type { ProviderCredential } from '../../domain/order.js';
import { isValidProviderName } from '../../domain/provider-names.js';
import type { ProviderStore } from '../../store/store.js';
import { credentialsShape } from '../../wire/socket-payloads.js';
import { payloadReader } from '../lifecycle/payload-shapes.js';

/** scrypt at the cost OWASP recommends: slow enough to make a stolen hash expensive to attack. */
const SCRYPT_PARAMETERS = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const HASH_PREFIX = 'scrypt';

export interface IssuedCredential {
  readonly credential: ProviderCredential;
  /** Shown to the operator once; only its hash is kept. */
  readonly secretKey: string;
}

export async function issueProviderCredential(name: string, now: number): Promise<IssuedCredential> {
  if (!isValidProviderName(name)) {
    throw new Error('a provider name is 1 to 64 letters, digits, dots, dashes or underscores, not starting with . - _');
  }
  const secretKey = randomBytes(32).toString('base64url');
  return {
    credential: {
      name,
      apiKey: randomBytes(16).toString('hex'),
      secretHash: await hashSecret(secretKey),
      createdAt: now,
    },
    secretKey,
  };
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64url, so the cost can be raised later. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const { N, r, p } = SCRYPT_PARAMETERS;
  const hash = await derive(secret, salt, KEY_LENGTH, { N, r, p });
  return [HASH_PREFIX, N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function secretMatchesHash(secret: string, secretHash: string): Promise<boolean> {
  const parts = secretHash.split('$');
  if (parts.length !== 6 || parts[0] !== HASH_PREFIX) return false;
  const [N = 0, r = 0, p = 0] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4] ?? '', 'base64url');
  const expected = Buffer.from(parts[5] ?? '', 'base64url');
  if (![N, r, p].every((value) => Number.isSafeInteger(value) && value > 0)) return false;
  if (expected.length === 0) return false;
  const actual = await derive(secret, salt, expected.length, { N, r, p });
  return timingSafeEqual(actual, expected);
}

/** Compared against when the api key is unknown, so a miss costs as much time as a wrong secret. */
let decoyHash: Promise<string> | undefined;

function decoy(): Promise<string> {
  decoyHash ??= hashSecret(randomBytes(32).toString('base64url'));
  return decoyHash;
}

const readCredentials = payloadReader<{ apiKey: string; secretKey: string }>(credentialsShape);

/**
 * Checks `{ apiKey, secretKey }` against the operator-issued credentials; throws
 * InvalidOrMissingCredentials for anything but an unrevoked match.
 */
export async function authenticateProvider(store: ProviderStore, payload: unknown): Promise<ProviderCredential> {
  const { apiKey, secretKey } = readCredentials(payload);
  const credential = await store.findProviderCredentialByApiKey(apiKey);
  const matches = await secretMatchesHash(secretKey, credential?.secretHash ?? (await decoy()));
  if (credential === undefined || !matches || credential.revokedAt !== undefined) {
    throw new LnswapError('InvalidOrMissingCredentials');
  }
  return credential;
}

function derive(secret: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  const { N = 0, r = 0 } = options;
  return new Promise((resolve, reject) => {
    // scrypt needs about 128 * N * r bytes, which for N = 2^15 sits right at Node's default cap.
    scrypt(secret, salt, keyLength, { ...options, maxmem: 256 * N * r }, (error, key) =>
      error === null ? resolve(key) : reject(error),
    );
  });
}
