/**
 * The JSON shapes of what HTTP answers and socket.io acknowledges, as JSON schemas: the one source
 * of the wire's field sets and order. Fastify serializes responses with them, and the TypeScript
 * types the presenters fill are derived from them, so a field cannot be added to one and not the other.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { ORDER_STATES } from '../domain/states.js';

/**
 * An object whose every field is present and no other. The serializer writes required fields before
 * optional ones, so a shape with an optional field mid-object is written as separate all-required
 * branches (anyOf) to keep the wire order the interface's tables give.
 */
export function object<const Properties extends Record<string, unknown>>(properties: Properties) {
  return {
    type: 'object',
    required: Object.keys(properties) as (keyof Properties & string)[],
    properties,
    additionalProperties: false,
  } as const;
}

export const string = { type: 'string' } as const;
export const integer = { type: 'integer' } as const;
export const orderState = { type: 'string', enum: ORDER_STATES } as const;
const timestamp = { type: 'string', description: 'ISO 8601 UTC with milliseconds' } as const;

export const marketShape = object({ onchainTicker: string, offchainTicker: string, market: string });

export const marketRequirementsShape = object({
  market: string,
  payReq: object({
    minExpirationSeconds: { type: 'string', description: 'Seconds, decimal integer' },
    minBaseUnits: { type: 'string', description: 'Base units, decimal integer' },
    maxBaseUnits: { type: 'string', description: 'Base units, decimal integer' },
  }),
});

const orderSummaryProperties = {
  id: string,
  market: string,
  onchainTicker: string,
  createdAt: timestamp,
  state: orderState,
  payToAddress: string,
  amount: { type: 'string', description: 'Whole units of the on-chain asset' },
  amountPaid: { type: 'string', description: 'Sum of the FUND transactions, whole units' },
  expiryTimestamp: timestamp,
} as const;

export const orderSummaryShape = object(orderSummaryProperties);

const orderProperties = {
  ...orderSummaryProperties,
  invoice: { type: 'string', description: 'BOLT11 payment request' },
  paymentHash: { type: 'string', description: '64 lowercase hex, from the invoice' },
} as const;

/** The order, and its paymentPreimage once it is known (the one optional field, and the last). */
export const orderShape = {
  ...object(orderProperties),
  properties: { ...orderProperties, paymentPreimage: { type: 'string', description: '64 hex' } },
} as const;

const unsignedEthereumTx = object({
  to: string,
  data: string,
  value: { type: 'string', description: 'Integer, smallest unit (wei)' },
});

export const fundingDetailsShape = object({
  orderId: string,
  expiryTimestampMs: { type: 'integer', description: 'Milliseconds since the Unix epoch' },
  amount: { type: 'string', description: 'The full amount, fixed-point with the asset decimals' },
  details: {
    anyOf: [
      object({ redeemScript: string, payToAddress: string, refundableAtBlockHeight: integer }),
      object({ unsignedFundingTx: unsignedEthereumTx }),
      object({
        unsignedFundingTx: { ...unsignedEthereumTx, description: 'fundToken(...) on the swap contract, value "0"' },
        unsignedApprovalTx: {
          ...unsignedEthereumTx,
          description: 'ERC-20 approve(swap contract, amount) on the token, sent and mined first',
        },
      }),
    ],
  },
});

export const transactionShape = object({ type: { type: 'string', enum: ['FUND', 'REFUND'] }, id: string });

const bitcoinRefundDetails = {
  redeemScript: string,
  currentBlockHeight: integer,
  feeTokensPerVirtualByte: { type: 'number' },
  utxos: { type: 'array', items: object({ txId: string, index: integer, tokens: integer }) },
} as const;

