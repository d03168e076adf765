/**
 * The wire shapes of socket.io request payloads, one JSON schema per event, with the token that refuses a
 * payload of another shape. `src/engine/lifecycle/payload-shapes.ts` compiles them; `docs/asyncapi.yaml` states the
 * same schemas (test/ws/asyncapi.test.ts holds the two equal). Checks that need more than the shape (invoice
 * decoding, addresses, offered markets, credentials) stay in the code that reads the payload.
 */
import type { ErrorToken } from '../domain/errors.js';

export interface PayloadShape {
  readonly schema: object;
  /** The token refusing a payload of another shape. */
  readonly token: ErrorToken;
  /**
   * Faults with a token of their own, by field (`sinceSequence`) or by field and keyword (`orderId/pattern`):
   * refused with it when the fault is the first one.
   */
  readonly tokensByField?: Readonly<Record<string, ErrorToken>>;
}

const ORDER_ID_PATTERN =
  '^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$';
const orderId = { type: 'string', pattern: ORDER_ID_PATTERN } as const;

/** `requestQuote` on /user/v1; JSON clients write an absent refund address as null. */
export const quoteRequestShape: PayloadShape = {
  schema: {
    type: 'object',
    required: ['market', 'invoice'],
    properties: {
      market: { type: 'string', minLength: 1 },
      invoice: { type: 'string', minLength: 1 },
      refundAddress: { type: ['string', 'null'] },
    },
  },
  token: 'InvalidOrMissingQuoteRequestFields',
};

/** An Ethereum address, any case (no checksum is asked for): the funder whose slot a refund request is about. */
export const FUNDER_PATTERN = '^0x[0-9a-fA-F]{40}$';

/** `unsubscribeFromOrderState`: a UUID, any case, with or without dashes. */
export const orderIdRequestShape: PayloadShape = {
  schema: { type: 'object', required: ['orderId'], properties: { orderId } },
  token: 'InvalidOrderId',
};

/** `requestRefundDetails`: the order, and optionally the funder whose slot alone the answer describes. */
export const refundDetailsRequestShape: PayloadShape = {
  schema: {
    type: 'object',
    required: ['orderId'],
    properties: { orderId, funder: { type: 'string', pattern: FUNDER_PATTERN } },
  },
  token: 'InvalidOrderId',
  tokensByField: { funder: 'InvalidFunder' },
};

/** `subscribeToOrderState`: the order, and the last sequence of it the client has (absent or null: none). */
export const orderStateSubscriptionShape: PayloadShape = {
  schema: {
    type: 'object',
    required: ['orderId'],
    properties: {
      orderId,
      sinceSequence: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    },
  },
  token: 'InvalidOrderId',
  tokensByField: { sinceSequence: 'InvalidSinceSequence' },
};

/** `broadcastTransaction`; the ticker, the hex and the size are checked against the market after the shape. */
export const broadcastTransactionShape: PayloadShape = {
  schema: {
    type: 'object',
    required: ['onchainTicker', 'signedTxHex'],
    properties: { onchainTicker: { type: 'string' }, signedTxHex: { type: 'string' } },
  },
  token: 'InvalidOrMissingBroadcastTxRequestFields',
};

/** `subscribeToBlockHeight` and `unsubscribeFromBlockHeight`: a chain kind and one of its networks, any case. */
export const blockHeightTopicShape: PayloadShape = {
  schema: {
    type: 'object',
    required: ['network', 'subnet'],
    properties: { network: { type: 'string' }, subnet: { type: 'string' } },
  },
  token: 'InvalidNetworkOrSubnet',
};

/** `authenticate` on /provider/v1, with the credentials `lnswap providers add` printed. */
export const credentialsShape: PayloadShape = {
  schema: {
    type: 'object',
    required: ['apiKey', 'secretKey'],
    properties: { apiKey: { type: 'string', minLength: 1 }, secretKey: { type: 'string', minLength: 1 } },
  },
  token: 'InvalidOrMissingCredentials',
};

/** `subscribeToQuotes` and `unsubscribeFromQuotes`: market names; each must be an offered market. */
export const marketListShape: PayloadShape = {
  schema: { type: 'array', minItems: 1, items: { type: 'string' } },
  token: 'InvalidOrMissingMarkets',
};

