/**
 * JSON schemas of the read API's routes. Response bodies are the shared wire shapes (Fastify
 * serializes with them); request schemas document the parameters, type them for the handlers, and
 * refuse what can be refused without the store.
 */
import type { FastifySchemaValidationError, FastifyServerOptions } from 'fastify';
import { LnswapError, type ErrorToken } from '../domain/errors.js';
import {
  fundingDetailsShape,
  marketRequirementsShape,
  marketShape,
  object,
  orderHistoryShape,
  orderShape,
  orderState,
  orderSummaryShape,
  refundShape,
  transactionShape,
} from '../wire/response-shapes.js';
import { FUNDER_PATTERN } from '../wire/socket-payloads.js';

type SchemaErrorFormatter = NonNullable<FastifyServerOptions['schemaErrorFormatter']>;

/** Marks a response that is a bare text token, not JSON: the OpenAPI document lists it as text/plain. */
export const TOKEN_BODY_DESCRIPTION = 'Bare text token (text/plain), no quotes, no newline';

function tokenBody<const Tokens extends readonly string[]>(...tokens: Tokens) {
  return { type: 'string', enum: tokens, description: TOKEN_BODY_DESCRIPTION } as const;
}

const orderIdParams = object({
  id: { type: 'string', description: 'Order id: a UUID in any case, with or without dashes' },
});

const orderErrors = { 400: tokenBody('InvalidOrderId'), 404: tokenBody('OrderNotFound') } as const;

export const listMarketsSchema = {
  operationId: 'listMarkets',
  summary: 'Markets the service offers',
  response: { 200: { type: 'array', items: marketShape } },
} as const;

export const allRequirementsSchema = {
  operationId: 'listMarketRequirements',
  summary: 'Requirements of every offered market that an active provider serves',
  response: { 200: { type: 'array', items: marketRequirementsShape } },
} as const;

export const marketRequirementsSchema = {
  operationId: 'getMarketRequirements',
  summary: 'Requirements of one market',
  params: object({ market: { type: 'string', description: 'Market name in any case: btc_lbtc' } }),
  response: {
    200: marketRequirementsShape,
    400: tokenBody('InvalidMarket', 'NoQuoteProvidersAvailable', 'NoQuoteProvidersForTheRequestedMarket'),
  },
} as const;

export const findOrdersSchema = {
  operationId: 'findOrders',
  summary: 'Orders for a Lightning invoice, newest first',
  querystring: {
    type: 'object',
    required: ['invoiceHash'],
    properties: {
      invoiceHash: {
        type: 'string',
        pattern: '^[0-9a-fA-F]{64}$',
        description: 'SHA-256 of the invoice string as sent, 64 hex digits, given once',
      },
      onchainTicker: { type: 'string', description: 'Optional: on-chain ticker of an offered market, any case' },
    },
  },
  response: {
    200: { type: 'array', items: orderSummaryShape },
    400: tokenBody('InvalidInvoiceHash', 'InvalidOnchainTicker'),
  },
} as const;

/** The query fields of Get Orders with the token that refuses each. */
export const findOrdersQueryTokens: ReadonlyMap<string, ErrorToken> = new Map([
  ['invoiceHash', 'InvalidInvoiceHash'],
  ['onchainTicker', 'InvalidOnchainTicker'],
]);

export const getOrderSchema = {
  operationId: 'getOrder',
  summary: 'One order; paymentPreimage once it is known',
  params: orderIdParams,
  response: { 200: orderShape, ...orderErrors },
} as const;

export const orderStateSchema = {
  operationId: 'getOrderState',
  summary: 'The order state as a JSON string',
  params: orderIdParams,
  response: { 200: orderState, ...orderErrors },
} as const;

export const fundingDetailsSchema = {
  operationId: 'getOrderFundDetails',
  summary: 'What to send, and where, to fund the order',
  params: orderIdParams,
  response: { 200: fundingDetailsShape, ...orderErrors },
} as const;

export const transactionsSchema = {
  operationId: 'getOrderTransactions',
  summary: 'On-chain transactions of the order',
  params: orderIdParams,
  response: { 200: { type: 'array', items: transactionShape }, ...orderErrors },
} as const;

