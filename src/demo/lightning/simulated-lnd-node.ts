import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeInvoice } from '../../domain/invoice.js';
import { makeSelfSignedCertificate } from './self-signed-certificate.js';
import type { SimulatedLightningPayee } from './simulated-lightning-payee.js';

/** A running simulated node: what a provider's configuration names (URL, tls.cert, macaroon). */
export interface SimulatedLndNode {
  readonly url: string;
  readonly certificatePem: string;
  /** The macaroon file's bytes; the daemon reads the file and sends it as hex. */
  readonly macaroon: Buffer;
  close(): Promise<void>;
}

/** A day is far longer than a demo runs; a fresh certificate is made at every start. */
const CERTIFICATE_VALIDITY_MS = 24 * 60 * 60 * 1000;
const BLOCK_HEIGHT = 1_000;
/** What the route to the payee costs: one satoshi, well inside any provider's fee limit. */
const ROUTE_FEE_MILLISATOSHIS = 1_000n;
/** Blocks the route's HTLCs lock: LND's default final delta plus one hop's. */
const ROUTE_TIME_LOCK_DELTA = 80;
/** 0.1 BTC in its channels: more than the demo's swaps ever spend. */
const CHANNEL_BALANCE_MILLISATOSHIS = 10_000_000_000n;
const MAX_BODY_BYTES = 64 * 1024;

interface Payment {
  readonly paymentHash: string;
  readonly invoice: string;
  readonly amountMillisatoshis: bigint;
  readonly index: number;
  readonly createdAtSeconds: number;
  readonly preimage?: string;
}

/**
 * SIMULATED: a provider's Lightning node for the demo, speaking the part of LND's REST API the provider daemon uses
 * (getinfo, channel balance, query routes, router send and track), over TLS with its own fresh certificate and
 * macaroon, so the daemon runs exactly as beside a real LND. There is no Lightning network behind it: a payment goes
 * straight to the demo's simulated payee, which settles it with the preimage or refuses it; there is no payment in
 * flight. Errors have LND's shapes: a wrong macaroon is gRPC code 2 (HTTP 500), an unknown payment code 5.
 */
