import type { Socket } from 'socket.io-client';
import { publicActions } from 'viem';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../chains/ethereum/swap-contract-artifact.js';
import { formatFixedPoint } from '../../domain/amounts.js';
import { encodeFundCalldata } from '../../domain/ethereum.js';
import { decodeInvoice } from '../../domain/invoice.js';
import { findMarket } from '../../domain/markets.js';
import { orderIdToBytes16 } from '../../domain/order-ids.js';
import { call, connectBotSocket, type Ack } from './bot-socket.js';
import type { DemoLightning } from './demo-lightning.js';
import type { DemoWallet } from './local-chain.js';
import { serialQueue } from './serial.js';

export const DEMO_MARKET = 'SETH_LSBTC';
/** The bot's price: 30 ETH per BTC, so one satoshi is worth 3e11 wei, plus a fixed premium. */
const WEI_PER_SATOSHI = 300_000_000_000n;
const PREMIUM_SATOSHIS = 100n;
/** The service stores the winning order just after the quote deadline. */
const FOLLOW_AFTER_DEADLINE_MS = 200;
const FOLLOW_ATTEMPTS = 10;
const PAY_REQ = { minExpirationSeconds: '600', minBaseUnits: '1000', maxBaseUnits: '1000000' };

export interface ProviderBotSettings {
  readonly url: string;
  readonly apiKey: string;
  readonly secretKey: string;
  readonly contractAddress: `0x${string}`;
  /** How long users get to fund, counted from the quote request's deadline. */
  readonly fundWindowMs: number;
  readonly wallet: DemoWallet;
  readonly lightning: DemoLightning;
  /** Tells what the bot did for an order. */
  readonly report: (orderId: string, step: string) => void;
}

export interface DemoProviderBot {
  close(): void;
}

interface QuoteRequest {
  readonly orderId: string;
  readonly market: string;
  readonly invoice: string;
  readonly requestExpiryTimestampMs: number;
}

/**
 * The demo's liquidity provider, speaking the real /provider/v1 protocol: it quotes the swap contract's fund
 * call, follows its orders on /user/v1 like any wallet, and once an order is Funded pays the invoice and claims
 * the coins on chain with the preimage. The watcher, not the bot, then completes the order.
 */
export async function startDemoProviderBot(settings: ProviderBotSettings): Promise<DemoProviderBot> {
  const provider = await connectBotSocket(settings.url, '/provider/v1');
  let follower: Socket | undefined;
  try {
    follower = await connectBotSocket(settings.url, '/user/v1');
    await call(provider, 'authenticate', { apiKey: settings.apiKey, secretKey: settings.secretKey });
    await call(provider, 'activeConfiguration', { [DEMO_MARKET]: { payReq: PAY_REQ } });
    await call(provider, 'subscribeToQuotes', [DEMO_MARKET]);
  } catch (error) {
    provider.close();
    follower?.close();
    throw error;
  }
  const watching = follower;
  const paymentHashes = new Map<string, string>();
  const transact = serialQueue();

  provider.on('requestQuote', (request: QuoteRequest) => {
    const quote = quoteFor(request, settings);
    if (quote === undefined) return;
    paymentHashes.set(request.orderId, quote.paymentHash);
    provider.emit('makerQuote', quote.makerQuote, (ack: Ack) => {
      if (ack.success) return;
      paymentHashes.delete(request.orderId);
      settings.report(request.orderId, `provider: quote refused: ${String(ack.message)}`);
    });
    // The order is stored once the auction is over: the bot follows it from then on, and looks at its state
    // once in case the funding was seen before the subscription.
    setTimeout(() => {
      follow(request.orderId).catch((error: unknown) => {
        paymentHashes.delete(request.orderId);
        settings.report(request.orderId, `provider: cannot follow the order: ${messageOf(error)}`);
      });
    }, Math.max(0, request.requestExpiryTimestampMs - Date.now()) + FOLLOW_AFTER_DEADLINE_MS).unref();
  });

  const follow = async (orderId: string) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await call(watching, 'subscribeToOrderState', { orderId });
        break;
      } catch (error) {
        if (attempt === FOLLOW_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, FOLLOW_AFTER_DEADLINE_MS));
      }
    }
    const response = await fetch(`${settings.url}/api/orders/${orderId}/state`);
    if (!response.ok) throw new Error(`GET /api/orders/${orderId}/state answered ${response.status}`);
    if ((await response.json()) === 'Funded') onFunded(orderId);
  };

  watching.on('stateChanged', (change: { orderId: string; state: string }) => {
    if (change.state === 'Funded') onFunded(change.orderId);
  });

  const onFunded = (orderId: string) => {
    const paymentHash = paymentHashes.get(orderId);
    if (paymentHash === undefined) return;
    paymentHashes.delete(orderId);
    const preimage = settings.lightning.pay(paymentHash);
    if (preimage === undefined) {
      settings.report(orderId, 'provider: the Lightning payment failed, no claim; the user will refund');
      return;
    }
    transact(async () => {
      // Every slot of the order that names this bot's payment hash is claimed: one claim per funder.
      const fundings = await settings.wallet.extend(publicActions).getContractEvents({
        address: settings.contractAddress,
        abi: SWAP_CONTRACT_ARTIFACT_ABI,
        eventName: 'OrderFunded',
        args: { orderUUID: orderIdToBytes16(orderId) },
        fromBlock: 0n,
      });
      const funders = new Set(
        fundings
          .filter((log) => log.args.paymentHash === `0x${paymentHash}` && log.args.claimer === settings.wallet.account.address)
          .map((log) => log.args.funder as `0x${string}`),
      );
      let last: `0x${string}` | undefined;
      for (const funder of funders) {
        last = await settings.wallet.writeContract({
          address: settings.contractAddress,
          abi: SWAP_CONTRACT_ARTIFACT_ABI,
          functionName: 'claim',
          args: [orderIdToBytes16(orderId), funder, `0x${preimage}`],
        });
      }
      if (last === undefined) throw new Error('no slot of the order names this provider');
      return last;
    }).then(
      (hash) => settings.report(orderId, `provider: paid the invoice, claims on chain with its preimage, tx ${hash}`),
      (error: unknown) => settings.report(orderId, `provider: claim failed: ${messageOf(error)}`),
    );
  };

  return {
    close() {
      provider.close();
      watching.close();
    },
  };
}

function quoteFor(request: QuoteRequest, settings: ProviderBotSettings) {
  const market = findMarket(request.market);
  const invoice = decodeInvoice(request.invoice);
  if (market === undefined || market.name !== DEMO_MARKET || invoice?.amountMillisatoshis === undefined) return undefined;
  const value = (invoice.amountMillisatoshis / 1000n + PREMIUM_SATOSHIS) * WEI_PER_SATOSHI;
  return {
    paymentHash: invoice.paymentHash,
    makerQuote: {
      orderId: request.orderId,
      quoteExpiryTimestampMs: request.requestExpiryTimestampMs + settings.fundWindowMs,
      amount: formatFixedPoint(value, market.onchain.decimals),
      details: {
        unsignedFundingTx: {
          to: settings.contractAddress,
          data: encodeFundCalldata(request.orderId, invoice.paymentHash, settings.wallet.account.address),
          value: value.toString(),
        },
      },
    },
  };
}

export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