export const refundSchema = {
  operationId: 'getOrderRefund',
  summary:
    'How the order can be refunded: TimelockRefund, CooperativeRefund (send it now), or AdminRefund without the timing fields',
  description:
    "Without funder, the figures of the order's slots (dust left out); with funder, those of that funder's slot alone",
  params: orderIdParams,
  querystring: {
    type: 'object',
    properties: {
      funder: {
        type: 'string',
        pattern: FUNDER_PATTERN,
        description: 'Optional, Ethereum orders: the funding account, any case; the answer is about its slot alone',
      },
    },
  },
  response: {
    200: refundShape,
    400: tokenBody('InvalidOrderId', 'InvalidFunder', 'OrderHasNoSlots'),
    404: tokenBody('OrderNotFound', 'SlotNotFound'),
  },
} as const;

/** The query fields of Get Order Refund with the token that refuses each. */
export const refundQueryTokens: ReadonlyMap<string, ErrorToken> = new Map([['funder', 'InvalidFunder']]);

/** The field a validation failure is about: the missing one, or the first segment of the failing path. */
function failingField(error: FastifySchemaValidationError): string {
  const missing = error.params['missingProperty'];
  if (typeof missing === 'string') return missing;
  return error.instancePath.split('/')[1] ?? '';
}

/**
 * Turns a schema validation failure into the token that refuses the failing field. Ajv stops at the
 * first failure and checks `required` and then the properties in schema order, which is the order
 * the spec checks them in.
 */
export function refuseWithTokens(tokensByField: ReadonlyMap<string, ErrorToken>): SchemaErrorFormatter {
  return (errors) => {
    const first = errors[0];
    const token = first === undefined ? undefined : tokensByField.get(failingField(first));
    return new LnswapError(token ?? 'BadRequest');
  };
}

export const healthzSchema = {
  operationId: 'healthz',
  summary: 'Liveness: the process answers',
  tags: ['operations'],
  response: { 200: tokenBody('OK') },
} as const;

export const readyzSchema = {
  operationId: 'readyz',
  summary: 'Readiness: the store answers and every followed chain is within its allowed lag',
  tags: ['operations'],
  response: {
    200: tokenBody('Ready'),
    503: tokenBody('StoreUnavailable', 'ChainUnreachable', 'ChainNodeMisbehaving', 'ChainNotWatchedYet', 'ChainBehind'),
  },
} as const;

export const metricsSchema = {
  operationId: 'metrics',
  summary: 'Prometheus metrics in the text exposition format (version 0.0.4); docs/operations.md lists them',
  tags: ['operations'],
  response: { 200: { type: 'string', description: 'Prometheus text exposition format' } },
} as const;

export const orderHistorySchema = {
  operationId: 'getOrderHistory',
  summary: "The tracker page's view of an order: when and why it entered each state, its transactions' blocks",
  description:
    'Not part of the REDSHIFT read API under /api: the order tracker page reads it (docs/tracker.md). ' +
    "`sequence` numbers the states as socket.io's stateChanged does.",
  tags: ['tracker'],
  params: orderIdParams,
  response: { 200: orderHistoryShape, ...orderErrors },
} as const;

const TRACKER_PAGES: Readonly<Record<string, { operationId: string; summary: string }>> = {
  '/': { operationId: 'trackerPage', summary: 'The order tracker page: look orders up by invoice or order id' },
  '/orders/:id': { operationId: 'trackerOrderPage', summary: 'The order tracker page opened on one order' },
  '/markets': { operationId: 'trackerMarketsPage', summary: 'The order tracker page listing the markets' },
  '/pay': { operationId: 'payPage', summary: 'The pay page: pay a Lightning invoice from a browser wallet' },
};

/** The page's HTML, the same document at each of its paths: its scripts choose the view. */
export function trackerPageSchema(url: string) {
  const page = TRACKER_PAGES[url];
  if (page === undefined) throw new Error(`no tracker page at ${url}`);
  return {
    ...page,
    tags: ['tracker'],
    ...(url.includes(':id') ? { params: orderIdParams } : {}),
    response: { 200: { type: 'string', description: 'HTML' } },
  } as const;
}

export const trackerAssetSchema = {
  operationId: 'trackerAsset',
  summary: "The tracker page's scripts and styles, with ETag and Cache-Control: no-cache",
  tags: ['tracker'],
  params: object({ file: { type: 'string', description: 'File name, e.g. tracker.js' } }),
  response: { 200: { type: 'string', description: 'JavaScript or CSS' }, 404: tokenBody('NotFound') },
} as const;
