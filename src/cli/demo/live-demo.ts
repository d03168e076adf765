import type { ServiceOptions } from '../../service.js';
import { ethereumChainFitsMarket } from '../../domain/chain-networks.js';
import { tokenMarketName, type TokenAsset } from '../../domain/market-catalog.js';
import { findMarket } from '../../domain/markets.js';
import { issueProviderCredential } from '../../engine/credentials.js';
import type { Store } from '../../store/store.js';
import { DemoLightning } from './demo-lightning.js';
import { DEMO_CHAIN_ID, DEMO_TOKEN, startLocalChain, type DemoWallet, type LocalChain } from './local-chain.js';
import { messageOf, startDemoProviderBot, type BotMarket, type DemoProviderBot } from './provider-bot.js';
import { serialQueue } from './serial.js';
import { StepPrinter } from './step-printer.js';
import { runUserSwap } from './user-bot.js';

const ETHER_MARKET = 'SETH_LSBTC';
const ETHER_TICKER = 'SETH';
/** Short, so the demo moves quickly; the engine's bounds are lowered to allow it. */
const FUND_WINDOW_MS = 60_000;
/** A new swap this often, once the first round has started. */
const SWAP_INTERVAL_MS = 15_000;
/** Invoice amounts cycle through this many steps of 1,000 satoshis, inside the bots' payment requirements. */
const AMOUNT_STEPS = 50;
/** 30 ETH per BTC: one satoshi is worth 3e11 wei. */
const WEI_PER_SATOSHI = 300_000_000_000n;
/** 30,000 SUSDC per BTC: one satoshi is worth 0.0003 SUSDC, 300 base units. */
const TOKEN_UNITS_PER_SATOSHI = 300n;
/**
 * The two providers' premiums over the invoice on SETH_LSBTC, in satoshis, taken in turn per quote request: the
 * first undercuts the second on the 1st, 3rd, 5th... request and the second the first on the others, so each
 * wins every other auction. The first provider alone quotes the token market.
 */
const CHEAP_PREMIUM_SATOSHIS = 100n;
const DEAR_PREMIUM_SATOSHIS = 200n;
const PROVIDER_NAMES = ['maker-ada', 'maker-bo'] as const;

type SwapKind = 'ether' | 'refunded' | 'token';
/**
 * The swaps of one round, started one after another as soon as the previous one is quoted, then one every
 * SWAP_INTERVAL_MS in the same order: the first two ether swaps go one to each provider, the third's payee never
 * answers so it is refunded, and the token swap completes.
 */
const ROUND: readonly SwapKind[] = ['ether', 'ether', 'refunded', 'token'];

interface PreparedProvider {
  readonly name: string;
  readonly apiKey: string;
  readonly secretKey: string;
}

/** The local chain and what the service needs to follow it. */
export interface PreparedLiveDemo {
  readonly chain: LocalChain;
  readonly token: TokenAsset;
  readonly service: Pick<ServiceOptions, 'ethereum' | 'engine'>;
  readonly providers: readonly [PreparedProvider, PreparedProvider];
}

/**
 * Starts Anvil with the swap contract and the demo token, and points the demo store at them: SETH_LSBTC and the
 * token's market are offered, two providers are issued credentials with their payout addresses, and markets
 * the test chain must not carry (ETH_LBTC is a mainnet market) are no longer offered while their snapshot orders
 * stay readable. Throws LocalChainUnavailable when there is no chain to run on.
 */
export async function prepareLiveDemo(
  store: Store,
  env: Readonly<Record<string, string | undefined>>,
): Promise<PreparedLiveDemo> {
  const chain = await startLocalChain(env);
  try {
    const tip = await chain.tip();
    const configuration = await store.getConfiguration();
    const token: TokenAsset = {
      ticker: DEMO_TOKEN.ticker,
      network: 'simnet',
      address: chain.tokenAddress.toLowerCase(),
      decimals: DEMO_TOKEN.decimals,
    };
    // Known markets only: a configured token's contract does not exist on the demo's fresh chain.
    const markets = configuration.markets.filter((name) => {
      const market = findMarket(name);
      return market !== undefined && ethereumChainFitsMarket(DEMO_CHAIN_ID, market);
    });
    await store.importAtomically(async (session) => {
      await session.writeConfiguration({
        ...configuration,
        markets: [...markets, ETHER_MARKET, tokenMarketName(token)],
        tokens: [token],
        chains: { ...configuration.chains, ethereum: { blockHeight: tip, swapContractAddress: chain.contractAddress } },
      });
    });
    const providers = await Promise.all(
      PROVIDER_NAMES.map(async (name, index) => {
        const { credential, secretKey } = await issueProviderCredential(name, Date.now());
        // As `lnswap providers add NAME --ethereum-payout` does: quotes naming any other claimer are refused.
        await store.addProviderCredential({
          ...credential,
          ethereumPayoutAddress: chain.providers[index]!.payoutAddress.toLowerCase(),
        });
        return { name, apiKey: credential.apiKey, secretKey };
      }),
    );
    return {
      chain,
      token,
      service: {
        ethereum: { rpcUrl: chain.anvil.rpcUrl, confirmations: 1, pollIntervalMs: 250, startHeight: tip },
        engine: { quoteDeadlineMs: 500, minFundWindowMs: 10_000 },
      },
      providers: [providers[0]!, providers[1]!],
    };
  } catch (error) {
    await chain.stop();
    throw error;
  }
}

