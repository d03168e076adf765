/**
 * The daemon's view of a failing Lightning node: each failed call counted under its cause, and `/readyz` naming
 * the cause, against the LND stand-in over real TLS.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { LndRestBackend } from '../../../src/chains/lightning/lnd-rest-backend.js';
import { faultCountingLightning } from '../../../src/provider/daemon/fault-counting-lightning.js';
import { startProbeServer } from '../../../src/provider/daemon/probe-server.js';
import { ProviderMetrics } from '../../../src/provider/daemon/provider-metrics.js';
import { ProviderState } from '../../../src/provider/state/provider-state.js';
import type { RunningStandIn } from '../../support/lightning/https-stand-in.js';
import { startLndRestStandIn } from '../../support/lightning/lnd-rest-stand-in.js';
import { makeSelfSignedCertificate } from '../../support/lightning/self-signed-certificate.js';
import { SimulatedPayments } from '../../support/lightning/simulated-payments.js';

const MACAROON_HEX = 'ab'.repeat(40);
let node: RunningStandIn;
let dir: string;
let state: ProviderState;

before(async () => {
  node = await startLndRestStandIn(new SimulatedPayments(), MACAROON_HEX);
  dir = mkdtempSync(join(tmpdir(), 'lnswap-lightning-faults-'));
  state = ProviderState.open(join(dir, 'provider.sqlite'));
});
after(async () => {
  state.close();
  rmSync(dir, { recursive: true, force: true });
  await node.close();
});

const backend = (changes: { certificatePem?: string; macaroonHex?: string }) =>
  new LndRestBackend({
    url: node.url,
    certificatePem: changes.certificatePem ?? node.certificatePem,
    macaroonHex: changes.macaroonHex ?? MACAROON_HEX,
    certificateFile: '/etc/lnd/tls.cert',
    macaroonFile: '/etc/lnd/provider.macaroon',
  });

test('each failed call is counted under its cause; a call that answers is not counted', async () => {
  const metrics = new ProviderMetrics(state);
  const count = (lightning: LndRestBackend) =>
    faultCountingLightning(lightning, (fault) => metrics.lightningFailed(fault));
  const misled = count(backend({ certificatePem: makeSelfSignedCertificate().certificatePem }));
  await assert.rejects(
    misled.getInfo(),
    /certificate mismatch \(the node's TLS certificate is not the one in \/etc\/lnd\/tls\.cert/,
  );
  await assert.rejects(misled.spendableMillisatoshis());
  await assert.rejects(
    count(backend({ macaroonHex: 'cd'.repeat(40) })).getInfo(),
    /authentication refused \(the node refused the macaroon in \/etc\/lnd\/provider\.macaroon\)/,
  );
  assert.equal((await count(backend({})).getInfo()).synced, true);
  const family = parsePrometheusTextFormat(await metrics.exposition()).find(
    (candidate) => candidate.name === 'lnswap_provider_lightning_errors_total',
  );
  assert.deepEqual(
    Object.fromEntries((family?.metrics ?? []).map((sample) => [sample.labels?.['fault'], Number(sample.value)])),
    { 'certificate-mismatch': 2, unauthorized: 1 },
  );
});

test("/readyz names the Lightning node's fault", async () => {
  const metrics = new ProviderMetrics(state);
  const error = await backend({ certificatePem: makeSelfSignedCertificate().certificatePem })
    .getInfo()
    .then(
      () => 'answered',
      (thrown: unknown) => (thrown as Error).message,
    );
  const probes = await startProbeServer('127.0.0.1', 0, {
    metrics,
    alive: () => true,
    readiness: () => ({
      service: true,
      lightning: false,
      lightningError: error,
      chains: { ethereum: true },
      suspectPayments: [],
    }),
  });
  try {
    const answer = await fetch(`${probes.url}/readyz`);
    assert.equal(answer.status, 503);
    const body = (await answer.json()) as { reasons: string[] };
    assert.deepEqual(body.reasons, [`lightning: ${error}`]);
    assert.match(body.reasons[0] ?? '', /lnd getinfo: certificate mismatch/);
  } finally {
    await probes.close();
  }
});
