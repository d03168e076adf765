import type { Logger } from 'pino';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { openBitcoinBackend, type BitcoinNodeAddress } from '../../chains/bitcoin/open-bitcoin-backend.js';
import { connectWallet } from '../../chains/ethereum/wallet-connection.js';
import type { LightningBackend } from '../../chains/lightning/lightning-backend.js';
import { nodeUrlForLog } from '../../domain/node-url.js';
import type { ProviderFileConfig } from '../config/provider-config.js';
import { ClaimKeys } from '../keys/claim-keys.js';
import { reportOutcomes } from '../payments/report-outcomes.js';
import { fixedRate, urlRate, type RateSource } from '../pricing/rate-source.js';
import { routingFeeLimitMillisatoshis, type MarketPricing } from '../rules/pricing.js';
import { ethereumQuoteDetails } from '../ethereum/ethereum-quote-details.js';
import type { ProviderCredentials } from '../service-link/provider-credentials.js';
import { startQuoteResponder, type QuoteResponder, type ServedMarket } from '../service-link/quote-responder.js';
import { ProviderState } from '../state/provider-state.js';
import { bitcoinChainSettlement } from '../bitcoin/bitcoin-chain-settlement.js';
import type { ChainSettlement } from './chain-settlement.js';
import { ethereumChainSettlement } from '../ethereum/ethereum-chain-settlement.js';
import { followOrdersRound, settlementsByChain, type OrderFollowing } from './follow-orders.js';
import { startProbeServer, type ProbeServer, type Readiness } from './probe-server.js';
import { ProviderMetrics } from './provider-metrics.js';
import { faultCountingLightning } from './fault-counting-lightning.js';
import { watchClaimsRound } from './watch-claims.js';
import { firstLineOf } from '../../domain/errors.js';

const RATE_TIMEOUT_MS = 5_000;
const RATE_MAX_BYTES = 64 * 1024;

/** Everything `lnswap provider` reads from its flags, variables and configuration file. */
export interface ProviderDaemonConfig {
  /** The lnswap service's base URL (HTTP API and socket.io). */
  serviceUrl: string;
  credentials: ProviderCredentials;
  /** The provider's SQLite state file. */
  stateFile: string;
  /** How often the loop goes round. */
  pollIntervalMs: number;
  /** Where `/metrics`, `/healthz` and `/readyz` listen; none when absent. */
  probes?: { host: string; port: number };
  file: ProviderFileConfig;
  /** The Ethereum node and the payout account's key: needed when an Ethereum market is served. */
  ethereum?: { rpcUrl: string; payoutKey: Hex };
  /** The Bitcoin node and the seed the claim keys derive from: needed when a Bitcoin market is served. */
  bitcoin?: { node: BitcoinNodeAddress; seed: Uint8Array };
  /** Bounds each call to the service (acks, reads). Default 10 s. */
  serviceTimeoutMs?: number;
}

export interface ProviderDaemonDeps {
  logger: Logger;
  /** The node that pays: LND or Core Lightning, or the demo's simulated payee. */
  lightning: LightningBackend;
  now?: () => number;
}

export interface ProviderDaemon {
  /** The probe server's base URL, when it listens. */
  readonly probesUrl: string | undefined;
  readonly payoutAddress: string | undefined;
  /** Stops the loop, waits for the round under way, closes the connection, the probes and the state file. */
  close(): Promise<void>;
}

/**
 * Starts the provider daemon in this process: opens its state file, connects to the service and
 * quotes, then goes round every `pollIntervalMs`: rates refreshed when due, the orders it won
 * followed and settled, outcomes reported, claims watched. The programmatic entry of `lnswap
 * provider` (and of the demo): the command line only reads settings and calls this.
 */
