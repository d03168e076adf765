import type { IncomingMessage, ServerResponse } from 'node:http';
import { TEST_NODE_PUBLIC_KEY } from '../invoices.js';
import { sendJson, startHttpsStandIn, type RunningStandIn } from './https-stand-in.js';
import type { SimulatedFailure, SimulatedPayment, SimulatedPayments } from './simulated-payments.js';

/** The stand-in node's own key: any valid compressed key, distinct from the payee's. */
export const LND_STAND_IN_PUBLIC_KEY = '02' + '11'.repeat(32);
export const LND_STAND_IN_BLOCK_HEIGHT = 800_000;
const FINAL_CLTV_DELTA = 40;

const FAILURE_REASONS: Record<SimulatedFailure, string> = {
  'no-route': 'FAILURE_REASON_NO_ROUTE',
  'fee-limit': 'FAILURE_REASON_NO_ROUTE',
  'insufficient-balance': 'FAILURE_REASON_INSUFFICIENT_BALANCE',
  timeout: 'FAILURE_REASON_TIMEOUT',
  'incorrect-details': 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS',
};

/** gRPC code 2 (Unknown) maps to HTTP 500 in LND's REST gateway; most of LND's errors are that. */
function grpcError(response: ServerResponse, status: number, code: number, message: string, streamed: boolean): void {
  const error = { code, message, details: [] };
  sendJson(response, status, streamed ? { error } : error);
}

/**
 * LND's REST gateway as the provider uses it: getinfo, channel balance, query routes, router send
 * (a stream of `{"result": Payment}` lines) and router track, over TLS, with the macaroon checked as
 * LND checks it (a missing or wrong one is a gRPC Unknown error, HTTP 500).
 */
export async function startLndRestStandIn(payments: SimulatedPayments, macaroonHex: string): Promise<RunningStandIn> {
  return startHttpsStandIn((request, body, response) => {
    const macaroon = request.headers['grpc-metadata-macaroon'];
    if (macaroon === undefined) {
      grpcError(response, 500, 2, 'expected 1 macaroon, got 0', false);
      return;
    }
    if (macaroon !== macaroonHex) {
      grpcError(response, 500, 2, 'verification failed: signature mismatch after caveat verification', false);
      return;
    }
    route(payments, request, body, response);
  });
}

function route(payments: SimulatedPayments, request: IncomingMessage, body: unknown, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'https://stand-in');
  const path = url.pathname;
  if (request.method === 'GET' && path === '/v1/getinfo') {
    sendJson(response, 200, {
      identity_pubkey: LND_STAND_IN_PUBLIC_KEY,
      alias: 'lnd-stand-in',
      block_height: LND_STAND_IN_BLOCK_HEIGHT,
      synced_to_chain: true,
      synced_to_graph: true,
      chains: [{ chain: 'bitcoin', network: 'regtest' }],
      version: '0.18.3-beta',
    });
    return;
  }
  if (request.method === 'GET' && path === '/v1/balance/channels') {
    const msat = payments.spendableMillisatoshis;
    sendJson(response, 200, {
      balance: (msat / 1000n).toString(),
      local_balance: { sat: (msat / 1000n).toString(), msat: msat.toString() },
      remote_balance: { sat: '0', msat: '0' },
    });
    return;
  }
  const routes = /^\/v1\/graph\/routes\/([0-9a-f]{66})\/([0-9]+)$/.exec(path);
  if (request.method === 'GET' && routes !== null) {
    const amountMsat = BigInt(routes[2] ?? '0') * 1000n;
    const fee = payments.routeFee(routes[1] ?? '', amountMsat);
    if (fee === undefined) {
      grpcError(response, 500, 2, 'unable to find a path to destination', false);
      return;
    }
    sendJson(response, 200, {
      routes: [
        {
          total_time_lock: LND_STAND_IN_BLOCK_HEIGHT + FINAL_CLTV_DELTA + 40,
          total_fees: (fee / 1000n).toString(),
          total_fees_msat: fee.toString(),
          total_amt: ((amountMsat + fee) / 1000n).toString(),
          total_amt_msat: (amountMsat + fee).toString(),
          hops: [{ pub_key: TEST_NODE_PUBLIC_KEY, amt_to_forward_msat: amountMsat.toString() }],
        },
      ],
      success_prob: 0.9,
    });
    return;
  }
  if (request.method === 'POST' && path === '/v2/router/send') {
    sendPayment(payments, body, response);
    return;
  }
  const track = /^\/v2\/router\/track\/([A-Za-z0-9_-]+=*)$/.exec(path);
  if (request.method === 'GET' && track !== null) {
    trackPayment(payments, Buffer.from(track[1] ?? '', 'base64url').toString('hex'), response, url);
    return;
  }
  grpcError(response, 404, 5, 'Not Found', false);
}

