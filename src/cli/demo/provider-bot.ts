import type { Socket } from 'socket.io-client';
import { publicActions, type Address, type Hex } from 'viem';
import { DEMO_TOKEN_ARTIFACT_ABI } from '../../chains/ethereum/demo-token-artifact.js';
import { SWAP_CONTRACT_ARTIFACT_ABI } from '../../chains/ethereum/swap-contract-artifact.js';
import { formatFixedPoint } from '../../domain/amounts.js';
import {
  decodeFundingCalldata,
  encodeFundCalldata,
  encodeFundTokenCalldata,
  ZERO_ADDRESS,
} from '../../domain/ethereum.js';
import { decodeInvoice } from '../../domain/invoice.js';
import { orderIdToBytes16 } from '../../domain/order-ids.js';
import { call, connectBotSocket, type Ack } from './bot-socket.js';
import { claimableFunders } from '../../domain/claimable-slots.js';
import type { DemoLightning } from './demo-lightning.js';
import type { DemoProviderAccounts } from './local-chain.js';
import { serialQueue } from './serial.js';

/** The service stores the winning order just after the quote deadline. */
const FOLLOW_AFTER_DEADLINE_MS = 200;
const FOLLOW_ATTEMPTS = 10;
const PAY_REQ = { minExpirationSeconds: '600', minBaseUnits: '1000', maxBaseUnits: '1000000' };

/** What a bot quotes on one market, and at what price. */
export interface BotMarket {
  readonly name: string;
  /** The on-chain asset's ticker, for the printed lines. */
  readonly ticker: string;
  readonly decimals: number;
  /** The ERC-20 contract; absent for ether. */
  readonly tokenAddress?: Address;
  /** Base units of the on-chain asset one satoshi is worth. */
  readonly unitsPerSatoshi: bigint;
  /**
   * Satoshis added to the invoice's amount, taken in turn for each quote request the bot hears on the market:
   * two bots given the same premiums in opposite orders take turns winning the auctions.
   */
  readonly premiumsSatoshis: readonly bigint[];
}

