import type { ServiceOptions } from '../../service.js';
import { ethereumChainFitsMarket } from '../../domain/chain-networks.js';
import { findMarket } from '../../domain/markets.js';
import { issueProviderCredential } from '../../engine/credentials.js';
import type { Store } from '../../store/store.js';
import { DemoLightning } from './demo-lightning.js';
import { DEMO_CHAIN_ID, startLocalChain, type LocalChain } from './local-chain.js';
import { DEMO_MARKET, messageOf, startDemoProviderBot, type DemoProviderBot } from './provider-bot.js';
import { serialQueue } from './serial.js';
import { StepPrinter } from './step-printer.js';
import { runUserSwap } from './user-bot.js';

const PROVIDER_NAME = 'demo-maker';
/** Short, so the demo moves quickly; the engine's bounds are lowered to allow it. */
const FUND_WINDOW_MS = 60_000;
/** A new swap this often, after the first two that start at once. */
const SWAP_INTERVAL_MS = 15_000;
/** Swaps number 2, 5, 8, ... have a payee that never answers, so they refund. */
const REFUND_EVERY = 3;
/** Invoice amounts cycle through this many steps of 1,000 satoshis, inside the bot's payment requirements. */
const AMOUNT_STEPS = 50;

/** The local chain and what the service needs to follow it. */
export interface PreparedLiveDemo {
  readonly chain: LocalChain;
  readonly service: Pick<ServiceOptions, 'ethereum' | 'engine'>;
  readonly provider: { apiKey: string; secretKey: string };
}

/**
 * Starts Anvil with the swap contract and points the demo store at it: SETH_LSBTC is offered, and markets the
 * test chain must not carry (ETH_LBTC is a mainnet market) are no longer offered while their snapshot orders
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
    // Known markets only: a configured token's contract does not exist on the demo's fresh chain.
    const markets = configuration.markets.filter((name) => {
      const market = findMarket(name);
      return market !== undefined && ethereumChainFitsMarket(DEMO_CHAIN_ID, market);
    });
    await store.importAtomically(async (session) => {
      await session.writeConfiguration({
        ...configuration,
        markets: [...markets, DEMO_MARKET],
        chains: { ...configuration.chains, ethereum: { blockHeight: tip, swapContractAddress: chain.contractAddress } },
      });
    });
    const { credential, secretKey } = await issueProviderCredential(PROVIDER_NAME, Date.now());
    // The demo's provider claims with its own wallet, so that is where the operator has it paid.
    await store.addProviderCredential({
      ...credential,
      ethereumPayoutAddress: chain.provider.account.address.toLowerCase(),
    });
    return {
      chain,
      service: {
        ethereum: { rpcUrl: chain.anvil.rpcUrl, confirmations: 1, pollIntervalMs: 250, startHeight: tip },
        engine: { quoteDeadlineMs: 500, minFundWindowMs: 10_000 },
      },
      provider: { apiKey: credential.apiKey, secretKey },
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
  const { chain } = prepared;
  const printer = new StepPrinter(DEMO_MARKET, write);
  const lightning = new DemoLightning();
  const bot: DemoProviderBot = await startDemoProviderBot({
    url,
    ...prepared.provider,
    contractAddress: chain.contractAddress,
    fundWindowMs: FUND_WINDOW_MS,
    wallet: chain.provider,
    lightning,
    report: (orderId, step) => printer.step(orderId, step),
  });
  const stopping = new AbortController();
  const users = chain.users.map((wallet) => ({ wallet, transact: serialQueue() }));
  const running = new Set<Promise<void>>();
  let count = 0;

  const launch = (payable: boolean) => {
    count += 1;
    const user = users[payable ? 0 : 1]!;
    const { invoice } = lightning.createInvoice(20_000 + 1_000 * (count % AMOUNT_STEPS), payable);
    const swap = runUserSwap(
      {
        url,
        invoice,
        ...user,
        onQuote: (orderId, amount) => printer.quoted(orderId, amount),
        onState: (change) => printer.stateChanged(change),
        report: (orderId, step) => printer.step(orderId, step),
      },
      stopping.signal,
    ).then(
      () => undefined,
      (error: unknown) => {
        if (!stopping.signal.aborted) printer.note(`a swap failed: ${messageOf(error)}`);
      },
    );
    running.add(swap);
    void swap.finally(() => running.delete(swap));
  };

  printer.note(
    `swaps on ${DEMO_MARKET} against Anvil (pid ${chain.anvil.pid}) at ${chain.anvil.rpcUrl}, ` +
      `swap contract ${chain.contractAddress}: one completes, one is refunded, then one every ${SWAP_INTERVAL_MS / 1000} s`,
  );
  launch(true);
  launch(false);
  const timer = setInterval(() => launch((count + 1) % REFUND_EVERY !== 2), SWAP_INTERVAL_MS);
  return {
    async stop() {
      clearInterval(timer);
      stopping.abort();
      bot.close();
      await Promise.all(running);
    },
  };
}