const refundHead = {
  market: string,
  type: { type: 'string', enum: ['TimelockRefund', 'AdminRefund', 'CooperativeRefund'] },
  state: orderState,
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

/** A TimelockRefund or CooperativeRefund with its timing fields, or an AdminRefund without them. */
export const refundShape = {
  anyOf: [
    object({ ...refundHead, blocksRemaining: integer, refundableAtBlockHeight: integer, ...refundTail }),
    object({ ...refundHead, ...refundTail }),
  ],
} as const;

const transitionCauseShape = {
  type: 'object',
  required: ['source', 'reason'],
  properties: {
    source: { type: 'string', enum: ['request', 'timer', 'chain', 'import'] },
    reason: {
      type: 'string',
      description: 'The rule or event: requestQuote, fundingConfirmed, fundWindowElapsed, ...',
    },
    chain: { type: 'string', enum: ['bitcoin', 'ethereum'] },
    txId: string,
    blockHeight: integer,
    blockHash: string,
  },
  additionalProperties: false,
} as const;

/**
 * What the order tracker page shows beyond the read API (docs/tracker.md): when and why the order entered
 * each state, its transactions with the block that holds them, and the service's view of its chain.
 */
export const orderHistoryShape = {
  type: 'object',
  required: ['orderId', 'asset', 'states', 'transactions'],
  properties: {
    orderId: string,
    asset: {
      type: 'object',
      description: "The order's on-chain asset: where it settles and how many decimals its amounts have",
      required: ['ticker', 'chain', 'network', 'decimals'],
      properties: {
        ticker: string,
        chain: { type: 'string', enum: ['bitcoin', 'ethereum'] },
        network: { type: 'string', enum: ['mainnet', 'testnet', 'simnet'] },
        decimals: integer,
        tokenAddress: { type: 'string', description: "An ERC-20 token's contract; absent for BTC and ether" },
      },
      additionalProperties: false,
    },
    states: {
      type: 'array',
      items: {
        type: 'object',
        required: ['sequence', 'state', 'at'],
        properties: {
          sequence: {
            type: 'integer',
            description: "1 for the order's first state, one more per move (stateChanged's)",
          },
          state: orderState,
          at: timestamp,
          cause: transitionCauseShape,
        },
        additionalProperties: false,
      },
    },
    transactions: {
      type: 'array',
      items: {
        type: 'object',
        required: ['type', 'id'],
        properties: {
          type: { type: 'string', enum: ['FUND', 'REFUND'] },
          id: string,
          blockHeight: { type: 'integer', description: 'Absent while only seen in the mempool' },
        },
        additionalProperties: false,
      },
    },
    chainHeight: { type: 'integer', description: "The service's view of the order's chain tip" },
    ethereumChainId: { type: 'integer', description: 'EIP-155 chain id of the Ethereum node followed, when known' },
  },
  additionalProperties: false,
} as const;

/**
 * Every socket.io acknowledgement: `{ success: true, message? }` with the answer, or `{ success: false, message }`
 * with the refusal's error token (`src/ws/acks.ts` writes them).
 */
export const ackShape = {
  anyOf: [
    {
      type: 'object',
      required: ['success'],
      properties: { success: { type: 'boolean', enum: [true] }, message: {} },
      additionalProperties: false,
    },
    object({ success: { type: 'boolean', enum: [false] }, message: { type: 'string', description: 'An error token' } }),
  ],
} as const;

/**
 * The `requestQuote` a provider receives on `/provider/v1` (the quote desk's `ProviderQuoteRequest`; a test holds the
 * two equal): the order's id, market and invoice, the user's refund address when given, and until when quotes count.
 */
export const providerQuoteRequestShape = {
  type: 'object',
  required: ['orderId', 'market', 'invoice', 'requestExpiryTimestampMs'],
  properties: {
    orderId: string,
    market: string,
    invoice: { type: 'string', description: 'BOLT11 payment request' },
    refundAddress: string,
    requestExpiryTimestampMs: { type: 'integer', description: 'Milliseconds since the Unix epoch' },
  },
  additionalProperties: false,
} as const;

/** What `broadcastTransaction` answers on success. */
export const broadcastAnswerShape = object({ txId: string });

/**
 * `stateChanged` on /user/v1 (the order subscriptions' event): the order's new state and its history sequence,
 * with the transaction that moved it (FUND or REFUND states) or the preimage (`Complete`).
 */
export const stateChangedShape = {
  type: 'object',
  required: ['orderId', 'state', 'sequence'],
  properties: {
    orderId: string,
    state: orderState,
    sequence: { type: 'integer', minimum: 1, description: "The number of the order's history row of this state" },
    transactionId: string,
    preimage: { type: 'string', description: '64 hex, on Complete' },
  },
  additionalProperties: false,
} as const;

/** `blockHeightChanged` on /user/v1: the chain kind, the subnet as the client named it (lower case), the height. */
export const blockHeightChangedShape = object({
  network: { type: 'string', enum: ['bitcoin', 'ethereum'] },
  subnet: string,
  height: integer,
});

export type MarketView = FromSchema<typeof marketShape>;
export type MarketRequirementsView = FromSchema<typeof marketRequirementsShape>;
export type OrderSummaryView = FromSchema<typeof orderSummaryShape>;
export type OrderView = FromSchema<typeof orderShape>;
export type FundingDetailsView = FromSchema<typeof fundingDetailsShape>;
export type TransactionView = FromSchema<typeof transactionShape>;
export type RefundView = FromSchema<typeof refundShape>;
export type OrderHistoryView = FromSchema<typeof orderHistoryShape>;
export type AckView = FromSchema<typeof ackShape>;
export type BroadcastAnswerView = FromSchema<typeof broadcastAnswerShape>;
export type ProviderQuoteRequestView = FromSchema<typeof providerQuoteRequestShape>;
export type StateChangedView = FromSchema<typeof stateChangedShape>;
export type BlockHeightChangedView = FromSchema<typeof blockHeightChangedShape>;
