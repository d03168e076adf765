import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Market } from '../../../src/domain/markets.js';
import {
  ethereumQuoteDetails,
  type EthereumQuoteTerms,
} from '../../../src/provider/ethereum/ethereum-quote-details.js';
import type { MarketPricing } from '../../../src/provider/rules/pricing.js';
import type { ProviderCredentials } from '../../../src/provider/service-link/provider-credentials.js';
import {
  startQuoteResponder,
  type QuoteResponder,
  type QuoteResponderOptions,
  type ServedMarket,
} from '../../../src/provider/service-link/quote-responder.js';
import { ProviderState } from '../../../src/provider/state/provider-state.js';
import { addProvider, type TestService } from '../ws/harness.js';

/** A quoting provider's pricing at `onchainPerBitcoin`: 0.5 %, no base fee, invoices of 10,000 to 1,000,000 sat. */
export function quotingPricing(onchainPerBitcoin: bigint): MarketPricing {
  return {
    onchainPerBitcoin,
    feeBasisPoints: 50n,
    baseFee: 0n,
    minimumMillisatoshis: 10_000_000n,
    maximumMillisatoshis: 1_000_000_000n,
    routingFeeLimitBasisPoints: 100n,
    minimumInvoiceLifetimeMs: 600_000,
  };
}

/**
 * An Ethereum market quoted at `onchainPerBitcoin` with `ethereumQuoteDetails`: `terms` is read at each quote, so a
 * test may change what the next quote names.
 */
export function ethereumServedMarket(
  market: Market,
  onchainPerBitcoin: bigint,
  terms: () => EthereumQuoteTerms,
): ServedMarket {
  const pricing = quotingPricing(onchainPerBitcoin);
  return {
    market,
    limits: pricing,
    pricing: () => pricing,
    details: (order) => ethereumQuoteDetails(terms(), order),
  };
}

/**
 * What `startQuoteResponder` is given to quote `markets` at the service: a Lightning side with room for every quote,
 * a ten-minute fund window and the state file `state`.
 */
export function quotingOptions(
  harness: TestService,
  credentials: ProviderCredentials,
  state: ProviderState,
  markets: readonly ServedMarket[],
): QuoteResponderOptions {
  return {
    serviceUrl: harness.service.url,
    credentials,
    markets,
    fundWindowMs: 10 * 60_000,
    state,
    capacity: async () => ({
      nodeNetwork: 'simnet',
      spendableMillisatoshis: 10_000_000_000n,
      atRiskMillisatoshis: 0n,
      inventoryLimitMillisatoshis: 10_000_000_000n,
    }),
    now: () => Date.now(),
    ackTimeoutMs: 5_000,
  };
}

/** A provider quoting at a service: its own state file and its connection to `/provider/v1`. */
export interface QuotingProvider {
  readonly state: ProviderState;
  readonly responder: QuoteResponder;
  /** Disconnects and removes the state file; a second call does nothing. */
  close(): void;
}

/** Registers `provider` (paid at `payout`) at the service, opens a fresh state file and quotes `markets`. */
export async function startQuotingProvider(
  harness: TestService,
  provider: string,
  payout: string,
  markets: readonly ServedMarket[],
): Promise<QuotingProvider> {
  const keys = await addProvider(harness.fresh.store, provider, payout);
  const dir = mkdtempSync(join(tmpdir(), 'lnswap-quoting-provider-'));
  const state = ProviderState.open(join(dir, 'provider.sqlite'));
  let responder: QuoteResponder | undefined;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    responder?.close();
    state.close();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    responder = await startQuoteResponder(quotingOptions(harness, keys, state, markets));
  } catch (error) {
    close();
    throw error;
  }
  return { state, responder, close };
}
