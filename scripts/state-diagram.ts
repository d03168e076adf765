// Writes docs/state-machine.md and docs/provider-lifecycle.md from their tables: `npm run docs:states`.
import { writeFileSync } from 'node:fs';
import { renderStateMachineDoc } from '../src/domain/state-diagram.js';
import { renderLifecycleDoc } from '../src/provider/lifecycle/lifecycle-diagram.js';

for (const [page, text] of [
  ['state-machine.md', renderStateMachineDoc()],
  ['provider-lifecycle.md', renderLifecycleDoc()],
] as const) {
  const target = new URL(`../docs/${page}`, import.meta.url);
  writeFileSync(target, text);
  process.stdout.write(`wrote ${target.pathname}\n`);
}