export interface ProviderBotSettings {
  readonly url: string;
  /** The name the operator gave the provider, on every printed line. */
  readonly name: string;
  readonly apiKey: string;
  readonly secretKey: string;
  readonly contractAddress: Address;
  readonly markets: readonly BotMarket[];
  /** How long users get to fund, counted from the quote request's deadline. */
  readonly fundWindowMs: number;
  readonly accounts: DemoProviderAccounts;
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

/** An order the bot quoted, until it knows it lost or it has claimed. */
interface Quoted {
  readonly market: BotMarket;
  readonly paymentHash: string;
}

/**
 * A liquidity provider of the demo, speaking the real /provider/v1 protocol: it quotes the swap contract's fund
 * call naming its payout address as claimer, reads the funding details after the auction to see whether it
 * won, follows the orders it won on /user/v1 like any wallet, and once one is Funded pays the invoice and claims
 * every slot of the order made out to it. The watcher, not the bot, then completes the order.
 */
export async function startDemoProviderBot(settings: ProviderBotSettings): Promise<DemoProviderBot> {
  const provider = await connectBotSocket(settings.url, '/provider/v1');
  let follower: Socket | undefined;
  try {
    follower = await connectBotSocket(settings.url, '/user/v1');
    await call(provider, 'authenticate', { apiKey: settings.apiKey, secretKey: settings.secretKey });
    await call(
      provider,
      'activeConfiguration',
      Object.fromEntries(settings.markets.map((market) => [market.name, { payReq: PAY_REQ }])),
    );
    await call(
      provider,
      'subscribeToQuotes',
      settings.markets.map((market) => market.name),
    );
  } catch (error) {
    provider.close();
    follower?.close();
    throw error;
  }
  const watching = follower;
  const chain = settings.accounts.wallet.extend(publicActions);
  const payout = settings.accounts.payoutAddress;
  const quoted = new Map<string, Quoted>();
  const requestsHeard = new Map<string, number>();
  const transact = serialQueue();
  const who = `provider ${settings.name}`;

  provider.on('requestQuote', (request: QuoteRequest) => {
    const market = settings.markets.find((candidate) => candidate.name === request.market);
    if (market === undefined) return;
    const heard = requestsHeard.get(market.name) ?? 0;
    requestsHeard.set(market.name, heard + 1);
    const premium = market.premiumsSatoshis[heard % market.premiumsSatoshis.length]!;
    const quote = quoteFor(request, market, premium, settings);
    if (quote === undefined) return;
    quoted.set(request.orderId, { market, paymentHash: quote.paymentHash });
    provider.emit('makerQuote', quote.makerQuote, (ack: Ack) => {
      if (ack.success) return;
      quoted.delete(request.orderId);
      settings.report(request.orderId, `${who}: quote refused: ${String(ack.message)}`);
    });
    setTimeout(() => {
      follow(request.orderId).catch((error: unknown) => {
        quoted.delete(request.orderId);
        settings.report(request.orderId, `${who}: cannot follow the order: ${messageOf(error)}`);
      });
    }, Math.max(0, request.requestExpiryTimestampMs - Date.now()) + FOLLOW_AFTER_DEADLINE_MS).unref();
  });

  /** The order is stored once the auction is over; its funding call names the winner's payout address. */
  const follow = async (orderId: string) => {
    if (!quoted.has(orderId)) return;
    const claimer = await claimerOf(settings.url, orderId);
    if (claimer !== payout.toLowerCase()) {
      quoted.delete(orderId);
      return;
    }
    settings.report(orderId, `${who}: won the auction, claims pay ${payout}`);
    await call(watching, 'subscribeToOrderState', { orderId });
    // The funding may have been seen before the subscription.
    const response = await fetch(`${settings.url}/api/orders/${orderId}/state`);
    if (!response.ok) throw new Error(`GET /api/orders/${orderId}/state answered ${response.status}`);
    if ((await response.json()) === 'Funded') onFunded(orderId);
  };

  watching.on('stateChanged', (change: { orderId: string; state: string }) => {
    if (change.state === 'Funded') onFunded(change.orderId);
  });

  const onFunded = (orderId: string) => {
    const order = quoted.get(orderId);
    if (order === undefined) return;
    quoted.delete(orderId);
    const preimage = settings.lightning.pay(order.paymentHash);
    if (preimage === undefined) {
      settings.report(orderId, `${who}: the Lightning payment failed, no claim; the user will refund`);
      return;
    }
    const { market } = order;
    transact(async () => {
      // One claim per funder whose slot is made out to this bot.
      const fundings = await chain.getContractEvents({
        address: settings.contractAddress,
        abi: SWAP_CONTRACT_ARTIFACT_ABI,
        eventName: 'OrderFunded',
        args: { orderUUID: orderIdToBytes16(orderId) },
        fromBlock: 0n,
      });
      const funders = claimableFunders(
        fundings.map((log) => log.args),
        { paymentHash: order.paymentHash, claimer: payout, token: market.tokenAddress ?? ZERO_ADDRESS },
      );
      if (funders.length === 0) throw new Error('no slot of the order names this provider');
      let last: Hex | undefined;
      for (const funder of funders) {
        last = await settings.accounts.wallet.writeContract({
          address: settings.contractAddress,
          abi: SWAP_CONTRACT_ARTIFACT_ABI,
          functionName: 'claim',
          args: [orderIdToBytes16(orderId), funder, `0x${preimage}`],
        });
        const receipt = await chain.waitForTransactionReceipt({ hash: last });
        if (receipt.status !== 'success') throw new Error(`the claim ${last} reverted`);
      }
      // Read once every claim is mined and before the next order's: the rise is this order's slots alone.
      return { hash: last!, balance: await payoutBalance(market) };
    }).then(
      ({ hash, balance }) =>
        settings.report(
          orderId,
          `${who}: paid the invoice, claimed with its preimage, tx ${hash}; ` +
            `payout ${payout} holds ${formatFixedPoint(balance, market.decimals)} ${market.ticker}`,
        ),
      (error: unknown) => settings.report(orderId, `${who}: claim failed: ${messageOf(error)}`),
    );
  };

  const payoutBalance = (market: BotMarket): Promise<bigint> =>
    market.tokenAddress === undefined
      ? chain.getBalance({ address: payout })
      : chain.readContract({
          address: market.tokenAddress,
          abi: DEMO_TOKEN_ARTIFACT_ABI,
          functionName: 'balanceOf',
          args: [payout],
        });

  return {
    close() {
      provider.close();
      watching.close();
    },
  };
}

/** The claimer the order's funding call names, lowercase; retried while the order is not stored yet. */
async function claimerOf(url: string, orderId: string): Promise<string | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(`${url}/api/orders/${orderId}/fundDetails`);
    if (response.ok) {
      const funding = (await response.json()) as { details: { unsignedFundingTx?: { data?: string } } };
      return decodeFundingCalldata(funding.details.unsignedFundingTx?.data ?? '')?.claimer;
    }
    if (response.status !== 404 || attempt === FOLLOW_ATTEMPTS) {
      throw new Error(`GET /api/orders/${orderId}/fundDetails answered ${response.status}`);
    }
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_AFTER_DEADLINE_MS));
  }
}

function quoteFor(request: QuoteRequest, market: BotMarket, premiumSatoshis: bigint, settings: ProviderBotSettings) {
  const invoice = decodeInvoice(request.invoice);
  if (invoice?.amountMillisatoshis === undefined) return undefined;
  const amount = (invoice.amountMillisatoshis / 1000n + premiumSatoshis) * market.unitsPerSatoshi;
  const claimer = settings.accounts.payoutAddress;
  const unsignedFundingTx =
    market.tokenAddress === undefined
      ? {
          to: settings.contractAddress,
          data: encodeFundCalldata(request.orderId, invoice.paymentHash, claimer),
          value: amount.toString(),
        }
      : {
          to: settings.contractAddress,
          data: encodeFundTokenCalldata(request.orderId, invoice.paymentHash, claimer, market.tokenAddress, amount),
          value: '0',
        };
  return {
    paymentHash: invoice.paymentHash,
    makerQuote: {
      orderId: request.orderId,
      quoteExpiryTimestampMs: request.requestExpiryTimestampMs + settings.fundWindowMs,
      amount: formatFixedPoint(amount, market.decimals),
      details: { unsignedFundingTx },
    },
  };
}

export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}
