/**
 * A user of lnswap's `/user/v1` namespace: asks for a quote to pay a Lightning invoice, prints the
 * funding details and follows the order's state until it settles.
 *
 *   npx tsx examples/user-client.ts --url http://127.0.0.1:8080 --market BTC_LBTC \
 *     --invoice lnbc... --refund-address bc1q...
 *
 * Fund the order with the printed details (pay `amount` to `payToAddress`, or send the unsigned
 * Ethereum transaction) before `expiryTimestampMs`.
 *
 * It speaks the protocol by hand over any socket.io client of either generation, as REDSHIFT-era clients do (the
 * tests drive 2.x and 4.x clients through it). A wallet uses the client library instead, which awaits every ack
 * with a timeout, resumes subscriptions after a reconnect and builds the funding and refund transactions:
 * `examples/wallet-swap.ts`, `packages/client/README.md`.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { io } from 'socket.io-client';

/** The part of a socket.io client (2.x or 4.x) this client uses. */
export interface UserSocket {
  on(event: string, listener: (...args: never[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
}

export interface Ack {
  success: boolean;
  message?: unknown;
}

/** The quote is the order's funding details. */
export interface Quote {
  orderId: string;
  expiryTimestampMs: number;
  amount: string;
  details: Record<string, unknown>;
}

export interface StateChanged {
  orderId: string;
  state: string;
  /** The order's history sequence number: a client that reconnects subscribes with `sinceSequence` set to the last one. */
  sequence: number;
  transactionId?: string;
  preimage?: string;
}

export interface SwapRequest {
  market: string;
  invoice: string;
  refundAddress?: string;
}

/** States after which an order never changes again, or (FundWindowElapsed) no swap will happen. */
const SETTLED_STATES = new Set(['Complete', 'Refunded', 'FundWindowElapsed']);

function call(socket: UserSocket, event: string, payload: unknown): Promise<Ack> {
  return new Promise((resolve) => socket.emit(event, payload, resolve));
}

/** Requests a quote; throws with the refusal token when there is none. */
export async function requestQuote(socket: UserSocket, swap: SwapRequest): Promise<Quote> {
  const ack = await call(socket, 'requestQuote', swap);
  if (!ack.success) throw new Error(String(ack.message));
  return ack.message as Quote;
}

export interface OrderFollower {
  /** Resolves with the state change that settles the order. */
  readonly settled: Promise<StateChanged>;
}

/** Subscribes to the order's state, reporting every change; resolves once subscribed. */
export async function followOrder(
  socket: UserSocket,
  orderId: string,
  onChange: (change: StateChanged) => void = () => {},
): Promise<OrderFollower> {
  const settled = new Promise<StateChanged>((resolve) => {
    socket.on('stateChanged', (payload: never) => {
      const change = payload as StateChanged;
      if (change.orderId !== orderId) return;
      onChange(change);
      if (SETTLED_STATES.has(change.state)) resolve(change);
    });
  });
  const ack = await call(socket, 'subscribeToOrderState', { orderId });
  if (!ack.success) throw new Error(String(ack.message));
  return { settled };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:8080' },
      market: { type: 'string', default: 'BTC_LBTC' },
      invoice: { type: 'string' },
      'refund-address': { type: 'string' },
    },
  });
  if (values.invoice === undefined) throw new Error('give --invoice with a BOLT11 invoice to pay');
  const socket = io(`${values.url}/user/v1`, { transports: ['websocket'] });
  socket.on('connect_error', (error) => console.error('cannot connect:', error.message));
  await new Promise<void>((resolve) => socket.once('connect', resolve));

  const requirements = await call(socket, 'requestMarketRequirements', null);
  console.log('market requirements:', JSON.stringify(requirements.message));

  const quote = await requestQuote(socket, {
    market: values.market,
    invoice: values.invoice,
    ...(values['refund-address'] === undefined ? {} : { refundAddress: values['refund-address'] }),
  });
  console.log('fund this order:', JSON.stringify(quote, null, 2));

  const follower = await followOrder(socket, quote.orderId, (change) => console.log('state:', JSON.stringify(change)));
  const settled = await follower.settled;
  console.log(`order ${quote.orderId} settled as ${settled.state}`);
  socket.close();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
