import { Counter, Gauge, Registry } from 'prom-client';
import type { LightningNodeFault } from '../../chains/lightning/lightning-backend.js';
import type { ChainKind } from '../../domain/markets.js';
import type { QuotedTerm } from '../rules/quoted-terms.js';
import type { ProviderState } from '../state/provider-state.js';
import type { ClaimProgress } from './chain-settlement.js';

export const PROVIDER_METRICS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

/**
 * What the daemon counts for Prometheus (docs/provider.md). Quotes and fee bumps are counted as they
 * happen; payments, pending claims and the inventory at risk are read from the state file at scrape
 * time, so they are right after a restart too; blocks to the deadline are the last watch round's.
 */
export class ProviderMetrics {
  readonly registry = new Registry();
  private readonly quotes: Counter<'market' | 'result'>;
  private readonly won: Counter<'market'>;
  private readonly bumps: Counter<'chain'>;
  private readonly mismatches: Counter<'field'>;
  private readonly blocksToDeadline: Gauge<'chain' | 'order_id'>;
  private readonly atRisk: Gauge<'chain'>;
  private readonly lightningFaults: Counter<'fault'>;
  private readonly refunds: Counter;

  constructor(state: ProviderState) {
    const registers = [this.registry];
    this.quotes = new Counter({
      name: 'lnswap_provider_quotes_total',
      help: "Quotes sent to the service, by market and the service's judgement (accepted, or its refusal token)",
      labelNames: ['market', 'result'],
      registers,
    });
    this.won = new Counter({
      name: 'lnswap_provider_quotes_won_total',
      help: 'Auctions won: orders whose funding pays this provider',
      labelNames: ['market'],
      registers,
    });
    this.bumps = new Counter({
      name: 'lnswap_provider_claim_fee_bumps_total',
      help: 'Claims sent again at a higher fee',
      labelNames: ['chain'],
      registers,
    });
    this.mismatches = new Counter({
      name: 'lnswap_provider_service_mismatches_total',
      help: "Terms of the provider's quote the service answered otherwise (the order then never paid), by term",
      labelNames: ['field'],
      registers,
    });
    this.blocksToDeadline = new Gauge({
      name: 'lnswap_provider_claim_blocks_to_deadline',
      help: 'Blocks left before the refund height, per claim not yet confirmed (last watch round)',
      labelNames: ['chain', 'order_id'],
      registers,
    });
    this.atRisk = new Gauge({
      name: 'lnswap_provider_claims_at_risk',
      help: 'Claims not confirmed within the urgent window before their refund height (last watch round)',
      labelNames: ['chain'],
      registers,
    });
    this.lightningFaults = new Counter({
      name: 'lnswap_provider_lightning_errors_total',
      help: 'Calls to the Lightning node that failed, by cause (certificate-mismatch, unauthorized, timeout, ...)',
      labelNames: ['fault'],
      registers,
    });
    this.refunds = new Counter({
      name: 'lnswap_provider_refunds_signed_total',
      help: 'Cooperative refunds signed away: slots of orders the provider will never pay, returned to their funders',
      registers,
    });
    new Gauge({
      name: 'lnswap_provider_payments',
      help: 'Lightning payments in the state file, by outcome (paying: in flight; suspect: see docs/provider.md)',
      labelNames: ['outcome'],
      registers,
      collect() {
        for (const [outcome, count] of Object.entries(state.paymentCounts())) this.set({ outcome }, count);
      },
    });
    new Gauge({
      name: 'lnswap_provider_payments_suspect',
      help: 'Payments the Lightning node reported in a state the daemon cannot trust: the operator resolves each',
      registers,
      collect() {
        this.set(state.paymentCounts().suspect);
      },
    });
    new Gauge({
      name: 'lnswap_provider_claims_pending',
      help: 'Claims opened by a payment and not yet confirmed, by chain',
      labelNames: ['chain'],
      registers,
      collect() {
        this.reset();
        for (const claim of state.openClaims()) this.inc({ chain: claim.chain });
      },
    });
    new Gauge({
      name: 'lnswap_provider_inventory_at_risk_millisatoshis',
      help: 'Invoice amounts quoted, paid or to pay and not yet claimed: what the inventory limit bounds',
      registers,
      collect() {
        this.set(Number(state.atRiskMillisatoshis()));
      },
    });
  }

  quoteJudged(market: string, result: string): void {
    this.quotes.inc({ market, result });
  }

  lightningFailed(fault: LightningNodeFault): void {
    this.lightningFaults.inc({ fault });
  }

  quoteWon(market: string): void {
    this.won.inc({ market });
  }

  refundsSigned(slots: number): void {
    this.refunds.inc(slots);
  }

  serviceMismatch(field: QuotedTerm): void {
    this.mismatches.inc({ field });
  }

  /** The claims one watch round looked at, replacing the previous round's readings. */
  claimsWatched(readings: readonly { chain: ChainKind; orderId: string; progress: ClaimProgress }[]): void {
    this.blocksToDeadline.reset();
    this.atRisk.reset();
    for (const { chain, orderId, progress } of readings) {
      if (progress.kind === 'bumped') this.bumps.inc({ chain });
      if (progress.kind === 'confirmed' || progress.kind === 'lost') continue;
      this.blocksToDeadline.set({ chain, order_id: orderId }, progress.blocksLeft);
      if (progress.atRisk) this.atRisk.inc({ chain });
    }
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}
