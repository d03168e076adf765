import {
  confirmationsAt,
  inMempool,
  type BlockRef,
  type ChainObservation,
  type FundingObservation,
  type RefundObservation,
} from './chain-observations.js';
import { countedObservations, type AssetOfOrder } from './ethereum-slots.js';
import { fundingSlots, orderSlots } from './order-slots.js';
import { preimageMatchesPaymentHash } from './invoice.js';
import type { ChainKind } from './markets.js';
import type { OrderRecord, OrderTransaction } from './order.js';
import { canTransition, ORDER_STATES, type OrderState } from './states.js';
import type { TransitionCause } from './transition-cause.js';

/**
 * What an order should look like given what the chain holds for it: derived afresh from all its stored
 * observations each time, never accumulated, so a block seen twice or a reorg and its replay count nothing twice.
 */
export interface ChainTarget {
  readonly state: OrderState;
  /**
   * The order was waiting for its funding and the first funding came after its fund window (`fundedAfterWindow`):
   * it is moved to FundWindowElapsed first, whatever it moves to then.
   */
  readonly fundedLate?: true;
  readonly transactions: readonly OrderTransaction[];
  readonly refundableAtBlockHeight: number;
  readonly paymentPreimage?: string;
}

export interface ChainContext {
  readonly chain: ChainKind;
  /** The last block the watcher processed: heights and confirmations are counted against it. */
  readonly head: BlockRef;
  /** Confirmations a funding, claim or refund needs before it counts (1: in a block is enough). */
  readonly confirmations: number;
  /** Ethereum: the asset an order's slots must hold (`knownAssetOf` when absent). */
  readonly assetOf?: AssetOfOrder;
  /**
   * The moment, in milliseconds since the epoch, by which what this pass reads without a time of its own was
   * sent: Bitcoin's fundings (miners set a block's time within hours of the truth, so the service's sighting
   * judges), and any funding in the mempool. Absent, such a funding counts as in time.
   */
  readonly sightedBy?: number;
}

/**
 * Observations in chain order, those in the node's mempool last (`MEMPOOL_BLOCK`). Only those that count
 * toward the order are read: on Bitcoin every one, on Ethereum those of the order's slots (`orderSlots`: the
 * principal and every slot that is not dust), whose funding state is the principal's alone, since a provider
 * claims one slot. Claims whose preimage does not hash to the order's payment hash are ignored, and so is a
 * spend in the mempool that is no claim before the refund height, when no refund could be valid in the next
 * block (what a node listing a "claim" with a wrong preimage would show).
 */
export function deriveChainTarget(
  order: OrderRecord,
  observations: readonly ChainObservation[],
  context: ChainContext,
): ChainTarget {
  const view = orderView(
    order,
    observations.filter((observation) => !impossibleRefund(observation, order, context)),
    context,
  );
  const { counted } = view;
  const confirmed = (observation: ChainObservation) =>
    confirmationsAt(observation.block.height, context.head.height) >= context.confirmations;
  const fundings = counted.filter((observation) => observation.kind === 'funding');
  const claim = counted.find(
    (observation) =>
      observation.kind === 'claim' && preimageMatchesPaymentHash(observation.preimage, order.paymentHash),
  );
  const refunds = settlingRefunds(counted, fundings, context.chain);
  const { refundableAtBlockHeight } = view;
  const late = order.state === 'WaitingForFundingTx' && fundedAfterWindow(order, view.stateFundings, context);

  const state = targetState(late ? 'FundWindowElapsed' : order.state, {
    seen: sum(view.stateFundings),
    inBlocks: sum(fundings.filter((funding) => !inMempool(funding))),
    settled: sum(view.stateFundings.filter(confirmed)),
    amount: order.amount,
    claimed: claim === undefined ? 'no' : confirmed(claim) ? 'confirmed' : 'seen',
    refunded: refunds.every === 'no' ? 'no' : refunds.observed.every(confirmed) ? 'confirmed' : 'seen',
    refundHeightReached: context.head.height >= refundableAtBlockHeight,
  });

  const transactions: OrderTransaction[] = [...fundTransactions(fundings), ...refunds.observed.map(refundTransaction)];
  // The preimage is public from the moment the claim is broadcast: recorded at once, whatever the state.
  return {
    state,
    ...(late ? { fundedLate: true } : {}),
    transactions,
    refundableAtBlockHeight,
    ...(claim?.kind === 'claim' ? { paymentPreimage: claim.preimage } : {}),
  };
}

