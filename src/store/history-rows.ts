import type { StateChange } from '../domain/order.js';
import type { OrderState } from '../domain/states.js';
import type { TransitionCause } from '../domain/transition-cause.js';
import type { SequencedStateChange } from './store.js';

export interface HistoryRow {
  state: string;
  at: number;
  /** The cause as JSON text; null on rows an import wrote and rows older than causes. */
  cause: string | null;
}

const CAUSE_SOURCES: ReadonlySet<string> = new Set(['request', 'timer', 'chain', 'import']);
const CAUSE_CHAINS: ReadonlySet<string> = new Set(['bitcoin', 'ethereum']);

/** JSON text of a cause, its fields in one fixed order whatever order the caller built it in. */
export function causeColumn(cause: TransitionCause): string {
  return JSON.stringify({
    source: cause.source,
    reason: cause.reason,
    ...(cause.chain === undefined ? {} : { chain: cause.chain }),
    ...(cause.txId === undefined ? {} : { txId: cause.txId }),
    ...(cause.blockHeight === undefined ? {} : { blockHeight: cause.blockHeight }),
    ...(cause.blockHash === undefined ? {} : { blockHash: cause.blockHash }),
    ...(cause.requestId === undefined ? {} : { requestId: cause.requestId }),
  });
}

/** Reads a stored cause back; throws when the column holds something no lnswap wrote. */
export function causeFromColumn(text: string): TransitionCause {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) throw new Error(`stored transition cause is not an object: ${text}`);
  const fields = value as Record<string, unknown>;
  const { source, reason, chain, txId, blockHeight, blockHash, requestId } = fields;
  if (typeof source !== 'string' || !CAUSE_SOURCES.has(source) || typeof reason !== 'string') {
    throw new Error(`stored transition cause lacks a known source and a reason: ${text}`);
  }
  return {
    source: source as TransitionCause['source'],
    reason,
    ...(typeof chain === 'string' && CAUSE_CHAINS.has(chain) ? { chain: chain as TransitionCause['chain'] } : {}),
    ...(typeof txId === 'string' ? { txId } : {}),
    ...(typeof blockHeight === 'number' ? { blockHeight } : {}),
    ...(typeof blockHash === 'string' ? { blockHash } : {}),
    ...(typeof requestId === 'string' ? { requestId } : {}),
  };
}

export interface SequencedHistoryRow extends HistoryRow {
  seq: number;
}

export function sequencedHistoryFromRows(rows: readonly SequencedHistoryRow[]): SequencedStateChange[] {
  const changes = historyFromRows(rows);
  return rows.map((row, index) => ({ sequence: row.seq, ...(changes[index] as StateChange) }));
}

export function historyFromRows(rows: readonly HistoryRow[]): StateChange[] {
  return rows.map((row) => ({
    state: row.state as OrderState,
    at: row.at,
    ...(row.cause === null ? {} : { cause: causeFromColumn(row.cause) }),
  }));
}
