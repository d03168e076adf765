import type { PrivateKeyAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { nodeCallFailureIn } from '../chains/node-faults.js';
import { nodeUrlForLog } from '../domain/node-url.js';
import { UsageError } from './usage-error.js';

/** A node's failure as one line naming its host and the fault; anything else as it is. */
export function nodeFailureOrItself(error: unknown, rpcUrl: string): unknown {
  const failure = nodeCallFailureIn(error);
  if (failure !== undefined) return failure;
  if (error instanceof TypeError || error instanceof SyntaxError || error instanceof RangeError) {
    return new Error(`the Ethereum node at ${nodeUrlForLog(rpcUrl)} answered something that is not a JSON-RPC result`, {
      cause: error,
    });
  }
  return error;
}

/** 64 hex digits can still fall outside the curve's order; say so, naming the variable, without echoing the key. */
export function accountOfKey(privateKey: `0x${string}`, variable: string): PrivateKeyAccount {
  try {
    return privateKeyToAccount(privateKey);
  } catch {
    throw new UsageError(`${variable} is not a valid secp256k1 private key`);
  }
}
