import { join } from 'node:path';
import type { ServiceOptions } from '../service.js';
import { ethereumChainFitsMarket } from '../domain/chain-networks.js';
import { tokenMarketName, type TokenAsset } from '../domain/market-catalog.js';
import { findMarket } from '../domain/markets.js';
import { issueProviderCredential } from '../engine/operations/credentials.js';
import type { Store } from '../store/store.js';
import { startClaimReporter } from './claim-reporter.js';
import { startDemoProvider, type DemoProvider } from './demo-provider.js';
import { DEMO_CHAIN_ID, DEMO_TOKEN, startLocalChain, type DemoWallet, type LocalChain } from './ethereum/local-chain.js';
import { serialQueue } from './serial.js';
import { SimulatedLightningPayee, type PaymentReceived } from './lightning/simulated-lightning-payee.js';
import { offerPayPageInvoices } from './pay-page-invoices.js';
import { StepPrinter } from './step-printer.js';
import { runUserSwap } from './user-bot.js';
import { firstLineOf } from '../domain/errors.js';

const ETHER_MARKET = 'SETH_LSBTC';
const ETHER_TICKER = 'SETH';
/** A new swap this often, once the first round has started. */
const SWAP_INTERVAL_MS = 15_000;
/** Invoices of 20,000 to 29,000 satoshis: any one fits in maker-bo's inventory limit, no two do. */
const INVOICE_BASE_SATOSHIS = 20_000;
const AMOUNT_STEPS = 10;
/** 30 ETH or 30,000 SUSDC per BTC, as the providers' configuration files say it: whole units per bitcoin. */
const ETHER_PER_BITCOIN = '30';
const TOKEN_PER_BITCOIN = '30000';
const PROVIDER_NAMES = ['maker-ada', 'maker-bo'] as const;
/**
 * Each provider's configuration file (docs/provider.md) without its Lightning node, which the demo adds. maker-bo
 * asks the lower fee on SETH_LSBTC, so it wins every auction it quotes, but it holds at most 30,000 satoshis at
 * risk at once: while one of its orders is open it declines, and maker-ada, dearer, wins. maker-ada alone serves
 * the token's market. The refund delay is 8 blocks: a claim needs 3 left, and is at risk within 2.
 */
function providerConfigs(
  contract: string,
  token: TokenAsset,
): readonly [Record<string, unknown>, Record<string, unknown>] {
  const ethereum = {
    swapContract: contract,
    confirmations: 1,
    claimMarginBlocks: 3,
    fundingLookbackBlocks: 1_000,
    claimFees: { stuckAfterBlocks: 2, urgentBlocks: 2, bumpPercent: 125, maximumGwei: '100' },
  };
  const bounds = { minimumSatoshis: '1000', maximumSatoshis: '1000000', minimumInvoiceLifetimeSeconds: 900 };
  const common = { fundWindowSeconds: 300, paymentTimeoutSeconds: 30, ethereum };
  return [
    {
      ...common,
      inventoryLimitSatoshis: '1000000',
      markets: {
        [ETHER_MARKET]: { rate: { fixed: ETHER_PER_BITCOIN }, feeBasisPoints: 100, ...bounds },
        [tokenMarketName(token)]: {
          token: { address: token.address, decimals: token.decimals },
          rate: { fixed: TOKEN_PER_BITCOIN },
          feeBasisPoints: 100,
          ...bounds,
        },
      },
    },
    {
      ...common,
      inventoryLimitSatoshis: '30000',
      markets: { [ETHER_MARKET]: { rate: { fixed: ETHER_PER_BITCOIN }, feeBasisPoints: 50, ...bounds } },
    },
  ];
}

type SwapKind = 'ether' | 'refunded' | 'token';
/**
 * The swaps of one round, started one after another as soon as the previous one is quoted, then one every
 * SWAP_INTERVAL_MS in the same order: the first ether swap goes to maker-bo, the second to maker-ada while
 * maker-bo's inventory is full, the third's payee refuses the payment so it is refunded, and the token swap
 * completes.
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
        // The snapshot's providers hold no credential, so none of them can connect and quote: left active, the
        // requirements would offer their markets (BTC_LBTC) and every quote there would wait for nobody.
        providers: configuration.providers.map((provider) => ({ ...provider, active: false })),
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
        engine: { quoteDeadlineMs: 2_000, minFundWindowMs: 10_000 },
      },
      providers: [providers[0]!, providers[1]!],
    };
  } catch (error) {
    await chain.stop();
    throw error;
  }
}

export interface LiveSwaps {
  /** The payee every provider pays: a caller may make invoices it settles, or refuses. */
  readonly payee: SimulatedLightningPayee;
  /** Stops the users and the providers and waits for nothing more to be sent; the chain stays up for the caller. */
  stop(): Promise<void>;
}

export interface LiveSwapOptions {
  /** The demo's own users swapping in the background; off, the providers wait for someone else's quotes. */
  readonly userSwaps: boolean;
}

/**
 * Runs swaps against the service in the background, printing each order's steps: users on /user/v1, and two
 * providers, each the real provider daemon on its own simulated LND node, with its files in `directory`.
 */