export async function startSimulatedLndNode(payee: SimulatedLightningPayee): Promise<SimulatedLndNode> {
  const { certificatePem, keyPem } = makeSelfSignedCertificate(CERTIFICATE_VALIDITY_MS);
  const macaroon = randomBytes(32);
  const macaroonHex = macaroon.toString('hex');
  const identity = '02' + randomBytes(32).toString('hex');
  const payments = new Map<string, Payment>();
  let spendable = CHANNEL_BALANCE_MILLISATOSHIS;

  const send = (invoice: string): Payment | 'unreadable' | 'no-route' => {
    const decoded = decodeInvoice(invoice);
    if (decoded?.amountMillisatoshis === undefined) return 'unreadable';
    if (decoded.payeePublicKey !== payee.publicKey) return 'no-route';
    const preimage = payee.receive(decoded.paymentHash, decoded.amountMillisatoshis);
    const payment: Payment = {
      paymentHash: decoded.paymentHash,
      invoice,
      amountMillisatoshis: decoded.amountMillisatoshis,
      index: payments.size + 1,
      createdAtSeconds: Math.floor(Date.now() / 1000),
      ...(preimage === undefined ? {} : { preimage }),
    };
    payments.set(payment.paymentHash, payment);
    if (preimage !== undefined) spendable -= payment.amountMillisatoshis + ROUTE_FEE_MILLISATOSHIS;
    return payment;
  };

  const route = (request: IncomingMessage, body: Record<string, unknown>, response: ServerResponse): void => {
    const path = new URL(request.url ?? '/', 'https://node').pathname;
    if (request.method === 'GET' && path === '/v1/getinfo') {
      sendJson(response, 200, {
        identity_pubkey: identity,
        alias: 'lnswap-demo-simulated-lnd',
        block_height: BLOCK_HEIGHT,
        synced_to_chain: true,
        synced_to_graph: true,
        chains: [{ chain: 'bitcoin', network: 'regtest' }],
      });
      return;
    }
    if (request.method === 'GET' && path === '/v1/balance/channels') {
      sendJson(response, 200, {
        local_balance: { sat: (spendable / 1000n).toString(), msat: spendable.toString() },
        remote_balance: { sat: '0', msat: '0' },
      });
      return;
    }
    const routes = /^\/v1\/graph\/routes\/([0-9a-f]{66})\/([0-9]+)$/.exec(path);
    if (request.method === 'GET' && routes !== null) {
      const amount = BigInt(routes[2]!) * 1000n;
      if (routes[1] !== payee.publicKey || amount + ROUTE_FEE_MILLISATOSHIS > spendable) {
        sendJson(response, 500, grpcError(2, 'unable to find a path to destination'));
        return;
      }
      sendJson(response, 200, {
        routes: [
          {
            total_time_lock: BLOCK_HEIGHT + ROUTE_TIME_LOCK_DELTA,
            total_fees_msat: ROUTE_FEE_MILLISATOSHIS.toString(),
            total_amt_msat: (amount + ROUTE_FEE_MILLISATOSHIS).toString(),
          },
        ],
      });
      return;
    }
    if (request.method === 'POST' && path === '/v2/router/send') {
      const invoice = body['payment_request'];
      const earlier = typeof invoice === 'string' ? payments.get(decodeInvoice(invoice)?.paymentHash ?? '') : undefined;
      // LND sends to a hash again only after its earlier payment failed.
      if (earlier?.preimage !== undefined) {
        sendJson(response, 500, { error: grpcError(2, 'invoice is already paid') });
        return;
      }
      const sent = typeof invoice === 'string' ? send(invoice) : 'unreadable';
      if (sent === 'unreadable') sendJson(response, 500, { error: grpcError(2, 'invalid payment request') });
      else if (sent === 'no-route')
        sendJson(response, 200, { result: failed(invoice as string, 'FAILURE_REASON_NO_ROUTE') });
      else sendJson(response, 200, { result: lndPayment(sent) });
      return;
    }
    const track = /^\/v2\/router\/track\/([A-Za-z0-9_-]+=*)$/.exec(path);
    if (request.method === 'GET' && track !== null) {
      const payment = payments.get(Buffer.from(track[1]!, 'base64url').toString('hex'));
      if (payment === undefined) sendJson(response, 404, { error: grpcError(5, "payment isn't initiated") });
      else sendJson(response, 200, { result: lndPayment(payment) });
      return;
    }
    sendJson(response, 404, grpcError(5, 'Not Found'));
  };

  const server: Server = createServer({ cert: certificatePem, key: keyPem }, (request, response) => {
    if (request.headers['grpc-metadata-macaroon'] !== macaroonHex) {
      sendJson(response, 500, grpcError(2, 'verification failed: signature mismatch after caveat verification'));
      return;
    }
    readJsonBody(request).then(
      (body) =>
        body === undefined
          ? sendJson(response, 400, grpcError(3, 'invalid request body'))
          : route(request, body, response),
      () => response.destroy(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    certificatePem,
    macaroon,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A payment as LND's router reports it: settled with its preimage, or failed because the payee refused it. */
function lndPayment(payment: Payment): Record<string, unknown> {
  if (payment.preimage === undefined)
    return failed(payment.invoice, 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS', payment);
  return {
    payment_hash: payment.paymentHash,
    value_msat: payment.amountMillisatoshis.toString(),
    payment_preimage: payment.preimage,
    payment_request: payment.invoice,
    status: 'SUCCEEDED',
    fee_msat: ROUTE_FEE_MILLISATOSHIS.toString(),
    creation_time_ns: (BigInt(payment.createdAtSeconds) * 1_000_000_000n).toString(),
    payment_index: payment.index.toString(),
    failure_reason: 'FAILURE_REASON_NONE',
  };
}

function failed(invoice: string, reason: string, payment?: Payment): Record<string, unknown> {
  return {
    payment_hash: payment?.paymentHash ?? decodeInvoice(invoice)?.paymentHash,
    payment_preimage: '0'.repeat(64),
    payment_request: invoice,
    status: 'FAILED',
    fee_msat: '0',
    failure_reason: reason,
  };
}

function grpcError(code: number, message: string): { code: number; message: string; details: [] } {
  return { code, message, details: [] };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body) + '\n');
}

/** The request's JSON object (empty for a GET), undefined when it is not one. */
async function readJsonBody(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let text = '';
  for await (const chunk of request) {
    text += String(chunk);
    if (text.length > MAX_BODY_BYTES) return undefined;
  }
  if (text === '') return {};
  try {
    const body = JSON.parse(text) as unknown;
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
