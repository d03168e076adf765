import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROVIDER_METRICS_CONTENT_TYPE, type ProviderMetrics } from './provider-metrics.js';

/** What `/readyz` reports: each dependency the daemon needs, as last checked. */
export interface Readiness {
  service: boolean;
  lightning: boolean;
  chains: Record<string, boolean>;
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
 * `/readyz` (the service connection, the Lightning node and every chain answer), 200 or 503 with
 * a JSON body naming each check. Nothing secret is ever in an answer.
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
      const ready = readiness.service && readiness.lightning && Object.values(readiness.chains).every(Boolean);
      json(response, ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', ...readiness });
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

function json(response: import('node:http').ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
