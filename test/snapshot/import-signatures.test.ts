/**
 * Invoice signatures are checked in child processes behind the scan. These tests force the checkers
 * on (`inlineSignatureChecks: 0`) over snapshots of several checker batches, and hold the import to
 * reporting what a check in file order would have met first.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { importSnapshot } from '../../src/snapshot/import-snapshot.js';
import { KNOWN_CATALOG } from '../../src/domain/market-catalog.js';
import { orderToSnapshot } from '../../src/snapshot/snapshot-format.js';
import { SnapshotError } from '../../src/snapshot/snapshot-error.js';
import { collect } from '../support/store/fixtures.js';
import { buildOrder } from '../support/fixtures.js';
import { makeInvoice, withSignature } from '../support/invoices.js';
import { refusal as refusalOf } from '../support/refusal.js';
import { openFreshStore, type FreshStore } from '../support/stores.js';
import { chunked, render, validDocument, type SnapshotDocument } from '../support/snapshot/snapshot-fixtures.js';

const ORDER_COUNT = 600;
const BAD = 300;

let signedOrders: SnapshotDocument['orders'] | undefined;

/** 600 Bitcoin-style orders, each with its own signed invoice: a fresh copy, which the caller may spoil. */
function bigDocument(): SnapshotDocument {
  // Signing 600 invoices takes more than a second; the orders are built once and copied per test.
  signedOrders ??= Array.from({ length: ORDER_COUNT }, (_, n) =>
    orderToSnapshot(
      buildOrder({ label: `many ${n}`, createdAt: Date.UTC(2020, 0, 1) + n * 1000 }).record,
      KNOWN_CATALOG,
    ),
  ) as unknown as SnapshotDocument['orders'];
  return { ...validDocument(), orders: structuredClone(signedOrders) };
}

/** An invoice that parses, names its payee, and carries someone else's signature. */
function wronglySigned(timestampSeconds: number): string {
  const { invoice } = makeInvoice({ network: 'mainnet', amountSatoshis: 1000n, timestampSeconds, namePayee: true });
  return withSignature(invoice, '11'.repeat(32) + '22'.repeat(32), 0);
}

const documentWithBadSignature = (): SnapshotDocument => {
  const document = bigDocument();
  const order = document.orders[BAD] as Record<string, unknown>;
  order.invoice = wronglySigned(1577836800 + BAD);
  delete order.paymentPreimage;
  return document;
};

function idAt(document: SnapshotDocument, index: number): string {
  return (document.orders[index] as { id: string }).id;
}

function invoiceError(document: SnapshotDocument, index: number): RegExp {
  return new RegExp(
    `^orders\\[${index}\\] \\(id ${idAt(document, index)}\\): invoice: not a BOLT11 invoice with a valid signature$`,
  );
}

async function refusal(store: FreshStore, text: string): Promise<string> {
  const message = await refusalOf(
    importSnapshot(store.store, chunked(text, 4096), { inlineSignatureChecks: 0, batchSize: 50 }),
    SnapshotError,
  );
  assert.equal((await collect(store.store.streamOrders())).length, 0, 'a refused import writes nothing');
  return message;
}

describe('invoice signatures checked in child processes', () => {
  let fresh: FreshStore;
  before(async () => {
    fresh = await openFreshStore('sqlite');
  });
  after(() => fresh.dispose());

  test('a snapshot of several checker batches imports whole', async () => {
    const summary = await importSnapshot(fresh.store, chunked(render(bigDocument())), { inlineSignatureChecks: 0 });
    assert.equal(summary.orders, ORDER_COUNT);
    assert.equal((await collect(fresh.store.streamOrders())).length, ORDER_COUNT);
    // Leave an empty store for the refusals below.
    await fresh.dispose();
    fresh = await openFreshStore('sqlite');
  });

  test('a bad signature is reported ahead of a bad field in a later record', async () => {
    const document = documentWithBadSignature();
    (document.orders[BAD + 150] as Record<string, unknown>).amount = 'lots';
    assert.match(await refusal(fresh, render(document)), invoiceError(document, BAD));
  });

  test('a bad field in an earlier record is reported ahead of a bad signature', async () => {
    const document = documentWithBadSignature();
    (document.orders[BAD - 1] as Record<string, unknown>).amount = 'lots';
    assert.match(await refusal(fresh, render(document)), new RegExp(`^orders\\[${BAD - 1}\\] .*: amount: `));
  });

  test('within the record, fields checked before the invoice come first, those after it second', async () => {
    const badId = documentWithBadSignature();
    (badId.orders[BAD] as Record<string, unknown>).id = 'not-a-uuid';
    assert.match(await refusal(fresh, render(badId)), new RegExp(`^orders\\[${BAD}\\]: id: must be a UUID$`));

    const badAmount = documentWithBadSignature();
    (badAmount.orders[BAD] as Record<string, unknown>).amount = 'lots';
    assert.match(await refusal(fresh, render(badAmount)), invoiceError(badAmount, BAD));
  });

  test('a bad signature is reported ahead of a broken end of the document', async () => {
    const document = documentWithBadSignature();
    assert.match(await refusal(fresh, render(document).slice(0, -3)), invoiceError(document, BAD));
  });
});