function sendPayment(payments: SimulatedPayments, body: unknown, response: ServerResponse): void {
  const request = body as { payment_request?: unknown; fee_limit_msat?: unknown; timeout_seconds?: unknown };
  if (
    typeof request.payment_request !== 'string' ||
    typeof request.timeout_seconds !== 'number' ||
    request.timeout_seconds <= 0
  ) {
    grpcError(response, 500, 2, 'timeout_seconds must be specified', true);
    return;
  }
  const feeLimit = typeof request.fee_limit_msat === 'string' ? BigInt(request.fee_limit_msat) : 0n;
  const sent = payments.send(request.payment_request, feeLimit, request.timeout_seconds);
  if (sent === 'unreadable') {
    grpcError(response, 500, 2, 'invalid payment request', true);
    return;
  }
  if (sent.existing) {
    const message = sent.payment.status === 'succeeded' ? 'invoice is already paid' : 'payment is in transition';
    if (sent.payment.status !== 'failed') {
      grpcError(response, 500, 2, message, true);
      return;
    }
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  streamUntilFinal(payments, sent.payment, response, true);
}

function trackPayment(payments: SimulatedPayments, paymentHash: string, response: ServerResponse, url: URL): void {
  const payment = payments.payment(paymentHash);
  if (payment === undefined) {
    grpcError(response, 404, 5, "payment isn't initiated", true);
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  streamUntilFinal(payments, payment, response, url.searchParams.get('no_inflight_updates') === 'true');
}

/** Writes the payment's state now (unless only the final one is wanted) and its final state when it comes. */
function streamUntilFinal(
  payments: SimulatedPayments,
  payment: SimulatedPayment,
  response: ServerResponse,
  finalOnly: boolean,
): void {
  if (!finalOnly || payment.status !== 'in-flight')
    response.write(JSON.stringify({ result: lndPayment(payment) }) + '\n');
  if (payment.status !== 'in-flight') {
    response.end();
    return;
  }
  const stop = payments.whenResolved(payment.paymentHash, (resolved) => {
    response.end(JSON.stringify({ result: lndPayment(resolved) }) + '\n');
  });
  response.on('close', stop);
}

function lndPayment(payment: SimulatedPayment): Record<string, unknown> {
  const status =
    payment.statusWord ?? { 'in-flight': 'IN_FLIGHT', succeeded: 'SUCCEEDED', failed: 'FAILED' }[payment.status];
  return {
    payment_hash: payment.paymentHash,
    value: (payment.amountMillisatoshis / 1000n).toString(),
    value_sat: (payment.amountMillisatoshis / 1000n).toString(),
    value_msat: payment.amountMillisatoshis.toString(),
    payment_preimage: payment.preimage ?? '0'.repeat(64),
    payment_request: payment.invoice,
    status,
    fee: (payment.feeMillisatoshis / 1000n).toString(),
    fee_sat: (payment.feeMillisatoshis / 1000n).toString(),
    fee_msat: payment.feeMillisatoshis.toString(),
    creation_time_ns: (BigInt(payment.createdAtSeconds) * 1_000_000_000n).toString(),
    htlcs: [],
    payment_index: payment.index.toString(),
    failure_reason: payment.failure === undefined ? 'FAILURE_REASON_NONE' : FAILURE_REASONS[payment.failure],
  };
}
