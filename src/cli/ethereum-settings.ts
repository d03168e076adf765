import { DEFAULT_ENGINE_OPTIONS } from '../engine/operations/options.js';
import type { CliContext } from './command.js';
import { secretFromEnv, warnIfCredentialInFlag } from './secrets.js';
import { UsageError } from './usage-error.js';

type Environment = Readonly<Record<string, string | undefined>>;

/** The contract's refund delay the engine's quotes assume: 5,760 blocks, about 19 hours at 12 s a block. */
export const DEFAULT_REFUND_DELAY_BLOCKS = DEFAULT_ENGINE_OPTIONS.ethereumRefundDelayBlocks;

/**
 * A JSON-RPC endpoint over HTTP(S); undefined when neither the flag nor ETHEREUM_RPC_URL (or ETHEREUM_RPC_URL_FILE)
 * names one. Errors never repeat the URL: a provider's URL carries its API key.
 */
export function ethereumRpcUrlFrom(
  flag: string | undefined,
  { env, stderr }: Pick<CliContext, 'env' | 'stderr'>,
): string | undefined {
  if (flag !== undefined) warnIfCredentialInFlag('ethereum-rpc', flag, 'ETHEREUM_RPC_URL', stderr);
  const text = flag ?? secretFromEnv('ETHEREUM_RPC_URL', env);
  if (text === undefined) return undefined;
  const source = flag === undefined ? 'ETHEREUM_RPC_URL' : '--ethereum-rpc';
  if (text.trim() === '') throw new UsageError(`${source} is empty`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${source} must be an http:// or https:// URL of an Ethereum JSON-RPC node`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${source} must be an http:// or https:// URL of an Ethereum JSON-RPC node`);
  }
  return text;
}

export function refundDelayFrom(flag: string | undefined): bigint {
  if (flag === undefined) return BigInt(DEFAULT_REFUND_DELAY_BLOCKS);
  if (!/^[1-9]\d{0,8}$/.test(flag)) {
    throw new UsageError(`--refund-delay must be a whole number of blocks from 1 to 999999999, not "${flag}"`);
  }
  return BigInt(flag);
}

/**
 * The deployer's secp256k1 key from DEPLOYER_PRIVATE_KEY or the file DEPLOYER_PRIVATE_KEY_FILE names, 64 hex
 * digits with or without 0x. Errors describe the value's shape, never the value.
 */
export function deployerPrivateKeyFrom(env: Environment): `0x${string}` {
  return privateKeyFrom(env, 'DEPLOYER_PRIVATE_KEY', 'deployer');
}

/** The contract owner's key from OWNER_PRIVATE_KEY or OWNER_PRIVATE_KEY_FILE, as `deployerPrivateKeyFrom`. */
export function ownerPrivateKeyFrom(env: Environment): `0x${string}` {
  return privateKeyFrom(env, 'OWNER_PRIVATE_KEY', 'owner');
}

function privateKeyFrom(env: Environment, variable: string, role: string): `0x${string}` {
  const raw = secretFromEnv(variable, env);
  if (raw === undefined || raw.trim() === '') {
    throw new UsageError(`the ${role} key is missing: set ${variable} (or ${variable}_FILE) to its 64 hex digits`);
  }
  const hex = raw.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new UsageError(`${variable} must be 64 hex digits, with or without 0x`);
  }
  return `0x${hex.toLowerCase()}`;
}
