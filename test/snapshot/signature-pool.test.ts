/**
 * The pool's checker processes, seen from outside: their verdicts, and the priority they run at, read from
 * the operating system's own view of this process's children.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, test } from 'node:test';
import { readInvoice, type ReadInvoice } from '../../src/domain/bolt11-reader.js';
import { SignaturePool } from '../../src/snapshot/signature-pool.js';
import { makeInvoice, withSignature } from '../support/invoices.js';

/** Pids of this process's children, from /proc (the field after the command name is the state, then the parent). */
function childPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return parent === process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function readOrFail(invoice: string): ReadInvoice {
  const read = readInvoice(invoice);
  assert.ok(read !== undefined, 'the test invoice parses');
  return read;
}

describe('SignaturePool', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
  test('checks in niced child processes, one per core asked for, and reports each verdict by number', async () => {
    const verdicts = new Map<number, boolean>();
    const pool = new SignaturePool(
      (checks, valid) => checks.forEach((check, position) => verdicts.set(check, valid[position]!)),
      0,
      2,
    );
    const before = new Set(childPids());
    try {
      const good = makeInvoice({
        network: 'mainnet',
        amountSatoshis: 1000n,
        timestampSeconds: 1_600_000_000,
        namePayee: true,
      });
      const forged = withSignature(good.invoice, '11'.repeat(32) + '22'.repeat(32), 0);
      const submitted = Array.from({ length: 600 }, (_, n) =>
        pool.submit(readOrFail(n === 417 ? forged : good.invoice)),
      );
      await pool.settle();
      assert.deepEqual(
        [...verdicts.keys()].sort((a, b) => a - b),
        submitted,
      );
      assert.deepEqual(
        submitted.filter((check) => !verdicts.get(check)),
        [submitted[417]],
      );

      const checkers = childPids().filter((pid) => !before.has(pid));
      assert.equal(checkers.length, 2);
      const expected = Math.min(19, getPriority() + 10);
      for (const pid of checkers) assert.equal(getPriority(pid), expected, `niceness of checker ${pid}`);
    } finally {
      await pool.close();
    }
    assert.deepEqual(
      childPids().filter((pid) => !before.has(pid)),
      [],
      'close ends the checkers',
    );
  });
});