export async function startProviderDaemon(
  config: ProviderDaemonConfig,
  deps: ProviderDaemonDeps,
): Promise<ProviderDaemon> {
  const { logger } = deps;
  const now = deps.now ?? Date.now;
  const serviceTimeoutMs = config.serviceTimeoutMs ?? 10_000;
  const state = ProviderState.open(config.stateFile);
  const metrics = new ProviderMetrics(state);
  const lightning = faultCountingLightning(deps.lightning, (fault) => metrics.lightningFailed(fault));
  const cleanups: (() => Promise<void> | void)[] = [() => state.close()];
  let closed = false;
  const cleanUp = async () => {
    if (closed) return;
    closed = true;
    for (const cleanup of [...cleanups].reverse()) await cleanup();
  };
  try {
    const nodeInfo = await lightning.getInfo();
    logger.info({ lightning: lightning.kind, network: nodeInfo.network }, 'Lightning node answered');
    const settlements = new Map<string, ChainSettlement>();
    const rates = new Map<string, { source: RateSource; refreshMs: number; dueAtMs: number }>();
    const served: ServedMarket[] = [];
    const ethereum = config.file.ethereum;
    const wallet =
      ethereum === undefined || config.ethereum === undefined
        ? undefined
        : await connectWallet(config.ethereum.rpcUrl, privateKeyToAccount(config.ethereum.payoutKey));
    const ethereumMarkets = new Map<
      string,
      { market: ServedMarket['market']; feeLimitMillisatoshis: (amount: bigint) => bigint }
    >();
    for (const configured of config.file.markets) {
      const { market } = configured;
      const source =
        configured.rate.kind === 'fixed'
          ? fixedRate(configured.rate.rate)
          : urlRate({
              ...configured.rate,
              decimals: market.onchain.decimals,
              timeoutMs: RATE_TIMEOUT_MS,
              maxBytes: RATE_MAX_BYTES,
              now,
            });
      rates.set(market.name, {
        source,
        refreshMs: configured.rate.kind === 'url' ? configured.rate.refreshMs : Number.POSITIVE_INFINITY,
        dueAtMs: 0,
      });
      const feeLimitMillisatoshis = (amount: bigint) =>
        routingFeeLimitMillisatoshis(configured.pricing.routingFeeLimitBasisPoints, amount);
      const pricing = (): MarketPricing | undefined => {
        const rate = source.current();
        return rate === undefined ? undefined : { ...configured.pricing, onchainPerBitcoin: rate };
      };
      if (market.onchain.chain === 'bitcoin') {
        const rules = config.file.bitcoin;
        if (rules === undefined || config.bitcoin === undefined) {
          throw new Error(`${market.name} is a Bitcoin market: give the Bitcoin node and the claim key seed`);
        }
        const chain = openBitcoinBackend(config.bitcoin.node, market.network);
        const bitcoin = bitcoinChainSettlement({
          settlement: {
            state,
            lightning,
            chain,
            broadcast: (signedTxHex) => chain.broadcast(signedTxHex),
            network: market.network,
            keys: ClaimKeys.fromSeed(config.bitcoin.seed),
            payoutAddress: rules.payoutAddress,
            requiredConfirmations: rules.confirmations,
            claimMarginBlocks: rules.claimMarginBlocks,
            claimFeePolicy: rules.feePolicy,
            paymentTimeoutSeconds: config.file.paymentTimeoutSeconds,
            now,
          },
          market,
          feeLimitMillisatoshis,
          timelockBlocks: rules.timelockBlocks,
        });
        settlements.set(market.name, bitcoin);
        served.push({ market, limits: configured.pricing, pricing, details: (order) => bitcoin.quoteDetails(order) });
        continue;
      }
      if (ethereum === undefined || wallet === undefined) {
        throw new Error(`${market.name} is an Ethereum market: give the Ethereum node and the payout key`);
      }
      ethereumMarkets.set(market.name, { market, feeLimitMillisatoshis });
      served.push({
        market,
        limits: configured.pricing,
        pricing,
        details: (order) =>
          ethereumQuoteDetails(
            {
              swapContractAddress: ethereum.swapContract,
              payoutAddress: wallet.walletClient.account.address,
              ...(market.onchain.tokenAddress === undefined ? {} : { tokenAddress: market.onchain.tokenAddress }),
            },
            order,
          ),
      });
    }
    if (ethereum !== undefined && wallet !== undefined && ethereumMarkets.size > 0) {
      const chain = ethereumChainSettlement({
        settlement: {
          state,
          lightning,
          publicClient: wallet.publicClient,
          wallet: wallet.walletClient,
          contract: ethereum.swapContract,
          requiredConfirmations: ethereum.confirmations,
          claimMarginBlocks: ethereum.claimMarginBlocks,
          paymentTimeoutSeconds: config.file.paymentTimeoutSeconds,
          now,
        },
        markets: ethereumMarkets,
        feePolicy: ethereum.feePolicy,
        fundingLookbackBlocks: ethereum.fundingLookbackBlocks,
      });
      for (const name of ethereumMarkets.keys()) settlements.set(name, chain);
    }

    const refreshRates = async () => {
      for (const [market, rate] of rates) {
        if (now() < rate.dueAtMs) continue;
        rate.dueAtMs = now() + rate.refreshMs;
        await rate.source.refresh();
        if (rate.source.problem !== undefined) {
          logger.warn(
            { market, problem: rate.source.problem },
            'rate not read; quoting stops once the last one is stale',
          );
        }
      }
    };
    await refreshRates();

    const responder: QuoteResponder = await startQuoteResponder({
      serviceUrl: config.serviceUrl,
      credentials: config.credentials,
      markets: served,
      fundWindowMs: config.file.fundWindowMs,
      state,
      capacity: async () => ({
        nodeNetwork: nodeInfo.network,
        spendableMillisatoshis: await lightning.spendableMillisatoshis(),
        atRiskMillisatoshis: state.atRiskMillisatoshis(),
        inventoryLimitMillisatoshis: config.file.inventoryLimitMillisatoshis,
      }),
      now,
      ackTimeoutMs: serviceTimeoutMs,
      onJudged: (orderId, market, judgement) => {
        metrics.quoteJudged(market, judgement);
        logger.info({ orderId, market, judgement }, 'quote sent');
      },
      onError: (orderId, error) => logger.warn({ orderId, error: firstLineOf(error) }, 'service link'),
    });
    cleanups.push(() => responder.close());
    logger.info(
      { service: nodeUrlForLog(config.serviceUrl), markets: served.map(({ market }) => market.name) },
      'connected to the service and quoting',
    );

    const readiness: Omit<Readiness, 'suspectPayments'> = { service: true, lightning: true, chains: {} };
    const chains = settlementsByChain(settlements);
    const following: OrderFollowing = {
      state,
      serviceUrl: config.serviceUrl,
      settlements,
      send: responder.sendPaymentResult,
      metrics,
      logger,
      now,
      auctionGraceMs: 60_000,
      readTimeoutMs: serviceTimeoutMs,
      loggedSteps: new Map(),
    };
    const blocksLogged = new Map<string, number>();
    const checkReadiness = async () => {
      readiness.service = responder.ready();
      const lightningError = await lightning.getInfo().then(
        (info) => (info.synced ? undefined : 'not synced to the chain'),
        (error: unknown) => firstLineOf(error),
      );
      if (lightningError !== undefined && lightningError !== readiness.lightningError) {
        logger.warn({ lightning: lightning.kind, error: lightningError }, 'Lightning node not ready');
      }
      readiness.lightning = lightningError === undefined;
      if (lightningError === undefined) delete readiness.lightningError;
      else readiness.lightningError = lightningError;
      for (const [kind, chain] of chains) {
        readiness.chains[kind] = await chain.height().then(
          () => true,
          () => false,
        );
      }
    };
    const round = async () => {
      await refreshRates();
      await followOrdersRound(following);
      await reportOutcomes(state, responder.sendPaymentResult);
      await watchClaimsRound(state, chains, metrics, logger, blocksLogged);
      await checkReadiness();
    };

    let lastRoundAtMs = now();
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> = Promise.resolve();
    const loop = () => {
      running = round()
        .catch((error: unknown) => logger.error({ error: firstLineOf(error) }, 'round failed'))
        .then(() => {
          lastRoundAtMs = now();
          if (!stopped) timer = setTimeout(loop, config.pollIntervalMs);
        });
    };
    loop();
    cleanups.push(async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    });

    let probes: ProbeServer | undefined;
    if (config.probes !== undefined) {
      const staleAfterMs = Math.max(60_000, 10 * config.pollIntervalMs);
      probes = await startProbeServer(config.probes.host, config.probes.port, {
        metrics,
        readiness: () => ({
          ...readiness,
          suspectPayments: state.suspectPayments().map((payment) => ({
            orderId: payment.orderId,
            paymentHash: payment.paymentHash,
            reason: payment.suspectReason ?? 'unknown-status',
          })),
        }),
        alive: () => now() - lastRoundAtMs < staleAfterMs,
      });
      cleanups.push(() => probes?.close());
      logger.info({ url: probes.url }, 'metrics and probes listening');
    }
    return {
      probesUrl: probes?.url,
      payoutAddress: wallet?.walletClient.account.address,
      close: cleanUp,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
