import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeSelfSignedCertificate, type CertificateAndKey } from './self-signed-certificate.js';

export type StandInHandler = (request: IncomingMessage, body: unknown, response: ServerResponse) => void;

export interface RunningStandIn {
  url: string;
  certificatePem: string;
  close(): Promise<void>;
}

/** An HTTPS server on 127.0.0.1 serving `tls` (a fresh self-signed certificate unless given), reading JSON request bodies. */
export async function startHttpsStandIn(
  handler: StandInHandler,
  tls: CertificateAndKey = makeSelfSignedCertificate(),
): Promise<RunningStandIn> {
  const { certificatePem, keyPem } = tls;
  const server: Server = createServer({ cert: certificatePem, key: keyPem }, (request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      let body: unknown;
      try {
        body = text === '' ? {} : (JSON.parse(text) as unknown);
      } catch {
        sendJson(response, 400, { code: 3, message: 'request body is not JSON' });
        return;
      }
      handler(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    certificatePem,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