/**
 * Whether the first funding of an order came after its fund window (`expiresAt`), by the chain's clock: an
 * Ethereum funding's block timestamp, whenever the service happens to read the block; a Bitcoin funding, or one
 * in the mempool, by `sightedBy`. At the edge itself it is in time. A funding without a time counts as in time.
 */
function fundedAfterWindow(
  order: OrderRecord,
  fundings: readonly FundingObservation[],
  context: ChainContext,
): boolean {
  const first = fundings[0];
  if (first === undefined) return false;
  const sighted = inMempool(first) || context.chain === 'bitcoin';
  const at = sighted ? context.sightedBy : first.block.timestamp;
  return at !== undefined && at > order.expiresAt;
}

interface OrderView {
  /** What counts toward the order, in chain order. */
  readonly counted: readonly ChainObservation[];
  /** The fundings the funding state is read from: the principal slot's on Ethereum, every one on Bitcoin. */
  readonly stateFundings: readonly FundingObservation[];
  readonly refundableAtBlockHeight: number;
}

/**
 * The order as its funders see it. On Ethereum, dust (`DUST_DIVISOR`) is left out: a stranger's small slot
 * neither moves the state nor the refund height, and its funder refunds it apart. The refund height is the
 * latest of the order's slots that still hold money, so no funder of the order is told too early and a slot
 * already refunded or claimed holds no one back; the principal's once none hold any.
 */
function orderView(order: OrderRecord, observations: readonly ChainObservation[], context: ChainContext): OrderView {
  if (context.chain !== 'ethereum') {
    const counted = countedObservations(order, observations, context.chain);
    const fundings = counted.filter((observation) => observation.kind === 'funding');
    return {
      counted,
      stateFundings: fundings,
      refundableAtBlockHeight: latestRefundHeight(fundings) ?? order.htlc.refundableAtBlockHeight,
    };
  }
  const slots = orderSlots(order, observations, context.chain, context.assetOf);
  const carrying = fundingSlots(slots);
  const counted = carrying
    .flatMap((slot) => [...slot.fundings, ...slot.claims, ...slot.refunds])
    .sort((a, b) => a.block.height - b.block.height || a.position - b.position);
  const principal = slots[0];
  const holding = carrying.filter((slot) => slot.held > 0n);
  const heights = (holding.length > 0 ? holding : carrying.slice(0, 1)).flatMap((slot) =>
    slot.refundHeight === undefined ? [] : [slot.refundHeight],
  );
  return {
    counted,
    stateFundings: principal?.fundings ?? [],
    refundableAtBlockHeight: heights.length === 0 ? order.htlc.refundableAtBlockHeight : Math.max(...heights),
  };
}

/** A refund in the mempool before the refund height: its lock time cannot be final in the next block. */
function impossibleRefund(observation: ChainObservation, order: OrderRecord, context: ChainContext): boolean {
  return (
    observation.kind === 'refund' &&
    inMempool(observation) &&
    context.head.height + 1 <= order.htlc.refundableAtBlockHeight
  );
}

/**
 * The refunds an order shows, and whether they return all of it. Bitcoin: the last spend of the HTLC that is
 * not a claim returns everything. Ethereum: each of the order's slots is refunded on its own; the order is
 * refunded once every one of them is (a slot claimed instead completes the order), whatever dust is left.
 */
function settlingRefunds(
  counted: readonly ChainObservation[],
  fundings: readonly FundingObservation[],
  chain: ChainContext['chain'],
): { observed: RefundObservation[]; every: 'yes' | 'no' } {
  const refunds = counted.filter((observation) => observation.kind === 'refund');
  if (chain !== 'ethereum') {
    const last = refunds.at(-1);
    return last === undefined ? { observed: [], every: 'no' } : { observed: [last], every: 'yes' };
  }
  const refundedSlots = new Set(refunds.map((refund) => refund.funder));
  const slots = new Set(fundings.map((funding) => funding.funder));
  const every = slots.size > 0 && [...slots].every((slot) => refundedSlots.has(slot));
  return { observed: refunds, every: every ? 'yes' : 'no' };
}

/** A slot's refund amount is kept on Ethereum, where refunds are per slot: what is left locked depends on it. */
function refundTransaction(refund: RefundObservation): OrderTransaction {
  return {
    type: 'REFUND',
    id: refund.txId,
    ...(refund.funder !== undefined && refund.amount !== undefined ? { amount: refund.amount } : {}),
    ...(inMempool(refund) ? {} : { blockHeight: refund.block.height }),
  };
}

