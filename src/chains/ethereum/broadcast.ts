import { parseTransaction, type PublicClient } from 'viem';
import { BroadcastRefused } from '../chain-backend.js';

/**
 * Sends a signed Ethereum transaction through `client`. The hex is parsed first, so what is not a signed
 * transaction is refused as `InvalidTransaction` without bothering the node; a node's refusal is
 * `TransactionRejected` with the node's own words kept for the log.
 */
export async function broadcastEthereumTransaction(client: PublicClient, signedTxHex: string): Promise<string> {
  const hex = (signedTxHex.startsWith('0x') ? signedTxHex : `0x${signedTxHex}`) as `0x${string}`;
  let parsed: ReturnType<typeof parseTransaction>;
  try {
    parsed = parseTransaction(hex);
  } catch (error) {
    throw new BroadcastRefused('InvalidTransaction', (error as Error).message);
  }
  if (parsed.r === undefined || parsed.s === undefined) {
    throw new BroadcastRefused('InvalidTransaction', 'the transaction is not signed');
  }
  try {
    return await client.sendRawTransaction({ serializedTransaction: hex });
  } catch (error) {
    throw new BroadcastRefused('TransactionRejected', nodeReason(error));
  }
}

/** viem wraps the node's JSON-RPC error; its details carry the node's own sentence. */
function nodeReason(error: unknown): string {
  const details = (error as { details?: unknown }).details;
  if (typeof details === 'string' && details !== '') return details;
  return error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
}
