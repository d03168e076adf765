import { firstLineOf } from '../../domain/errors.js';
import { nodeUrlForLog } from '../../domain/node-url.js';
import { startQuoteResponder } from '../service-link/quote-responder.js';
import { ProviderState } from '../state/provider-state.js';
import { composeMarkets } from './compose-markets.js';
import type { ProviderDaemonConfig, ProviderDaemonDeps } from './daemon-config.js';
import { refreshDueRates, startDaemonLoop } from './daemon-loop.js';
import { faultCountingLightning } from './fault-counting-lightning.js';
import { startProbeServer, type ProbeServer } from './probe-server.js';
import { ProviderMetrics } from './provider-metrics.js';

export interface ProviderDaemon {
  /** The probe server's base URL, when it listens. */
  readonly probesUrl: string | undefined;
  readonly payoutAddress: string | undefined;
  /** Stops the loop, waits for the round under way, closes the connection, the probes and the state file. */
  close(): Promise<void>;
}

/**
 * Starts the provider daemon in this process: opens its state file, builds each market's parts
 * (`composeMarkets`), connects to the service and quotes (`startQuoteResponder`), then goes round
 * (`startDaemonLoop`) and serves its probes. The programmatic entry of `lnswap provider` (and of the demo):
 * the command line only reads settings and calls this.
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
    const markets = await composeMarkets(config, { state, lightning, now });
    await refreshDueRates(markets.rates, now, logger);

    const responder = await startQuoteResponder({
      serviceUrl: config.serviceUrl,
      credentials: config.credentials,
      markets: markets.served,
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
      { service: nodeUrlForLog(config.serviceUrl), markets: markets.served.map(({ market }) => market.name) },
      'connected to the service and quoting',
    );

    const loop = startDaemonLoop({
      state,
      lightning,
      responder,
      metrics,
      logger,
      now,
      serviceUrl: config.serviceUrl,
      serviceTimeoutMs,
      pollIntervalMs: config.pollIntervalMs,
      settlements: markets.settlements,
      rates: markets.rates,
    });
    cleanups.push(() => loop.stop());

    let probes: ProbeServer | undefined;
    if (config.probes !== undefined) {
      const staleAfterMs = Math.max(60_000, 10 * config.pollIntervalMs);
      probes = await startProbeServer(config.probes.host, config.probes.port, {
        metrics,
        readiness: () => ({
          ...loop.readiness(),
          suspectPayments: state.suspectPayments().map((payment) => ({
            orderId: payment.orderId,
            paymentHash: payment.paymentHash,
            reason: payment.suspectReason ?? 'unknown-status',
          })),
        }),
        alive: () => now() - loop.lastRoundAtMs() < staleAfterMs,
      });
      cleanups.push(() => probes?.close());
      logger.info({ url: probes.url }, 'metrics and probes listening');
    }
    return { probesUrl: probes?.url, payoutAddress: markets.payoutAddress, close: cleanUp };
  } catch (error) {
    await cleanUp();
    throw error;
  }
}
