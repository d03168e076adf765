import { randomBytes } from 'node:crypto';
import { payments } from 'bitcoinjs-lib';
import { io, type Socket } from 'socket.io-client';
import { startProviderBot, type ProviderBot } from '../../examples/provider-bot.js';
import type { ChainKind } from '../../src/domain/markets.js';
import { benchConfiguration, SWAP_CONTRACT_ADDRESS } from '../dataset/configuration.js';
import { forwardedAddress } from './addresses.js';
import { freshInvoice } from './invoices.js';
import type { MovingOrder, ProviderKeysMessage } from './messages.js';
import { payoutAddressOfProvider } from './payout-addresses.js';
import { percentile } from './statistics.js';

const PAY_REQ = { minExpirationSeconds: '600', minBaseUnits: '1000', maxBaseUnits: '1000000' };
const WEI_PER_SATOSHI = 300_000_000_000n;
const INVOICE_SATOSHIS = 50_000;
const ACK_TIMEOUT_MS = 30_000;
/** Far from the subscribers' addresses, numbered from 0. */
const FIRST_USER_ADDRESS = 1_000_000;
const REFUND_ADDRESS = payments.p2wpkh({ hash: Buffer.alloc(20, 7) }).address!;

export interface QuoteLoadResult {
  readonly users: number;
  readonly seconds: number;
  readonly auctions: number;
  readonly auctionsPerSecond: number;
  readonly ackP50Ms: number;
  readonly ackP99Ms: number;
  /** Refusal tokens and how often each came; a healthy run has none. */
  readonly refusals: Readonly<Record<string, number>>;
}

function connect(url: string, namespace: string, clientNumber?: number): Promise<Socket> {
  const socket = io(`${url}${namespace}`, {
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    ...(clientNumber === undefined ? {} : { extraHeaders: { 'x-forwarded-for': forwardedAddress(clientNumber) } }),
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

/** Three provider bots (examples/provider-bot.ts) with different premiums, so every auction has a winner to pick. */
export async function startProviders(url: string, keys: readonly ProviderKeysMessage[]): Promise<ProviderBot[]> {
  const bitcoinBlockHeight = benchConfiguration().chains.bitcoin?.blockHeight;
  if (bitcoinBlockHeight === undefined) throw new Error('the bench configuration has no Bitcoin chain view');
  return Promise.all(
    keys.map(async (key, index) => {
      const premium = BigInt(100 * (index + 1));
      return startProviderBot({
        socket: await connect(url, '/provider/v1'),
        apiKey: key.apiKey,
        secretKey: key.secretKey,
        markets: { BTC_LBTC: PAY_REQ, ETH_LBTC: PAY_REQ },
        terms: {
          claimPrivateKey: randomBytes(32).toString('hex'),
          fundWindowMs: 2 * 3600_000,
          timelockBlocks: 144,
          bitcoinBlockHeight,
          swapContractAddress: SWAP_CONTRACT_ADDRESS,
          ethereumPayoutAddress: payoutAddressOfProvider(index),
          price: (market, satoshis) =>
            market === 'BTC_LBTC' ? satoshis + premium : (satoshis + premium) * WEI_PER_SATOSHI,
        },
      });
    }),
  );
}

/**
 * Users that each send `requestQuote` again as soon as the previous ack came back, on both markets in turn,
 * until `keepGoing` says stop; every order made is kept, for the subscribers to follow.
 */
export class QuoteUsers {
  private readonly latencies: number[] = [];
  private readonly refusals: Record<string, number> = {};
  private auctions = 0;
  readonly orders: MovingOrder[] = [];

  private constructor(private readonly sockets: readonly Socket[]) {}

  static async connect(url: string, users: number): Promise<QuoteUsers> {
    const sockets = await Promise.all(
      Array.from({ length: users }, (_, index) => connect(url, '/user/v1', FIRST_USER_ADDRESS + index)),
    );
    return new QuoteUsers(sockets);
  }

  get connected(): number {
    return this.sockets.length;
  }

  /** Runs the first `users` users for `seconds` and reports what the load achieved. */
  async measure(seconds: number, users: number): Promise<QuoteLoadResult> {
    this.latencies.length = 0;
    this.auctions = 0;
    for (const token of Object.keys(this.refusals)) delete this.refusals[token];
    const ends = performance.now() + seconds * 1000;
    await this.run(() => performance.now() < ends, users);
    return {
      users,
      seconds,
      auctions: this.auctions,
      auctionsPerSecond: this.auctions / seconds,
      ackP50Ms: percentile(this.latencies, 50),
      ackP99Ms: percentile(this.latencies, 99),
      refusals: { ...this.refusals },
    };
  }

  /** Goes on with `users` users until at least `orders` orders exist, unmeasured. */
  async fillTo(orders: number, users: number): Promise<void> {
    await this.run(() => this.orders.length < orders, users);
  }

  close(): void {
    for (const socket of this.sockets) socket.close();
  }

  private async run(keepGoing: () => boolean, users: number): Promise<void> {
    await Promise.all(
      this.sockets.slice(0, users).map(async (socket, index) => {
        for (let turn = index; keepGoing(); turn++)
          await this.requestOne(socket, turn % 2 === 0 ? 'bitcoin' : 'ethereum');
      }),
    );
  }

  private async requestOne(socket: Socket, chain: ChainKind): Promise<void> {
    const invoice = freshInvoice(INVOICE_SATOSHIS);
    const request =
      chain === 'bitcoin'
        ? { market: 'BTC_LBTC', invoice, refundAddress: REFUND_ADDRESS }
        : { market: 'ETH_LBTC', invoice };
    const sent = performance.now();
    const ack = (await socket.timeout(ACK_TIMEOUT_MS).emitWithAck('requestQuote', request)) as {
      success: boolean;
      message?: { orderId?: string } | string;
    };
    this.latencies.push(performance.now() - sent);
    if (ack.success && typeof ack.message === 'object' && typeof ack.message.orderId === 'string') {
      this.auctions++;
      this.orders.push({ orderId: ack.message.orderId, chain });
    } else {
      const token = typeof ack.message === 'string' ? ack.message : JSON.stringify(ack.message);
      this.refusals[token] = (this.refusals[token] ?? 0) + 1;
    }
  }
}