/** The refund height of a Bitcoin order: the latest its fundings name; undefined when none names one. */
function latestRefundHeight(fundings: readonly FundingObservation[]): number | undefined {
  const heights = fundings.flatMap((funding) => (funding.refundHeight === undefined ? [] : [funding.refundHeight]));
  return heights.length === 0 ? undefined : Math.max(...heights);
}

interface Balance {
  /** The funding state's fundings (the principal slot's on Ethereum), the mempool's included. */
  readonly seen: bigint;
  /** Every counted funding in a block, confirmed enough or not. */
  readonly inBlocks: bigint;
  /** The funding state's fundings with their confirmations. */
  readonly settled: bigint;
  readonly amount: bigint;
  readonly claimed: 'no' | 'seen' | 'confirmed';
  readonly refunded: 'no' | 'seen' | 'confirmed';
  readonly refundHeightReached: boolean;
}

/**
 * The state the chain calls for. A claim completes the order only once confirmed: Complete is final (answers
 * about it are cached for good), so it must never have to move back. Funding, being reversible, is shown at once.
 */
function targetState(current: OrderState, balance: Balance): OrderState {
  if (current === 'Complete' || current === 'Refunded') return current;
  if (balance.refunded === 'confirmed') return 'Refunded';
  if (balance.refunded === 'seen') return 'WaitingForRefundTxConfirmation';
  if (balance.claimed === 'confirmed') return 'Complete';
  switch (current) {
    case 'AddressBlacklistedWaitingForRefundTx':
    case 'WaitingForRefundTx':
      return current;
    case 'WaitingForRefundTxConfirmation':
      return 'WaitingForRefundTx';
    case 'FundWindowElapsed':
      // Not on a mempool sighting: WaitingForRefundTx has no way back should the funding leave the mempool.
      return balance.inBlocks > 0n ? 'WaitingForRefundTx' : current;
    default:
      break;
  }
  const funding = fundingState(balance);
  // A claim in the chain, even unconfirmed, means the provider was paid in time: no refund to wait for.
  const refundable = funding !== 'WaitingForFundingTx' && funding !== 'WaitingForFundingTxConfirmation';
  if (refundable && balance.refundHeightReached && balance.claimed === 'no') return 'WaitingForRefundTx';
  return funding;
}

/**
 * Funded means what one provider can claim pays the order: on Ethereum one slot (the principal) holding the
 * amount, since a claim takes one slot; several accounts' slots adding up to it stay PartiallyFunded.
 */
function fundingState({ seen, settled, amount }: Balance): OrderState {
  if (settled >= amount) return 'Funded';
  if (settled > 0n) return seen > settled ? 'WaitingForAdditionalFundingTxConfirmation' : 'PartiallyFunded';
  return seen > 0n ? 'WaitingForFundingTxConfirmation' : 'WaitingForFundingTx';
}

function sum(fundings: readonly FundingObservation[]): bigint {
  return fundings.reduce((total, funding) => total + funding.amount, 0n);
}

/** One FUND transaction per transaction id and output, amounts added up (one Ethereum transaction may fund twice). */
function fundTransactions(fundings: readonly FundingObservation[]): OrderTransaction[] {
  const byKey = new Map<string, OrderTransaction>();
  for (const funding of fundings) {
    const key = `${funding.txId}:${funding.outputIndex ?? ''}`;
    const earlier = byKey.get(key);
    byKey.set(key, {
      type: 'FUND',
      id: funding.txId,
      amount: (earlier?.amount ?? 0n) + funding.amount,
      ...(funding.outputIndex === undefined ? {} : { outputIndex: funding.outputIndex }),
      ...(inMempool(funding) ? {} : { blockHeight: funding.block.height }),
    });
  }
  return [...byKey.values()];
}

/** States a chain-driven path never passes through: each is entered only by its own rule, never on the way. */
const NOT_ON_THE_WAY: ReadonlySet<OrderState> = new Set<OrderState>([
  'AddressBlacklistedWaitingForRefundTx',
  'FundWindowElapsed',
  'Complete',
  'Refunded',
]);

/**
 * The shortest sequence of allowed moves from `from` to `to` (empty when equal), passing only through states
 * the chain can explain; undefined when the state machine allows no such path.
 */
