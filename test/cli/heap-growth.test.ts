import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

const HEAP_GROWTH_MODULE = fileURLToPath(new URL('../../src/cli/heap-growth.ts', import.meta.url));

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
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHURN, mode], {
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