export async function startLiveSwaps(
  url: string,
  prepared: PreparedLiveDemo,
  directory: string,
  write: (text: string) => void,
  { userSwaps }: LiveSwapOptions = { userSwaps: true },
): Promise<LiveSwaps> {
  const { chain, token } = prepared;
  const printer = new StepPrinter(write);
  const orderOfHash = new Map<string, string>();
  const payee = new SimulatedLightningPayee((payment) =>
    printer.step(orderOfHash.get(payment.paymentHash) ?? payment.paymentHash, payeeLine(payment)),
  );
  const report = (orderId: string, step: string) => printer.step(orderId, step);
  const tokenMarket = { name: tokenMarketName(token), ticker: token.ticker };
  const configs = providerConfigs(chain.contractAddress, token);
  printer.note(
    `swaps on ${ETHER_MARKET} and ${tokenMarket.name} against Anvil (pid ${chain.anvil.pid}) at ${chain.anvil.rpcUrl}, ` +
      `swap contract ${chain.contractAddress}, token ${token.ticker} ${chain.tokenAddress}`,
  );
  printer.note(
    "SIMULATED Lightning: each provider's LND node is a stand-in speaking LND's REST API, and every payment goes " +
      "straight to the demo's simulated payee, which settles it with the preimage; no Lightning network is involved",
  );
  printer.note(
    `an ${ETHER_MARKET} swap for each provider, one refunded (its payee refuses the payment: the provider signs the refund away and the user has it back at once), one paid in ` +
      `${token.ticker}; then one every ${SWAP_INTERVAL_MS / 1000} s`,
  );
  const providers: DemoProvider[] = [];
  try {
    for (const [index, provider] of prepared.providers.entries()) {
      const started = await startDemoProvider({
        ...provider,
        serviceUrl: url,
        rpcUrl: chain.anvil.rpcUrl,
        account: chain.providers[index]!,
        config: configs[index]!,
        directory: join(directory, provider.name),
        payee,
        printer,
      });
      providers.push(started);
      printer.note(
        `provider ${provider.name}, paid at ${chain.providers[index]!.payoutAddress}, runs the provider daemon as ` +
          `\`${started.command}\` would, with LNSWAP_PROVIDER_API_KEY, LNSWAP_PROVIDER_SECRET_KEY and ` +
          `LNSWAP_PROVIDER_ETHEREUM_KEY set; metrics ${started.daemon.probesUrl ?? 'off'}/metrics`,
      );
    }
  } catch (error) {
    for (const provider of providers) await provider.close();
    throw error;
  }
  const claims = startClaimReporter({
    publicClient: chain.publicClient,
    contract: chain.contractAddress,
    assets: [
      { ticker: ETHER_TICKER, decimals: 18 },
      { ticker: token.ticker, decimals: token.decimals, tokenAddress: chain.tokenAddress },
    ],
    providers: prepared.providers.map((provider, index) => ({
      name: provider.name,
      payoutAddress: chain.providers[index]!.payoutAddress,
    })),
    pollingIntervalMs: 250,
    report,
  });
  printer.note(`pay an invoice of the simulated payee from a browser at ${url}/pay; each pays once, a fresh one follows:`);
  const invoices = offerPayPageInvoices(url, payee, (invoice) => printer.note(`invoice ${invoice}`));
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
      const satoshis = INVOICE_BASE_SATOSHIS + 1_000 * (count % AMOUNT_STEPS);
      const { invoice, paymentHash } = payee.createInvoice(satoshis, kind !== 'refunded');
      const swap = runUserSwap(
        {
          url,
          market: market.name,
          ticker: market.ticker,
          invoice,
          paymentHash,
          swapContract: chain.contractAddress,
          ...users[kind],
          onQuote: (orderId, amount) => {
            orderOfHash.set(paymentHash, orderId);
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
          if (!stopping.signal.aborted) printer.note(`a swap failed: ${firstLineOf(error)}`);
        },
      );
      void swap.finally(quotedOrFailed);
      running.add(swap);
      void swap.finally(() => running.delete(swap));
    });

  let timer: NodeJS.Timeout | undefined;
  const firstRound = (async () => {
    if (!userSwaps) return;
    for (let index = 0; index < ROUND.length && !stopping.signal.aborted; index += 1) await launch();
    if (!stopping.signal.aborted) timer = setInterval(() => void launch(), SWAP_INTERVAL_MS);
  })();
  return {
    payee,
    async stop() {
      invoices.stop();
      stopping.abort();
      await firstRound;
      clearInterval(timer);
      await Promise.all(running);
      claims.stop();
      for (const provider of providers) await provider.close();
    },
  };
}

function payeeLine(payment: PaymentReceived): string {
  const amount = `${payment.amountMillisatoshis / 1000n} sat`;
  const outcome = payment.settled ? 'settled it with the preimage' : 'refused it';
  return `simulated Lightning payee: received payment ${payment.count} to this invoice, ${amount}; ${outcome}`;
}

