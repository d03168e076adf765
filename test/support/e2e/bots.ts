import { claimPublicKeyOf, type MakerTerms } from '../../../examples/maker-quote.js';
import { startProviderBot, type Ack, type ProviderBot } from '../../../examples/provider-bot.js';
import { BITCOIN_VIEW, PROVIDER_PAYOUT_ADDRESS, SWAP_CONTRACT_ADDRESS } from '../fixtures.js';
import { privateKeyFor } from '../engine/helpers.js';
import { connectClient, recordEvents, type ClientGeneration, type Client, type ProviderKeys } from '../ws/harness.js';
import type { QuoteRequestEvent } from '../../../examples/maker-quote.js';

/** Wei per satoshi in the tests: 30 ETH per BTC. */
export const WEI_PER_SATOSHI = 300_000_000_000n;

export const BOT_PAY_REQ = { minExpirationSeconds: '600', minBaseUnits: '1000', maxBaseUnits: '1000000' };

/**
 * A maker that asks `premium` satoshis over the invoice on both markets; its Ethereum claims pay
 * `ethereumPayoutAddress`, by default the address `addProvider` registers.
 */
export function makerTerms(
  label: string,
  premium: bigint,
  fundWindowMs: number,
  ethereumPayoutAddress: string = PROVIDER_PAYOUT_ADDRESS,
): MakerTerms {
  return {
    claimPrivateKey: privateKeyFor(label),
    fundWindowMs,
    timelockBlocks: 144,
    bitcoinBlockHeight: BITCOIN_VIEW.blockHeight,
    swapContractAddress: SWAP_CONTRACT_ADDRESS,
    ethereumPayoutAddress,
    price: (market, satoshis) => (market === 'BTC_LBTC' ? satoshis + premium : (satoshis + premium) * WEI_PER_SATOSHI),
  };
}

export interface RunningBot {
  readonly bot: ProviderBot;
  readonly socket: Client;
  readonly terms: MakerTerms;
  readonly claimPublicKey: string;
  /** Every quote request the bot received. */
  readonly requests: QuoteRequestEvent[];
  /** How the service judged each of the bot's quotes. */
  readonly judgements: { orderId: string; ack: Ack }[];
}

/** The example provider bot, on a real socket.io client of either generation. */
export async function runBot(
  baseUrl: string,
  keys: ProviderKeys,
  terms: MakerTerms,
  generation: ClientGeneration = 'v4',
): Promise<RunningBot> {
  const socket = await connectClient(baseUrl, '/provider/v1', generation);
  const requests = recordEvents<QuoteRequestEvent>(socket, 'requestQuote');
  const judgements: { orderId: string; ack: Ack }[] = [];
  const bot = await startProviderBot({
    socket,
    ...keys,
    markets: { BTC_LBTC: BOT_PAY_REQ, ETH_LBTC: BOT_PAY_REQ },
    terms,
    onQuoteJudged: (orderId, ack) => judgements.push({ orderId, ack }),
  });
  return { bot, socket, terms, claimPublicKey: claimPublicKeyOf(terms.claimPrivateKey), requests, judgements };
}
