/**
 * JSON schemas of the read API. Response schemas fix the wire field set and order (Fastify serializes
 * with them); request schemas document the parameters and refuse what can be refused without the store.
 */
import type { FastifySchemaValidationError, FastifyServerOptions } from 'fastify';
import { LnswapError, type ErrorToken } from '../domain/errors.js';
import { ORDER_STATES } from '../domain/states.js';

type SchemaErrorFormatter = NonNullable<FastifyServerOptions['schemaErrorFormatter']>;

/**
 * An object whose every field is present. The serializer writes required fields before optional
 * ones, so a shape with an optional field mid-object is written as separate all-required branches
 * (anyOf) to keep the wire order the interface's tables give.
 */
function object<Properties extends Record<string, unknown>>(properties: Properties) {
  return { type: 'object', required: Object.keys(properties), properties } as const;
}

const string = { type: 'string' } as const;
const integer = { type: 'integer' } as const;

function tokenBody(description: string) {
  return { type: 'string', description: `Bare text token: ${description}` } as const;
}

const orderIdParams = object({
  id: { type: 'string', description: 'Order id: a UUID in any case, with or without dashes' },
});

const orderErrors = { 400: tokenBody('InvalidOrderId'), 404: tokenBody('OrderNotFound') } as const;

export const listMarketsSchema = {
  summary: 'Markets the service offers',
  response: {
    200: { type: 'array', items: object({ onchainTicker: string, offchainTicker: string, market: string }) },
  },
} as const;

const marketRequirements = object({
  market: string,
  payReq: object({
    minExpirationSeconds: { type: 'string', description: 'Seconds, decimal integer' },
    minBaseUnits: { type: 'string', description: 'Base units, decimal integer' },
    maxBaseUnits: { type: 'string', description: 'Base units, decimal integer' },
  }),
});

export const allRequirementsSchema = {
  summary: 'Requirements of every offered market that an active provider serves',
  response: { 200: { type: 'array', items: marketRequirements } },
} as const;

export const marketRequirementsSchema = {
  summary: 'Requirements of one market',
  params: object({ market: { type: 'string', description: 'Market name in any case: btc_lbtc' } }),
  response: {
    200: marketRequirements,
    400: tokenBody('InvalidMarket, NoQuoteProvidersAvailable or NoQuoteProvidersForTheRequestedMarket'),
  },
} as const;

const state = { type: 'string', enum: ORDER_STATES } as const;
const timestamp = { type: 'string', description: 'ISO 8601 UTC with milliseconds' } as const;

const orderSummaryProperties = {
  id: string,
  market: string,
  onchainTicker: string,
  createdAt: timestamp,
  state,
  payToAddress: string,
  amount: { type: 'string', description: 'Whole units of the on-chain asset' },
  amountPaid: { type: 'string', description: 'Sum of the FUND transactions, whole units' },
  expiryTimestamp: timestamp,
} as const;

const orderProperties = {
  ...orderSummaryProperties,
  invoice: { type: 'string', description: 'BOLT11 payment request' },
  paymentHash: { type: 'string', description: '64 lowercase hex, from the invoice' },
} as const;

export const findOrdersSchema = {
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
    200: { type: 'array', items: object(orderSummaryProperties) },
    400: tokenBody('InvalidInvoiceHash, else InvalidOnchainTicker'),
  },
} as const;

/** The query fields of Get Orders with the token that refuses each. */
export const findOrdersQueryTokens: ReadonlyMap<string, ErrorToken> = new Map([
  ['invoiceHash', 'InvalidInvoiceHash'],
  ['onchainTicker', 'InvalidOnchainTicker'],
]);

export const getOrderSchema = {
  summary: 'One order; paymentPreimage once it is known',
  params: orderIdParams,
  response: {
    200: {
      type: 'object',
      required: Object.keys(orderProperties),
      properties: { ...orderProperties, paymentPreimage: { type: 'string', description: '64 hex' } },
    },
    ...orderErrors,
  },
} as const;

export const orderStateSchema = {
  summary: 'The order state as a JSON string',
  params: orderIdParams,
  response: { 200: state, ...orderErrors },
} as const;

export const fundingDetailsSchema = {
  summary: 'What to send, and where, to fund the order',
  params: orderIdParams,
  response: {
    200: object({
      orderId: string,
      expiryTimestampMs: { type: 'integer', description: 'Milliseconds since the Unix epoch' },
      amount: { type: 'string', description: 'The full amount, fixed-point with the asset decimals' },
      details: {
        anyOf: [
          object({ redeemScript: string, payToAddress: string, refundableAtBlockHeight: integer }),
          object({
            unsignedFundingTx: object({
              to: string,
              data: string,
              value: { type: 'string', description: 'Integer, smallest unit (wei)' },
            }),
          }),
        ],
      },
    }),
    ...orderErrors,
  },
} as const;

export const transactionsSchema = {
  summary: 'On-chain transactions of the order',
  params: orderIdParams,
  response: {
    200: { type: 'array', items: object({ type: { type: 'string', enum: ['FUND', 'REFUND'] }, id: string }) },
    ...orderErrors,
  },
} as const;

const bitcoinRefundDetails = {
  redeemScript: string,
  currentBlockHeight: integer,
  feeTokensPerVirtualByte: { type: 'number' },
  utxos: { type: 'array', items: object({ txId: string, index: integer, tokens: integer }) },
} as const;

const refundHead = {
  market: string,
  type: { type: 'string', enum: ['TimelockRefund', 'AdminRefund'] },
  state,
} as const;

const refundTail = {
  refundableBalance: { type: 'string', description: 'Whole units still locked' },
  details: {
    anyOf: [
      object({ refundAddress: string, ...bitcoinRefundDetails }),
      object(bitcoinRefundDetails),
      object({ to: string, data: string }),
    ],
  },
} as const;

export const refundSchema = {
  summary: 'How the order can be refunded: TimelockRefund, or AdminRefund without the timing fields',
  params: orderIdParams,
  response: {
    200: {
      anyOf: [
        object({ ...refundHead, blocksRemaining: integer, refundableAtBlockHeight: integer, ...refundTail }),
        object({ ...refundHead, ...refundTail }),
      ],
    },
    ...orderErrors,
  },
} as const;

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
