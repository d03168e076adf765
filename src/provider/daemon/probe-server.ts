import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROVIDER_METRICS_CONTENT_TYPE, type ProviderMetrics } from './provider-metrics.js';

/** What `/readyz` reports: each dependency the daemon needs, as last checked, and the payments awaiting the operator. */
export interface Readiness {
  service: boolean;
  lightning: boolean;
  /** Why the Lightning node's last check failed (the error's first line, which names its cause). */
  lightningError?: string;
  chains: Record<string, boolean>;
  suspectPayments: { orderId: string; paymentHash: string; reason: string }[];
}

export interface ProbeSources {
  metrics: ProviderMetrics;
  readiness: () => Readiness;
  /** The loop completed a round recently: the process is not stuck. */
  alive: () => boolean;
}

export interface ProbeServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The daemon's own port: `/metrics` for Prometheus, `/healthz` (the loop is going round) and
 * `/readyz` (the service connection, the Lightning node and every chain answer, and no payment is
 * suspect), 200 or 503 with a JSON body naming each check, and when not ready `reasons`, one line
 * per failing check. Nothing secret is ever in an answer.
 */
export async function startProbeServer(host: string, port: number, sources: ProbeSources): Promise<ProbeServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET') {
      response.writeHead(405, { allow: 'GET' }).end();
      return;
    }
    if (path === '/metrics') {
      sources.metrics.exposition().then(
        (text) => response.writeHead(200, { 'content-type': PROVIDER_METRICS_CONTENT_TYPE }).end(text),
        () => response.writeHead(500).end(),
      );
      return;
    }
    if (path === '/healthz') {
      const alive = sources.alive();
      json(response, alive ? 200 : 503, { status: alive ? 'ok' : 'stuck' });
      return;
    }
    if (path === '/readyz') {
      const readiness = sources.readiness();
      const reasons = notReadyReasons(readiness);
      const ready = reasons.length === 0;
      json(response, ready ? 200 : 503, {
        status: ready ? 'ready' : 'not ready',
        ...readiness,
        ...(ready ? {} : { reasons }),
      });
      return;
    }
    json(response, 404, { error: 'NotFound' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function notReadyReasons(readiness: Readiness): string[] {
  const reasons: string[] = [];
  if (!readiness.service) reasons.push('service: not connected');
  if (!readiness.lightning) reasons.push(`lightning: ${readiness.lightningError ?? 'not synced to the chain'}`);
  for (const [chain, up] of Object.entries(readiness.chains)) {
    if (!up) reasons.push(`${chain}: the node does not answer`);
  }
  for (const payment of readiness.suspectPayments) {
    reasons.push(
      `payment ${payment.paymentHash} of order ${payment.orderId} is suspect (${payment.reason}): ` +
        'look it up on the Lightning node (docs/provider.md, Suspect payments)',
    );
  }
  return reasons;
}

function json(response: import('node:http').ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