export interface LiveSwaps {
  /** Stops the bots and waits for nothing more to be sent; the chain stays up for the caller to stop. */
  stop(): Promise<void>;
}

/** Runs swaps against the service in the background, printing each order's steps. */
export async function startLiveSwaps(url: string, prepared: PreparedLiveDemo, write: (text: string) => void): Promise<LiveSwaps> {
  const { chain, token } = prepared;
  const printer = new StepPrinter(write);
  const lightning = new DemoLightning();
  const report = (orderId: string, step: string) => printer.step(orderId, step);
  const etherMarket = (premiumsSatoshis: readonly bigint[]): BotMarket => ({
    name: ETHER_MARKET,
    ticker: ETHER_TICKER,
    decimals: 18,
    unitsPerSatoshi: WEI_PER_SATOSHI,
    premiumsSatoshis,
  });
  const tokenMarket: BotMarket = {
    name: tokenMarketName(token),
    ticker: token.ticker,
    decimals: token.decimals,
    tokenAddress: chain.tokenAddress,
    unitsPerSatoshi: TOKEN_UNITS_PER_SATOSHI,
    premiumsSatoshis: [CHEAP_PREMIUM_SATOSHIS],
  };
  const marketsOf = [
    [etherMarket([CHEAP_PREMIUM_SATOSHIS, DEAR_PREMIUM_SATOSHIS]), tokenMarket],
    [etherMarket([DEAR_PREMIUM_SATOSHIS, CHEAP_PREMIUM_SATOSHIS])],
  ] as const;
  const bots: DemoProviderBot[] = [];
  try {
    for (const [index, provider] of prepared.providers.entries()) {
      bots.push(
        await startDemoProviderBot({
          url,
          ...provider,
          contractAddress: chain.contractAddress,
          markets: marketsOf[index]!,
          fundWindowMs: FUND_WINDOW_MS,
          accounts: chain.providers[index]!,
          lightning,
          report,
        }),
      );
    }
  } catch (error) {
    for (const bot of bots) bot.close();
    throw error;
  }
  const stopping = new AbortController();
  const users: Record<SwapKind, { wallet: DemoWallet; transact: ReturnType<typeof serialQueue> }> = {
    ether: { wallet: chain.users.ether, transact: serialQueue() },
    refunded: { wallet: chain.users.refunding, transact: serialQueue() },
    token: { wallet: chain.users.token, transact: serialQueue() },
  };
  const running = new Set<Promise<void>>();
  let count = 0;

  /** Starts the next swap of the round; resolves once it is quoted (or has failed), so auctions never overlap. */
  const launch = () =>
    new Promise<void>((quotedOrFailed) => {
      const kind = ROUND[count % ROUND.length]!;
      count += 1;
      const market = kind === 'token' ? tokenMarket : { name: ETHER_MARKET, ticker: ETHER_TICKER };
      const { invoice } = lightning.createInvoice(20_000 + 1_000 * (count % AMOUNT_STEPS), kind !== 'refunded');
      const swap = runUserSwap(
        {
          url,
          market: market.name,
          ticker: market.ticker,
          invoice,
          ...users[kind],
          onQuote: (orderId, amount) => {
            printer.quoted(orderId, market.name, amount, market.ticker);
            quotedOrFailed();
          },
          onState: (change) => printer.stateChanged(change),
          report,
        },
        stopping.signal,
      ).then(
        () => undefined,
        (error: unknown) => {
          if (!stopping.signal.aborted) printer.note(`a swap failed: ${messageOf(error)}`);
        },
      );
      void swap.finally(quotedOrFailed);
      running.add(swap);
      void swap.finally(() => running.delete(swap));
    });

  printer.note(
    `swaps on ${ETHER_MARKET} and ${tokenMarket.name} against Anvil (pid ${chain.anvil.pid}) at ${chain.anvil.rpcUrl}, ` +
      `swap contract ${chain.contractAddress}, token ${token.ticker} ${chain.tokenAddress}`,
  );
  for (const [index, provider] of prepared.providers.entries()) {
    printer.note(`provider ${provider.name} is paid at ${chain.providers[index]!.payoutAddress}, which holds nothing yet`);
  }
  printer.note(
    `two ${ETHER_MARKET} swaps complete, one for each provider, one is refunded, one pays in ${token.ticker}; ` +
      `then one every ${SWAP_INTERVAL_MS / 1000} s`,
  );
  let timer: NodeJS.Timeout | undefined;
  const firstRound = (async () => {
    for (let index = 0; index < ROUND.length && !stopping.signal.aborted; index += 1) await launch();
    if (!stopping.signal.aborted) timer = setInterval(() => void launch(), SWAP_INTERVAL_MS);
  })();
  return {
    async stop() {
      stopping.abort();
      await firstRound;
      clearInterval(timer);
      for (const bot of bots) bot.close();
      await Promise.all(running);
    },
  };
}
