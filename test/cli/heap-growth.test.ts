import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { programArgs } from '../support/repository.js';

// The module comes last; what precedes it loads it (tsx, when this test runs as TypeScript).
const HEAP_GROWTH_PROGRAM = programArgs(import.meta.url, '../../src/cli/heap-growth');
const HEAP_GROWTH_MODULE = HEAP_GROWTH_PROGRAM.at(-1);
const LOADER = HEAP_GROWTH_PROGRAM.slice(0, -1);

/**
 * A server's load in miniature: 300,000 entries live at any time, each replaced after it has been promoted, so
 * the old generation fills with garbage between full collections. Prints the peak of the used heap, in bytes.
 * Ten replacements of each entry already reach the peak that more would (about 0.42 bound against free).
 */
const CHURN = `
import v8 from 'node:v8';
if (process.argv[1] === 'bound') {
  const { boundHeapGrowth, HEAP_GROWING_PERCENT } = await import(${JSON.stringify(HEAP_GROWTH_MODULE)});
  boundHeapGrowth(HEAP_GROWING_PERCENT);
}
const live = new Array(300000);
let peak = 0;
for (let i = 0; i < 3000000; i++) {
  live[i % live.length] = { id: 'order-' + i, amounts: [i, i + 1, i + 2] };
  if (i % 20000 === 0) peak = Math.max(peak, v8.getHeapStatistics().used_heap_size);
}
process.stdout.write(String(peak));
`;

function peakHeapBytes(mode: 'bound' | 'free'): number {
  const child = spawnSync(process.execPath, [...LOADER, '--input-type=module', '-e', CHURN, mode], {
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  return Number(child.stdout);
}

test('the default bound keeps the old generation near what it holds: a lower heap peak under the same churn', () => {
  const free = peakHeapBytes('free');
  const bound = peakHeapBytes('bound');
  assert.ok(bound < free * 0.75, `peak used heap ${bound} bytes bounded against ${free} bytes free`);
});
