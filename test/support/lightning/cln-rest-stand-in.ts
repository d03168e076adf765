import type { ServerResponse } from 'node:http';
import { TEST_NODE_PUBLIC_KEY } from '../invoices.js';
import { sendJson, startHttpsStandIn, type RunningStandIn } from './https-stand-in.js';
import type { CertificateAndKey } from './self-signed-certificate.js';
import type { SimulatedFailure, SimulatedPayment, SimulatedPayments } from './simulated-payments.js';

export const CLN_STAND_IN_PUBLIC_KEY = '03' + '33'.repeat(32);
export const CLN_STAND_IN_BLOCK_HEIGHT = 800_000;
const ROUTE_DELAY = 80;

/** Core Lightning's `pay` error for each way the simulated network fails a payment. */
const PAY_ERRORS: Record<SimulatedFailure, { code: number; message: string }> = {
  'no-route': { code: 205, message: 'Ran out of routes to try after 2 attempts: see `paystatus`' },
  'insufficient-balance': {
    code: 205,
    message: 'We could not find a usable set of paths.  The amount exceeds the spendable limit of our channels',
  },
  'fee-limit': { code: 206, message: 'Fee exceeds our fee budget' },
  timeout: { code: 210, message: 'Gave up after retry_for expired' },
  'incorrect-details': {
    code: 203,
    message: "Destination said it doesn't know invoice: incorrect_or_unknown_payment_details",
  },
};

/** RPC errors come back as HTTP 500 with the JSON-RPC error object. */
function rpcError(response: ServerResponse, code: number, message: string): void {
  sendJson(response, 500, { code, message });
}

/**
 * Core Lightning's clnrest plugin as the provider uses it, serving `tls` when given: `POST /v1/<method>` for getinfo, listfunds,
 * getroute, pay and listpays over TLS, with the `Rune` header checked (401 for a rune the node did
 * not make, 403 for none).
 */
export async function startClnRestStandIn(
  payments: SimulatedPayments,
  rune: string,
  tls?: CertificateAndKey,
): Promise<RunningStandIn> {
  return startHttpsStandIn((request, body, response) => {
    const given = request.headers['rune'];
    if (given === undefined) {
      sendJson(response, 403, { error: { code: 403, message: 'Not authorized: Missing rune' } });
      return;
    }
    if (given !== rune) {
      sendJson(response, 401, { error: { code: 1501, message: 'Not authorized: Not derived from master' } });
      return;
    }
    const method = request.method === 'POST' ? /^\/v1\/([a-z]+)$/.exec(request.url ?? '')?.[1] : undefined;
    const params = (body ?? {}) as Record<string, unknown>;
    switch (method) {
      case 'getinfo':
        sendJson(response, 200, {
          id: CLN_STAND_IN_PUBLIC_KEY,
          alias: 'cln-stand-in',
          num_peers: 1,
          blockheight: CLN_STAND_IN_BLOCK_HEIGHT,
          network: 'regtest',
          version: 'v24.08',
        });
        return;
      case 'listfunds':
        sendJson(response, 200, {
          outputs: [],
          channels: [
            {
              peer_id: TEST_NODE_PUBLIC_KEY,
              connected: true,
              state: 'CHANNELD_NORMAL',
              short_channel_id: '103x1x0',
              our_amount_msat: Number(payments.spendableMillisatoshis),
              amount_msat: Number(payments.spendableMillisatoshis) * 2,
            },
            { peer_id: '02' + '44'.repeat(32), connected: false, state: 'CHANNELD_NORMAL', our_amount_msat: 7_000_000 },
          ],
        });
        return;
      case 'getroute':
        getRoute(payments, params, response);
        return;
      case 'pay':
        pay(payments, params, response);
        return;
      case 'listpays':
        listPays(payments, params, response);
        return;
      default:
        rpcError(response, -32601, 'Unknown command');
    }
  }, tls);
}

function getRoute(payments: SimulatedPayments, params: Record<string, unknown>, response: ServerResponse): void {
  const amount = typeof params['amount_msat'] === 'number' ? BigInt(params['amount_msat']) : undefined;
  const fee = amount === undefined ? undefined : payments.routeFee(String(params['id']), amount);
  if (amount === undefined || fee === undefined) {
    rpcError(response, 205, 'Could not find a route');
    return;
  }
  sendJson(response, 200, {
    route: [
      {
        id: TEST_NODE_PUBLIC_KEY,
        channel: '103x1x0',
        direction: 0,
        amount_msat: Number(amount + fee),
        delay: ROUTE_DELAY,
        style: 'tlv',
      },
    ],
  });
}

function pay(payments: SimulatedPayments, params: Record<string, unknown>, response: ServerResponse): void {
  const { bolt11, maxfee, retry_for: retryFor } = params;
  if (typeof bolt11 !== 'string') {
    rpcError(response, -32602, "bolt11: should be a string: invalid token '{}'");
    return;
  }
  const feeLimit = typeof maxfee === 'number' ? BigInt(maxfee) : 5_000n;
  const sent = payments.send(bolt11, feeLimit, typeof retryFor === 'number' ? retryFor : 60);
  if (sent === 'unreadable') {
    rpcError(response, -32602, 'Invalid bolt11: Bad bech32 string');
    return;
  }
  if (sent.existing && sent.payment.status === 'in-flight') {
    rpcError(response, 200, 'There is a payment already in progress');
    return;
  }
  const stop = payments.whenResolved(sent.payment.paymentHash, (resolved) => {
    if (resolved.status === 'succeeded') {
      sendJson(response, 200, { ...payResult(resolved), parts: 1 });
    } else {
      const error = PAY_ERRORS[resolved.failure ?? 'no-route'];
      rpcError(response, error.code, error.message);
    }
  });
  response.on('close', stop);
}

function listPays(payments: SimulatedPayments, params: Record<string, unknown>, response: ServerResponse): void {
  const hash = params['payment_hash'];
  const payment = typeof hash === 'string' ? payments.payment(hash) : undefined;
  sendJson(response, 200, { pays: payment === undefined ? [] : [listPaysEntry(payment)] });
}

function payResult(payment: SimulatedPayment): Record<string, unknown> {
  return {
    destination: TEST_NODE_PUBLIC_KEY,
    payment_hash: payment.paymentHash,
    created_at: payment.createdAtSeconds,
    amount_msat: Number(payment.amountMillisatoshis),
    amount_sent_msat: Number(payment.amountMillisatoshis + payment.feeMillisatoshis),
    payment_preimage: payment.preimage,
    status: payment.statusWord ?? 'complete',
  };
}

function listPaysEntry(payment: SimulatedPayment): Record<string, unknown> {
  const status =
    payment.statusWord ?? { 'in-flight': 'pending', succeeded: 'complete', failed: 'failed' }[payment.status];
  return {
    bolt11: payment.invoice,
    destination: TEST_NODE_PUBLIC_KEY,
    payment_hash: payment.paymentHash,
    status,
    created_at: payment.createdAtSeconds,
    amount_msat: Number(payment.amountMillisatoshis),
    amount_sent_msat: Number(payment.amountMillisatoshis + payment.feeMillisatoshis),
    ...(payment.preimage === undefined ? {} : { preimage: payment.preimage }),
    number_of_parts: 1,
  };
}
