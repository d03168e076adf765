/** The client's reads of the service: typed by the server's own schemas, bounded in size and time. */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { serviceReads } from '../../src/client/http-reads.js';
import { ServiceAnswerUnreadable } from '../../src/client/service-answer-unreadable.js';
import { shapeFaults } from '../../src/client/shape-check.js';
import * as wireShapes from '../../src/wire/response-shapes.js';

const ORDER = {
  id: 'order-1',
  market: 'ETH_LBTC',
  onchainTicker: 'ETH',
  createdAt: '2026-01-01T00:00:00.000Z',
  state: 'Funded',
  payToAddress: '0x' + '11'.repeat(20),
  amount: '0.01',
  amountPaid: '0.01',
  expiryTimestamp: '2026-01-01T01:00:00.000Z',
  invoice: 'lnbcrt1invoice',
  paymentHash: 'ab'.repeat(32),
};

describe('reads against a service that answers badly', () => {
  let server: Server;
  let serviceUrl: string;
  const answers: Record<string, (response: ServerResponse) => void> = {
    '/api/orders/known': (response) => response.writeHead(200).end(JSON.stringify(ORDER)),
    '/api/orders/newer': (response) => response.writeHead(200).end(JSON.stringify({ ...ORDER, addedLater: 1 })),
    '/api/orders/renamed': (response) => {
      const { state, ...rest } = ORDER;
      response.writeHead(200).end(JSON.stringify({ ...rest, status: state }));
    },
    '/api/orders/unknown-state': (response) => response.writeHead(200).end(JSON.stringify({ ...ORDER, state: 'Paid' })),
    '/api/orders/missing': (response) => response.writeHead(404).end('OrderNotFound'),
    '/api/orders/busy': (response) => response.writeHead(503).end('ServiceUnavailable'),
    '/api/orders/not-json': (response) => response.writeHead(200).end('<html>'),
    // No content-length: the size is found while reading.
    '/api/orders/huge': (response) => {
      response.writeHead(200);
      response.end(`"${'x'.repeat(100 * 1024)}"`);
    },
    '/api/orders/silent': () => {},
  };

  before(async () => {
    server = createServer((request, response) => answers[request.url ?? '']?.(response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serviceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  // Patient, as a loaded machine can take more than a few hundred ms over a first call; the silent service's
  // test has the short bound it proves.
  const reads = (timeoutMs = 10_000) => serviceReads({ serviceUrl, timeoutMs });

  test('an order of its shape is read typed; a field the schema does not name is let through', async () => {
    const order = await reads().order('known');
    assert.ok(order !== 'not-found');
    assert.equal(order.state, 'Funded');
    assert.deepEqual(await reads().order('newer'), { ...ORDER, addedLater: 1 });
  });

  test('a renamed field or a state the service does not have is refused, naming the field', async () => {
    await assert.rejects(reads().order('renamed'), (error: unknown) => {
      assert.ok(error instanceof ServiceAnswerUnreadable);
      assert.deepEqual(error.faults, [{ path: 'state', problem: 'missing' }]);
      return true;
    });
    await assert.rejects(reads().order('unknown-state'), /state not one of the values it may take/);
  });

  test('a 404 is not-found, another status or no JSON throws', async () => {
    assert.equal(await reads().order('missing'), 'not-found');
    await assert.rejects(reads().order('busy'), /HTTP 503 ServiceUnavailable/);
    await assert.rejects(reads().order('not-json'), /answered no JSON/);
  });

  test('an answer past 64 KiB is not read whole, and a silent service times out', async () => {
    await assert.rejects(reads().order('huge'), /larger than 65536 bytes/);
    await assert.rejects(reads(300).order('silent'), /no answer within 300 ms/);
  });
});

test("every shape the server answers with uses only what the client's reader knows", () => {
  const shapes = Object.entries(wireShapes).filter(([name]) => name.endsWith('Shape'));
  assert.ok(shapes.length >= 10, `${shapes.length} shapes found`);
  for (const [name, shape] of shapes) {
    assert.doesNotThrow(() => walkEveryBranch(shape as object), `${name} is read whole`);
  }
});

test('a funding answer is one of its branches: Bitcoin, ether or token; another field set is refused', () => {
  const base = { orderId: 'o', expiryTimestampMs: 1, amount: '1' };
  const tx = { to: '0x1', data: '0x', value: '0' };
  assert.deepEqual(shapeFaults(wireShapes.fundingDetailsShape, { ...base, details: { unsignedFundingTx: tx } }), []);
  assert.deepEqual(
    shapeFaults(wireShapes.fundingDetailsShape, {
      ...base,
      details: { redeemScript: 'ab', payToAddress: 'bcrt1', refundableAtBlockHeight: 10 },
    }),
    [],
  );
  assert.deepEqual(shapeFaults(wireShapes.fundingDetailsShape, { ...base, details: { redeemScript: 'ab' } }), [
    { path: 'details', problem: 'of none of the shapes it may take' },
  ]);
  assert.deepEqual(shapeFaults(wireShapes.fundingDetailsShape, { ...base, expiryTimestampMs: 1.5, details: {} }), [
    { path: 'expiryTimestampMs', problem: 'not integer' },
    { path: 'details', problem: 'of none of the shapes it may take' },
  ]);
});

/** Reads a value of every kind against the shape and each of its parts, so that every keyword is met. */
function walkEveryBranch(shape: object): void {
  for (const value of [{}, [], 'x', 1, null]) shapeFaults(shape, value);
  const { properties, items, anyOf, allOf } = shape as Record<string, unknown>;
  const parts = [
    ...(typeof properties === 'object' && properties !== null ? Object.values(properties) : []),
    ...(typeof items === 'object' && items !== null ? [items] : []),
    ...(Array.isArray(anyOf) ? anyOf : []),
    ...(Array.isArray(allOf) ? allOf : []),
  ] as object[];
  for (const part of parts) walkEveryBranch(part);
}