export function pathBetween(from: OrderState, to: OrderState): OrderState[] | undefined {
  if (from === to) return [];
  const previous = new Map<OrderState, OrderState>();
  const queue: OrderState[] = [from];
  while (queue.length > 0) {
    const state = queue.shift() as OrderState;
    for (const next of nextStates(state)) {
      if (previous.has(next) || next === from) continue;
      previous.set(next, state);
      if (next === to) return unwind(previous, from, to);
      if (!NOT_ON_THE_WAY.has(next)) queue.push(next);
    }
  }
  return undefined;
}

function nextStates(state: OrderState): OrderState[] {
  return ORDER_STATES.filter((candidate) => canTransition(state, candidate));
}

function unwind(previous: Map<OrderState, OrderState>, from: OrderState, to: OrderState): OrderState[] {
  const path: OrderState[] = [to];
  let state = to;
  while (previous.get(state) !== from) {
    state = previous.get(state) as OrderState;
    path.unshift(state);
  }
  return path;
}

export interface ChainMove {
  readonly from: OrderState;
  readonly to: OrderState;
  /** The transaction the move's `stateChanged` names (FUND on funding states, REFUND on Refunded). */
  readonly transaction?: OrderTransaction;
  readonly cause: TransitionCause;
}

/**
 * The moves that take an order from its state to the target, each with the chain fact that explains it:
 * the funding, claim or refund transaction and its block, or the block at which a rule applied.
 */
export function planChainMoves(
  order: OrderRecord,
  target: ChainTarget,
  observations: readonly ChainObservation[],
  context: ChainContext,
): ChainMove[] | undefined {
  const path = target.fundedLate ? viaElapsedWindow(target.state) : viaSeenFunding(order.state, target.state);
  if (path === undefined) return undefined;
  const { counted } = orderView(order, observations, context);
  const moves: ChainMove[] = [];
  let from = order.state;
  // Only Bitcoin's watcher reads a mempool; elsewhere a transaction without a block came from an import.
  const left = context.chain === 'bitcoin' ? leftTheMempool(order.transactions, target.transactions) : new Set<never>();
  for (const to of path) {
    moves.push(explainMove(from, to, target, counted, context, left));
    from = to;
  }
  return moves;
}

/**
 * From WaitingForFundingTx every chain path starts with WaitingForFundingTxConfirmation, even where the table
 * allows a shortcut: the history then reads the same whether a poll saw the funding before its confirmations
 * or only after them.
 */
function viaSeenFunding(from: OrderState, to: OrderState): OrderState[] | undefined {
  const seen: OrderState = 'WaitingForFundingTxConfirmation';
  if (from !== 'WaitingForFundingTx' || to === from || to === seen) return pathBetween(from, to);
  const rest = pathBetween(seen, to);
  return rest === undefined ? pathBetween(from, to) : [seen, ...rest];
}

/** A late first funding: FundWindowElapsed first, then on as from there. */
function viaElapsedWindow(to: OrderState): OrderState[] | undefined {
  const elapsed: OrderState = 'FundWindowElapsed';
  const rest = pathBetween(elapsed, to);
  return rest === undefined ? undefined : [elapsed, ...rest];
}

/**
 * Which kinds of transaction the order showed unconfirmed (no block height) and no longer has: a funding or
 * refund that left the node's mempool, evicted or replaced, rather than one a reorg took out of a block.
 */
function leftTheMempool(
  before: readonly OrderTransaction[],
  after: readonly OrderTransaction[],
): ReadonlySet<OrderTransaction['type']> {
  const kept = new Set(after.map((transaction) => `${transaction.type}:${transaction.id}`));
  const left = before.filter(
    (transaction) => transaction.blockHeight === undefined && !kept.has(`${transaction.type}:${transaction.id}`),
  );
  return new Set(left.map((transaction) => transaction.type));
}

