/**
 * A liquidity provider bot for lnswap's `/provider/v1` namespace: it authenticates, announces what
 * it accepts, subscribes to quote requests and answers each one with a quote.
 *
 *   npx tsx examples/provider-bot.ts --url http://127.0.0.1:8080 \
 *     --api-key KEY --secret-key SECRET --bitcoin-height 612100 \
 *     --swap-contract 0xf0398fad8c2aa38c476b010c269158d442730e98
 *
 * KEY and SECRET come from `lnswap providers add NAME`. A real provider pays the invoice with its
 * Lightning node once the user's funds are confirmed, then reports the preimage with
 * `reportPayment`; this bot only quotes.
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { io } from 'socket.io-client';
import { buildMakerQuote, type MakerTerms, type QuoteRequestEvent } from './maker-quote.js';

/** The part of a socket.io client (2.x or 4.x) the bot uses. */
export interface BotSocket {
  on(event: string, listener: (...args: never[]) => void): unknown;
  emit(event: string, ...args: unknown[]): unknown;
  close(): unknown;
}

export interface Ack {
  success: boolean;
  message?: unknown;
}

export interface PayReqConfiguration {
  minExpirationSeconds: string;
  minBaseUnits: string;
  maxBaseUnits: string;
}

export interface ProviderBotOptions {
  /** A socket connected to `<service>/provider/v1`. */
  socket: BotSocket;
  apiKey: string;
  secretKey: string;
  /** What the bot accepts per market; it subscribes to exactly these markets. */
  markets: Record<string, PayReqConfiguration>;
  terms: MakerTerms;
  /** Hears how the service judged each quote. */
  onQuoteJudged?: (orderId: string, ack: Ack) => void;
}

export interface ProviderBot {
  reportPayment(orderId: string, preimage: string): Promise<Ack>;
  reportFailedPayment(orderId: string, failedReason: string): Promise<Ack>;
  close(): void;
}

function call(socket: BotSocket, event: string, payload: unknown): Promise<Ack> {
  return new Promise((resolve) => socket.emit(event, payload, resolve));
}

async function mustSucceed(socket: BotSocket, event: string, payload: unknown): Promise<void> {
  const ack = await call(socket, event, payload);
  if (!ack.success) throw new Error(`${event} refused: ${String(ack.message)}`);
}

export async function startProviderBot(options: ProviderBotOptions): Promise<ProviderBot> {
  const { socket } = options;
  socket.on('requestQuote', (request: never) => {
    const quoteRequest = request as QuoteRequestEvent;
    let quote;
    try {
      quote = buildMakerQuote(quoteRequest, options.terms);
    } catch {
      return; // Not a request this bot can quote; staying silent is a valid answer.
    }
    socket.emit('makerQuote', quote, (ack: Ack) => options.onQuoteJudged?.(quoteRequest.orderId, ack));
  });

  await mustSucceed(socket, 'authenticate', { apiKey: options.apiKey, secretKey: options.secretKey });
  const configuration = Object.fromEntries(
    Object.entries(options.markets).map(([market, payReq]) => [market, { payReq }]),
  );
  await mustSucceed(socket, 'activeConfiguration', configuration);
  await mustSucceed(socket, 'subscribeToQuotes', Object.keys(options.markets));

  return {
    reportPayment: (orderId, preimage) => call(socket, 'paymentResult', { orderId, success: true, preimage }),
    reportFailedPayment: (orderId, failedReason) =>
      call(socket, 'paymentResult', { orderId, success: false, failedReason }),
    close: () => socket.close(),
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      url: { type: 'string', default: 'http://127.0.0.1:8080' },
      'api-key': { type: 'string', default: process.env.LNSWAP_PROVIDER_API_KEY },
      'secret-key': { type: 'string', default: process.env.LNSWAP_PROVIDER_SECRET_KEY },
      'bitcoin-height': { type: 'string', default: '612100' },
      'swap-contract': { type: 'string', default: '0xf0398fad8c2aa38c476b010c269158d442730e98' },
      // The address the operator registered for this provider (lnswap providers add NAME --ethereum-payout ...).
      'ethereum-payout': { type: 'string', default: process.env.LNSWAP_ETHEREUM_PAYOUT },
    },
  });
  const apiKey = values['api-key'];
  const secretKey = values['secret-key'];
  const ethereumPayoutAddress = values['ethereum-payout'];
  if (apiKey === undefined || secretKey === undefined) {
    throw new Error('give --api-key and --secret-key (or LNSWAP_PROVIDER_API_KEY and LNSWAP_PROVIDER_SECRET_KEY)');
  }
  if (ethereumPayoutAddress === undefined) {
    throw new Error(
      'give --ethereum-payout (or LNSWAP_ETHEREUM_PAYOUT): the payout address registered for this provider',
    );
  }
  const socket = io(`${values.url}/provider/v1`, { transports: ['websocket'] });
  socket.on('connect_error', (error) => console.error('cannot connect:', error.message));
  await new Promise<void>((resolve) => socket.once('connect', resolve));

  // A throwaway claim key: a real provider keeps it, as it needs it to claim the funds.
  const claimPrivateKey = randomBytes(32).toString('hex');
  const terms: MakerTerms = {
    claimPrivateKey,
    fundWindowMs: 10 * 60_000,
    timelockBlocks: 144,
    bitcoinBlockHeight: Number(values['bitcoin-height']),
    swapContractAddress: values['swap-contract'],
    ethereumPayoutAddress,
    // 1% over the invoice for BTC; for ETH a fixed rate of 30 ETH per BTC (1 satoshi = 3e11 wei).
    price: (market, satoshis) => (market.startsWith('BTC') ? satoshis + satoshis / 100n : satoshis * 300_000_000_000n),
  };
  const payReq = { minExpirationSeconds: '600', minBaseUnits: '1000', maxBaseUnits: '4294967' };
  await startProviderBot({
    socket,
    apiKey,
    secretKey,
    markets: { BTC_LBTC: payReq, ETH_LBTC: payReq },
    terms,
    onQuoteJudged: (orderId, ack) => console.log(`quote for ${orderId}:`, ack.success ? 'accepted' : ack.message),
  });
  console.log('quoting BTC_LBTC and ETH_LBTC; Ctrl+C to stop');
  process.once('SIGINT', () => socket.close());
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
