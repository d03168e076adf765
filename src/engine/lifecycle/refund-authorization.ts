import {
  cooperativeRefundSigner,
  isCooperativeRefundSignature,
  type CooperativeRefundSignature,
} from '../../domain/cooperative-refund.js';
import { LnswapError } from '../../domain/errors.js';
import { catalogOf } from '../../domain/market-catalog.js';
import { normalizeOrderId } from '../../domain/order-ids.js';
import type { OrderRecord } from '../../domain/order.js';
import type { OrderState } from '../../domain/states.js';
import { signingDomainOfOrder } from '../../domain/swap-contracts.js';
import type { TransitionCause } from '../../domain/transition-cause.js';
import type { ConfigurationReadStore, CooperativeRefundStore, OrderReadStore } from '../../store/store.js';
import { refundAuthorizationShape } from '../../wire/socket-payloads.js';
import type { OrderTransitions } from './order-transitions.js';
import { payloadReader } from './payload-shapes.js';

/** A provider's `refundAuthorization`: the cooperative refunds it signed for slots of an order it won. */
export interface RefundAuthorization {
  readonly orderId: string;
  /** One per funder, funders and signatures lowercase. */
  readonly refunds: readonly CooperativeRefundSignature[];
}

/** The cause of the move a provider's signed refunds make: the user may take the money back at once. */
export const PROVIDER_AUTHORIZED_REFUND = 'providerAuthorizedRefund';

/**
 * The states a provider's signed refunds move on: the order's money is locked and nothing else is on its way to
 * return it. Later states (a refund already waited for or seen) keep their own course; the signatures are stored.
 */
const AUTHORIZED_REFUND_FROM: ReadonlySet<OrderState> = new Set<OrderState>([
  'Funded',
  'PartiallyFunded',
  'FundWindowElapsed',
]);

/** How many times a move that lost its compare-and-set is tried again on the order as it then stands. */
const MOVE_ATTEMPTS = 3;

const readFields = payloadReader<{ orderId: string; refunds: { funder: string; signature: string }[] }>(
  refundAuthorizationShape,
);

/**
 * Reads `{ orderId, refunds: [{ funder, signature }, ...] }`. A signature not in the contract's one form (low s,
 * v 27 or 28) is `InvalidRefundSignature`: the contract would revert the refund sent with it. A funder named twice
 * is a malformed request. Throws LnswapError.
 */
export function readRefundAuthorization(payload: unknown): RefundAuthorization {
  const { orderId, refunds } = readFields(payload);
  const normalizedId = normalizeOrderId(orderId);
  if (normalizedId === undefined) throw new LnswapError('InvalidOrderId');
  const read = refunds.map(({ funder, signature }) => {
    const lowercase = signature.toLowerCase();
    if (!isCooperativeRefundSignature(lowercase)) throw new LnswapError('InvalidRefundSignature');
    return { funder: funder.toLowerCase(), signature: lowercase };
  });
  if (new Set(read.map(({ funder }) => funder)).size !== read.length) {
    throw new LnswapError('InvalidOrMissingRefundAuthorizationFields');
  }
  return { orderId: normalizedId, refunds: read };
}

export interface RefundAuthorizationContext {
  readonly store: ConfigurationReadStore & OrderReadStore & Pick<CooperativeRefundStore, 'recordCooperativeRefunds'>;
  readonly transitions: OrderTransitions;
  /** The chain id of the Ethereum node the service follows (the signatures' EIP-712 domain); absent without one. */
  readonly ethereumChainId: number | undefined;
  readonly now: number;
  readonly providerId: string;
  readonly requestId?: string;
}

/**
 * Accepts the signed refunds of an order only from the provider whose quote won it (`OrderNotWonByProvider`; an
 * order that names no provider takes none), only on an order made on a contract with cooperative refunds
 * (`ContractHasNoCooperativeRefund`: the second version has none, and Bitcoin no contract), and only when every
 * signature recovers, under the domain of the order's own contract and the followed chain, to the order's claimer
 * for the slot it names (`InvalidRefundSignature`: a forgery, another slot's, order's, contract's or chain's). Each
 * is stored, the first of a slot kept; an order that can still wait for its refund moves to `WaitingForRefundTx`
 * (cause `providerAuthorizedRefund`) in the same transaction, and the watcher moves it on when the refund lands.
 * Repeating an authorization is accepted. Throws LnswapError.
 */
export async function applyRefundAuthorization(
  authorization: RefundAuthorization,
  context: RefundAuthorizationContext,
): Promise<void> {
  const { store } = context;
  const order = await store.getOrder(authorization.orderId);
  if (order === undefined) throw new LnswapError('OrderNotFound');
  if (order.providerId === undefined || order.providerId !== context.providerId) {
    throw new LnswapError('OrderNotWonByProvider');
  }
  await checkSignatures(order, authorization.refunds, context);
  await recordWithMove(order, authorization.refunds, context);
}

async function checkSignatures(
  order: OrderRecord,
  refunds: readonly CooperativeRefundSignature[],
  { store, ethereumChainId }: RefundAuthorizationContext,
): Promise<void> {
  const configuration = await store.getConfiguration();
  const market = catalogOf(configuration).marketOf(order);
  const domain = signingDomainOfOrder(order, market.onchain.chain, configuration.chains.ethereum, ethereumChainId);
  for (const refund of refunds) {
    const signer = await cooperativeRefundSigner(order.id, refund, domain);
    if (signer === undefined || signer !== order.claimAddress) throw new LnswapError('InvalidRefundSignature');
  }
}

/** The signatures with the order's move when it has one to make, compare-and-set, tried again if it lost. */
async function recordWithMove(
  order: OrderRecord,
  refunds: readonly CooperativeRefundSignature[],
  { store, transitions, now, requestId }: RefundAuthorizationContext,
): Promise<void> {
  const cause: TransitionCause = {
    source: 'request',
    reason: PROVIDER_AUTHORIZED_REFUND,
    ...(requestId === undefined ? {} : { requestId }),
  };
  let current: OrderRecord | undefined = order;
  for (let attempt = 0; attempt < MOVE_ATTEMPTS && current !== undefined; attempt += 1) {
    if (!AUTHORIZED_REFUND_FROM.has(current.state)) break;
    const moved = await transitions.apply({
      orderId: order.id,
      from: current.state,
      to: 'WaitingForRefundTx',
      at: now,
      cause,
      cooperativeRefunds: refunds,
    });
    if (moved) return;
    current = await store.getOrder(order.id);
  }
  await store.recordCooperativeRefunds(order.id, refunds);
}
