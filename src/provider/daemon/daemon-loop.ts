import type { Logger } from 'pino';
import type { LightningBackend } from '../../chains/lightning/lightning-backend.js';
import { serviceReads } from '../../client/http-reads.js';
import { firstLineOf } from '../../domain/errors.js';
import { reportOutcomes } from '../payments/report-outcomes.js';
import { reportRefundAuthorizations } from '../payments/report-refunds.js';
import type { QuoteResponder } from '../service-link/quote-responder.js';
import type { ProviderState } from '../state/provider-state.js';
import type { ChainSettlement } from './chain-settlement.js';
import type { ScheduledRate } from './compose-markets.js';
import { cancelOrder } from './cancel-order.js';
import { followOrdersRound, settlementsByChain, type OrderFollowing } from './follow-orders.js';
import type { Readiness } from './probe-server.js';
import type { ProviderMetrics } from './provider-metrics.js';
import { watchClaimsRound } from './watch-claims.js';

/** What the loop goes round with: the parts `startProviderDaemon` built. */
export interface DaemonLoopParts {
  state: ProviderState;
  lightning: LightningBackend;
  responder: QuoteResponder;
  metrics: ProviderMetrics;
  logger: Logger;
  now: () => number;
  serviceUrl: string;
  serviceTimeoutMs: number;
  pollIntervalMs: number;
  settlements: ReadonlyMap<string, ChainSettlement>;
  rates: ReadonlyMap<string, ScheduledRate>;
}

export interface DaemonLoop {
  /** The service, the Lightning node and each chain as the last round found them. */
  readiness(): Omit<Readiness, 'suspectPayments'>;
  /** When the last round ended (or the loop started): liveness. */
  lastRoundAtMs(): number;
  /** Stops going round and waits for the round under way. */
  stop(): Promise<void>;
}

/**
 * Goes round every `pollIntervalMs`, one round at a time: rates refreshed when due, the orders quoted
 * followed (`followOrdersRound`), outcomes and signed refunds still owed reported (`reportOutcomes`,
 * `reportRefundAuthorizations`), claims watched (`watchClaimsRound`), readiness read. A round that throws is logged and the next one starts on time.
 */
export function startDaemonLoop(parts: DaemonLoopParts): DaemonLoop {
  const { state, lightning, logger, now } = parts;
  const readiness: Omit<Readiness, 'suspectPayments'> = { service: true, lightning: true, chains: {} };
  const chains = settlementsByChain(parts.settlements);
  const following: OrderFollowing = {
    state,
    service: serviceReads({ serviceUrl: parts.serviceUrl, timeoutMs: parts.serviceTimeoutMs }),
    settlements: parts.settlements,
    send: parts.responder.sendPaymentResult,
    sendRefunds: parts.responder.sendRefundAuthorization,
    metrics: parts.metrics,
    logger,
    now,
    auctionGraceMs: 60_000,
    loggedSteps: new Map(),
  };
  parts.responder.answerCancels((request) => cancelOrder(following, request));
  const blocksLogged = new Map<string, number>();
  const checkReadiness = async () => {
    readiness.service = parts.responder.ready();
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
    await refreshDueRates(parts.rates, now, logger);
    await followOrdersRound(following);
    await reportOutcomes(state, parts.responder.sendPaymentResult);
    await reportRefundAuthorizations(state, parts.responder.sendRefundAuthorization);
    await watchClaimsRound(state, chains, parts.metrics, logger, blocksLogged);
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
        if (!stopped) timer = setTimeout(loop, parts.pollIntervalMs);
      });
  };
  loop();
  return {
    readiness: () => readiness,
    lastRoundAtMs: () => lastRoundAtMs,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

/** Reads again every rate whose time has come; one not read is logged, and quoting stops once it is stale. */
export async function refreshDueRates(
  rates: ReadonlyMap<string, ScheduledRate>,
  now: () => number,
  logger: Logger,
): Promise<void> {
  for (const [market, rate] of rates) {
    if (now() < rate.dueAtMs) continue;
    rate.dueAtMs = now() + rate.refreshMs;
    await rate.source.refresh();
    if (rate.source.problem !== undefined) {
      logger.warn({ market, problem: rate.source.problem }, 'rate not read; quoting stops once the last one is stale');
    }
  }
}
