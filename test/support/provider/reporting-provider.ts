import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  startQuoteResponder,
  type QuoteResponder,
  type QuoteResponderOptions,
} from '../../../src/provider/service-link/quote-responder.js';
import { ProviderState } from '../../../src/provider/state/provider-state.js';
import { addProvider, type TestService } from '../ws/harness.js';

/** A provider that reports to a service and quotes nothing: its own state file and its connection to `/provider/v1`. */
export interface ReportingProvider {
  readonly state: ProviderState;
  readonly responder: QuoteResponder;
  /** What started `responder`: a test starts another connection from it (one it then drops, say). */
  readonly options: QuoteResponderOptions;
  close(): void;
}

/** Registers `provider` (paid at `payout`) at the service, opens a fresh state file and connects. */
export async function startReportingProvider(
  harness: TestService,
  provider: string,
  payout: string,
): Promise<ReportingProvider> {
  const keys = await addProvider(harness.fresh.store, provider, payout);
  const dir = mkdtempSync(join(tmpdir(), 'lnswap-reporting-provider-'));
  const state = ProviderState.open(join(dir, 'provider.sqlite'));
  const options: QuoteResponderOptions = {
    serviceUrl: harness.service.url,
    credentials: keys,
    markets: [],
    fundWindowMs: 600_000,
    state,
    capacity: () => Promise.reject(new Error('not quoting in this test')),
    now: () => Date.now(),
    ackTimeoutMs: 5_000,
  };
  const responder = await startQuoteResponder(options);
  return {
    state,
    responder,
    options,
    close() {
      responder.close();
      state.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