/** A count in a provider's configuration: a decimal integer string, or a JSON number that is a safe integer. */
const count = { type: ['string', 'integer'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;

/** `activeConfiguration`: per market name, what the provider accepts; names and counts are read after the shape. */
export const activeConfigurationShape: PayloadShape = {
  schema: {
    type: 'object',
    additionalProperties: {
      type: 'object',
      required: ['payReq'],
      properties: {
        payReq: {
          type: 'object',
          required: ['minExpirationSeconds', 'minBaseUnits', 'maxBaseUnits'],
          properties: { minExpirationSeconds: count, minBaseUnits: count, maxBaseUnits: count },
        },
      },
    },
  },
  token: 'InvalidOrMissingActiveConfigurationFields',
};

/** `makerQuote`: the outer fields; the order, the amount and the chain's details are checked after the shape. */
export const makerQuoteShape: PayloadShape = {
  schema: {
    type: 'object',
    required: ['orderId', 'quoteExpiryTimestampMs', 'details'],
    properties: {
      orderId: { type: 'string' },
      quoteExpiryTimestampMs: { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      amount: { type: 'string' },
      details: { type: 'object' },
    },
  },
  token: 'InvalidOrMissingQuoteFields',
};

const nullableString = { type: ['string', 'null'] } as const;

/**
 * `paymentResult`, checked in three steps so that the tokens come in the order the provider protocol always gave
 * them: an order id that is not a string is a missing field, one that is not a UUID an `InvalidOrderId`, and
 * only then are the other fields read. The failed reason's words are checked after the shape.
 */
export const paymentResultShape: PayloadShape = {
  schema: {
    allOf: [
      { type: 'object', required: ['orderId'], properties: { orderId: { type: 'string' } } },
      { type: 'object', properties: { orderId } },
      {
        type: 'object',
        required: ['success'],
        properties: { success: { type: 'boolean' }, failedReason: nullableString, preimage: nullableString },
      },
    ],
  },
  token: 'InvalidOrMissingQuoteFields',
  tokensByField: { 'orderId/pattern': 'InvalidOrderId' },
};

/** Most slots an order's `refundAuthorization` names at once: more than any order's matching slots worth signing. */
export const MAX_REFUND_AUTHORIZATIONS = 16;

/**
 * `refundAuthorization`: the winning provider's EIP-712 cooperative refunds of an order's slots, one per funder, each
 * a 65-byte signature in 0x hex. Whose signature it is, and which slot it opens, is checked after the shape.
 */
export const refundAuthorizationShape: PayloadShape = {
  schema: {
    type: 'object',
    required: ['orderId', 'refunds'],
    properties: {
      orderId,
      refunds: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_REFUND_AUTHORIZATIONS,
        items: {
          type: 'object',
          required: ['funder', 'signature'],
          properties: {
            funder: { type: 'string', pattern: FUNDER_PATTERN },
            signature: { type: 'string', pattern: '^0x[0-9a-fA-F]{130}$' },
          },
        },
      },
    },
  },
  token: 'InvalidOrMissingRefundAuthorizationFields',
  tokensByField: { 'orderId/pattern': 'InvalidOrderId' },
};

/**
 * `requestCancel`: the funder's EIP-712 signature of the cancel of the order (docs/websocket.md). Whose signature
 * it is, and whether the funder funded the order, is checked after the shape.
 */
export const cancelRequestShape: PayloadShape = {
  schema: {
    type: 'object',
    required: ['orderId', 'funder', 'signature'],
    properties: {
      orderId,
      funder: { type: 'string', pattern: FUNDER_PATTERN },
      signature: { type: 'string', pattern: '^0x[0-9a-fA-F]{130}$' },
    },
  },
  token: 'InvalidOrMissingCancelFields',
  tokensByField: { 'orderId/pattern': 'InvalidOrderId' },
};

/** Each request event's payload shape by namespace, as `docs/asyncapi.yaml` lists them. */
export const SOCKET_PAYLOAD_SHAPES: Readonly<Record<'user' | 'provider', Readonly<Record<string, PayloadShape>>>> = {
  user: {
    requestQuote: quoteRequestShape,
    subscribeToOrderState: orderStateSubscriptionShape,
    unsubscribeFromOrderState: orderIdRequestShape,
    requestRefundDetails: refundDetailsRequestShape,
    requestCancel: cancelRequestShape,
    broadcastTransaction: broadcastTransactionShape,
    subscribeToBlockHeight: blockHeightTopicShape,
    unsubscribeFromBlockHeight: blockHeightTopicShape,
  },
  provider: {
    authenticate: credentialsShape,
    subscribeToQuotes: marketListShape,
    unsubscribeFromQuotes: marketListShape,
    activeConfiguration: activeConfigurationShape,
    makerQuote: makerQuoteShape,
    paymentResult: paymentResultShape,
    refundAuthorization: refundAuthorizationShape,
  },
};
