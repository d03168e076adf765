import type { BlockRef, ChainObservation } from '../domain/chain-observations.js';

/** Columns of `chain_observations`, in the order `observationValues` lists them. */
export const OBSERVATION_COLUMNS = [
  'chain',
  'block_hash',
  'position',
  'block_height',
  'order_id',
  'kind',
  'tx_id',
  'amount',
  'output_index',
  'refund_height',
  'preimage',
  'by_admin',
  'funder',
  'claimer',
  'token',
  'payment_hash',
] as const;

export interface ObservationRow {
  block_hash: string;
  position: number;
  block_height: number;
  order_id: string;
  kind: ChainObservation['kind'];
  tx_id: string;
  amount: string | null;
  output_index: number | null;
  refund_height: number | null;
  preimage: string | null;
  by_admin: number | boolean | null;
  funder: string | null;
  claimer: string | null;
  token: string | null;
  payment_hash: string | null;
}

export function observationValues(chain: string, observation: ChainObservation): unknown[] {
  const { amount } = observation;
  return [
    chain,
    observation.block.hash,
    observation.position,
    observation.block.height,
    observation.orderId,
    observation.kind,
    observation.txId,
    amount === undefined ? null : amount.toString(),
    observation.kind === 'funding' ? (observation.outputIndex ?? null) : null,
    observation.kind === 'funding' ? (observation.refundHeight ?? null) : null,
    observation.kind === 'claim' ? observation.preimage : null,
    // 1 or 0: SQLite binds no booleans, and PostgreSQL reads '1' and '0' as booleans.
    observation.kind === 'refund' && observation.byAdmin !== undefined ? Number(observation.byAdmin) : null,
    observation.funder ?? null,
    observation.kind === 'funding' ? (observation.claimer ?? null) : null,
    observation.kind === 'funding' ? (observation.token ?? null) : null,
    observation.kind === 'funding' ? (observation.paymentHash ?? null) : null,
  ];
}

export function observationFromRow(row: ObservationRow): ChainObservation {
  const base = {
    orderId: row.order_id,
    txId: row.tx_id,
    position: Number(row.position),
    block: { height: Number(row.block_height), hash: row.block_hash },
    ...(row.funder === null ? {} : { funder: row.funder }),
  };
  const amount = row.amount === null ? undefined : BigInt(row.amount);
  switch (row.kind) {
    case 'funding':
      return {
        ...base,
        kind: 'funding',
        amount: amount ?? 0n,
        ...(row.output_index === null ? {} : { outputIndex: Number(row.output_index) }),
        ...(row.refund_height === null ? {} : { refundHeight: Number(row.refund_height) }),
        ...(row.claimer === null ? {} : { claimer: row.claimer }),
        ...(row.token === null ? {} : { token: row.token }),
        ...(row.payment_hash === null ? {} : { paymentHash: row.payment_hash }),
      };
    case 'claim':
      return { ...base, kind: 'claim', preimage: row.preimage ?? '', ...(amount === undefined ? {} : { amount }) };
    case 'refund':
      return {
        ...base,
        kind: 'refund',
        ...(amount === undefined ? {} : { amount }),
        ...(row.by_admin === null ? {} : { byAdmin: Boolean(row.by_admin) }),
      };
  }
}

export interface BlockRow {
  height: number;
  hash: string;
}

export function blockFromRow(row: BlockRow): BlockRef {
  return { height: Number(row.height), hash: row.hash };
}

/** How many processed blocks the store remembers per chain to find a reorg's fork point. */
export const RECENT_BLOCKS_KEPT = 256;
