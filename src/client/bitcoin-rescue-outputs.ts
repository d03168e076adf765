/**
 * What a rescue refund needs besides its file, from any Esplora (Blockstream's, mempool.space's, one's own electrs)
 * with `fetch`: the coins at the HTLC's address and, for a legacy P2SH HTLC, their funding transactions. Each answer
 * is read for its shape and refused when it is not one (`UnsafeFundingDetails`, 'MalformedOutputs'); its figures
 * are then held to the chain by the refund itself (see `htlcRefundPsbt`), so a lying Esplora can make a refund
 * that no node takes, never one that pays someone else.
 */
import { Transaction } from 'bitcoinjs-lib';
import { isHexOfLength } from '../domain/hex.js';
import { attempt, isCount } from './bitcoin-htlc.js';
import { isRecord } from './shape-check.js';
import { UnsafeFundingDetails } from './unsafe-funding-details.js';

/** One unspent output, as `GET /address/:address/utxo` lists it. */
export interface EsploraOutput {
  readonly txid: string;
  readonly vout: number;
  /** Satoshis. */
  readonly value: number;
  readonly status: { readonly confirmed: boolean; readonly block_height?: number };
}

export interface EsploraOptions {
  /** The `fetch` to ask with; the global one by default. */
  readonly fetch?: typeof fetch;
  /** How long one answer may take; 10 s by default. */
  readonly timeoutMs?: number;
}

const TIMEOUT_MS = 10_000;

/**
 * The unspent outputs at `address`, confirmed or in the mempool, from the Esplora at `esploraUrl` (its API root,
 * e.g. `https://blockstream.info/api`). Rejects with `UnsafeFundingDetails` for an answer that is not a list of
 * outputs, and with `fetch`'s own error when the Esplora cannot be reached.
 *
 * @example
 * const outputs = await esploraOutputs('https://mempool.space/api', rescue.address);
 * const confirmed = outputs.filter((output) => output.status.confirmed);
 */
export async function esploraOutputs(
  esploraUrl: string,
  address: string,
  options: EsploraOptions = {},
): Promise<EsploraOutput[]> {
  const answer = await ask(esploraUrl, `address/${encodeURIComponent(address)}/utxo`, options);
  const outputs = attempt(() => JSON.parse(answer) as unknown);
  if (!Array.isArray(outputs)) throw refusal(`the outputs of ${address} are not a list`);
  return outputs.map((output: unknown) => {
    if (!isRecord(output) || !isRecord(output.status)) {
      throw refusal('an output is not an output');
    }
    const { txid, vout, value, status } = output;
    if (typeof txid !== 'string' || !isHexOfLength(txid, 64) || !isCount(vout) || !isCount(value)) {
      throw refusal('an output has no transaction id, index or value');
    }
    const { confirmed, block_height: height } = status;
    if (typeof confirmed !== 'boolean') throw refusal('an output does not say whether it is confirmed');
    return {
      txid: txid.toLowerCase(),
      vout,
      value,
      status: { confirmed, ...(isCount(height) ? { block_height: height } : {}) },
    };
  });
}

/**
 * The transactions `txIds` (hex, by id) from the Esplora at `esploraUrl`, each checked to be the transaction of its
 * id: what a legacy P2SH refund signs over (`fundingTransactionsHex`).
 */
export async function esploraTransactionsHex(
  esploraUrl: string,
  txIds: readonly string[],
  options: EsploraOptions = {},
): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const txId of new Set(txIds)) {
    const hex = (await ask(esploraUrl, `tx/${encodeURIComponent(txId)}/hex`, options)).trim();
    if (attempt(() => Transaction.fromHex(hex).getId()) !== txId.toLowerCase()) {
      throw refusal(`the answer for transaction ${txId} is not that transaction`);
    }
    found[txId] = hex;
  }
  return found;
}

async function ask(esploraUrl: string, path: string, options: EsploraOptions): Promise<string> {
  const url = `${esploraUrl.replace(/\/+$/u, '')}/${path}`;
  const response = await (options.fetch ?? fetch)(url, {
    signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS),
  });
  if (!response.ok) throw refusal(`the Esplora answered ${response.status} to ${path}`);
  return response.text();
}

function refusal(reason: string): UnsafeFundingDetails {
  return new UnsafeFundingDetails('MalformedOutputs', reason);
}
