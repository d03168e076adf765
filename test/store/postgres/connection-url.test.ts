import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePostgresUrl } from '../../../src/store/postgres/connection-url.js';

test('the schema parameter is split off and the other parameters are kept', () => {
  const target = parsePostgresUrl('postgres://alice:secret@db.local:6543/lnswap?sslmode=disable&schema=tenant_1');
  assert.equal(target.schema, 'tenant_1');
  const passed = new URL(target.connectionString);
  assert.equal(passed.searchParams.get('schema'), null);
  assert.equal(passed.searchParams.get('sslmode'), 'disable');
  assert.equal(passed.username, 'alice');
  assert.equal(passed.password, 'secret');
  assert.equal(passed.host, 'db.local:6543');
  assert.equal(passed.pathname, '/lnswap');
});

test('without a schema parameter no schema is chosen', () => {
  assert.equal(Object.hasOwn(parsePostgresUrl('postgresql://bob@localhost/test'), 'schema'), false);
});

test('a URL without a user name gets one, so pg never depends on $USER', () => {
  assert.notEqual(new URL(parsePostgresUrl('postgres://127.0.0.1:5432/test').connectionString).username, '');
});

test('schema names that are not plain identifiers are refused', () => {
  for (const schema of ['bad-name', 'a;drop', '"quoted"', '1starts_with_digit', 'x'.repeat(64)]) {
    assert.throws(
      () => parsePostgresUrl(`postgres://localhost/test?schema=${encodeURIComponent(schema)}`),
      /Invalid schema name/,
      schema,
    );
  }
});

test('an unparseable URL is refused without echoing it', () => {
  assert.throws(
    () => parsePostgresUrl('postgres://user:pa ss@[broken/db'),
    (error: Error) => /Invalid PostgreSQL URL/.test(error.message) && !error.message.includes('pa ss'),
  );
});
