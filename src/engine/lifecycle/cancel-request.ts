import { cancelOrderSigner } from '../../domain/cancel-order.js';
import { assetOfIn } from '../../domain/ethereum-slots.js';
import { LnswapError } from '../../domain/errors.js';
import type { Hex } from 'viem';
import { catalogOf } from '../../domain/market-catalog.js';
import { normalizeOrderId } from '../../domain/order-ids.js';
import { orderSlots, slotOfFunder } from '../../domain/order-slots.js';
import { signingDomainOfOrder } from '../../domain/swap-contracts.js';
import type { ChainWatchStore, ConfigurationReadStore, OrderReadStore } from '../../store/store.js';
import { cancelRequestShape } from '../../wire/socket-payloads.js';
import { payloadReader } from './payload-shapes.js';

/** A user's `requestCancel`: the funder's signed request that the winning provider give the order up. */
export interface CancelRequest {
  readonly orderId: string;
  /** Lowercase 0x address. */
  readonly funder: string;
  readonly signature: Hex;
}

/** The cancel to forward: the order's winning provider and the funder who asked. */
export interface CheckedCancel {
  readonly orderId: string;
  readonly funder: string;
  readonly providerId: string;
}

const readFields = payloadReader<{ orderId: string; funder: string; signature: string }>(cancelRequestShape);

/** Reads `{ orderId, funder, signature }`, order id in the store's spelling, funder lowercase. Throws LnswapError. */
export function readCancelRequest(payload: unknown): CancelRequest {
  const { orderId, funder, signature } = readFields(payload);
  const normalizedId = normalizeOrderId(orderId);
  if (normalizedId === undefined) throw new LnswapError('InvalidOrderId');
  return { orderId: normalizedId, funder: funder.toLowerCase(), signature: signature.toLowerCase() as Hex };
}

export interface CancelCheckContext {
  readonly store: ConfigurationReadStore & OrderReadStore & Pick<ChainWatchStore, 'listChainObservations'>;
  /** The chain id of the Ethereum node the service follows (the signature's EIP-712 domain); absent without one. */
  readonly ethereumChainId: number | undefined;
}

/**
 * A cancel is taken only for an order a provider won (`OrderNotWonByProvider`), made on a contract with cooperative
 * refunds (`ContractHasNoCooperativeRefund`), signed by the funder it names under the domain of the order's contract
 * and the followed chain, of a matching slot of the order (`InvalidCancelSignature` otherwise: a stranger cannot
 * cancel someone else's payment). Throws LnswapError.
 */
export async function checkCancelRequest(request: CancelRequest, context: CancelCheckContext): Promise<CheckedCancel> {
  const { store, ethereumChainId } = context;
  const order = await store.getOrder(request.orderId);
  if (order === undefined) throw new LnswapError('OrderNotFound');
  if (order.providerId === undefined) throw new LnswapError('OrderNotWonByProvider');
  const configuration = await store.getConfiguration();
  const catalog = catalogOf(configuration);
  const market = catalog.marketOf(order);
  const domain = signingDomainOfOrder(order, market.onchain.chain, configuration.chains.ethereum, ethereumChainId);
  const signer = await cancelOrderSigner(order.id, request.funder, request.signature, domain);
  if (signer !== request.funder) throw new LnswapError('InvalidCancelSignature');
  const observations = await store.listChainObservations('ethereum', [order.id]);
  const slot = slotOfFunder(orderSlots(order, observations, 'ethereum', assetOfIn(catalog)), request.funder);
  if (slot === undefined) throw new LnswapError('InvalidCancelSignature');
  return { orderId: order.id, funder: request.funder, providerId: order.providerId };
}