function explainMove(
  from: OrderState,
  to: OrderState,
  target: ChainTarget,
  observations: readonly ChainObservation[],
  context: ChainContext,
  leftMempool: ReadonlySet<OrderTransaction['type']>,
): ChainMove {
  const byBlock = (reason: string, block: BlockRef = context.head): TransitionCause => ({
    source: 'chain',
    reason,
    chain: context.chain,
    blockHeight: block.height,
    blockHash: block.hash,
  });
  // A transaction in the mempool has no block to name.
  const byObservation = (reason: string, observation: ChainObservation): TransitionCause =>
    inMempool(observation)
      ? { source: 'chain', reason, chain: context.chain, txId: observation.txId }
      : { ...byBlock(reason, observation.block), txId: observation.txId };
  const lastOf = (kind: ChainObservation['kind']) =>
    lastWhere(observations, (observation) => observation.kind === kind);
  const funding = lastOf('funding');
  const refund = lastOf('refund');
  const claim = lastOf('claim');
  const fundTransaction = funding && lastWhere(target.transactions, (transaction) => transaction.id === funding.txId);
  const lastRefundTransaction = lastWhere(target.transactions, (transaction) => transaction.type === 'REFUND');
  // The owner's refund of a blacklisted order reads apart from the funder's own after the timelock.
  const refundReason = (stage: 'Seen' | 'Confirmed') =>
    refund?.kind === 'refund' && refund.byAdmin === true ? `adminRefund${stage}` : `refund${stage}`;

  const stillUnconfirmed =
    funding !== undefined && confirmationsAt(funding.block.height, context.head.height) < context.confirmations;
  const backwards =
    isFundingRetreat(from, to) ||
    (from === 'WaitingForAdditionalFundingTxConfirmation' &&
      to === 'PartiallyFunded' &&
      (stillUnconfirmed || leftMempool.has('FUND')));
  if (to === 'WaitingForRefundTx' && from === 'WaitingForRefundTxConfirmation') {
    return { from, to, cause: byBlock(leftMempool.has('REFUND') ? 'refundLeftMempool' : 'refundReorged') };
  }
  if (backwards) {
    return { from, to, cause: byBlock(leftMempool.has('FUND') ? 'fundingLeftMempool' : 'fundingReorged') };
  }
  switch (to) {
    case 'WaitingForFundingTxConfirmation':
    case 'WaitingForAdditionalFundingTxConfirmation':
      return {
        from,
        to,
        ...(fundTransaction ? { transaction: fundTransaction } : {}),
        cause: funding ? byObservation('fundingSeen', funding) : byBlock('fundingSeen'),
      };
    case 'PartiallyFunded':
    case 'Funded':
      return {
        from,
        to,
        ...(fundTransaction ? { transaction: fundTransaction } : {}),
        cause: funding ? byObservation('fundingConfirmed', funding) : byBlock('fundingConfirmed'),
      };
    case 'WaitingForRefundTx':
      return from === 'FundWindowElapsed' && funding
        ? { from, to, cause: byObservation('fundingSeen', funding) }
        : { from, to, cause: byBlock('refundHeightReached') };
    case 'WaitingForRefundTxConfirmation':
      return {
        from,
        to,
        ...(lastRefundTransaction ? { transaction: lastRefundTransaction } : {}),
        cause: refund ? byObservation(refundReason('Seen'), refund) : byBlock(refundReason('Seen')),
      };
    case 'Refunded':
      return {
        from,
        to,
        ...(lastRefundTransaction ? { transaction: lastRefundTransaction } : {}),
        cause: refund ? byObservation(refundReason('Confirmed'), refund) : byBlock(refundReason('Confirmed')),
      };
    case 'Complete':
      return { from, to, cause: claim ? byObservation('claimSeen', claim) : byBlock('claimSeen') };
    case 'FundWindowElapsed': {
      // The funding that came too late is the first: any later one only adds to it.
      const first = observations.find((observation) => observation.kind === 'funding');
      return { from, to, cause: first ? byObservation('fundingLate', first) : byBlock('fundingLate') };
    }
    default:
      return { from, to, cause: byBlock('fundingReorged') };
  }
}

const FUNDING_ORDER: readonly OrderState[] = [
  'WaitingForFundingTx',
  'WaitingForFundingTxConfirmation',
  'PartiallyFunded',
  'WaitingForAdditionalFundingTxConfirmation',
  'Funded',
];

/** A move to less funding than before: only a reorg takes funds out of the chain. */
function isFundingRetreat(from: OrderState, to: OrderState): boolean {
  const fromRank = FUNDING_ORDER.indexOf(from);
  const toRank = FUNDING_ORDER.indexOf(to);
  if (fromRank < 0 || toRank < 0) return false;
  return toRank < fromRank && !(from === 'WaitingForAdditionalFundingTxConfirmation' && to === 'PartiallyFunded');
}

function lastWhere<T>(items: readonly T[], matches: (item: T) => boolean): T | undefined {
  for (let index = items.length - 1; index >= 0; index -= 1) {
    const item = items[index] as T;
    if (matches(item)) return item;
  }
  return undefined;
}
