// Writes docs/state-machine.md from the state machine's table: `npm run docs:states`.
import { writeFileSync } from 'node:fs';
import { renderStateMachineDoc } from '../src/domain/state-diagram.js';

const target = new URL('../docs/state-machine.md', import.meta.url);
writeFileSync(target, renderStateMachineDoc());
process.stdout.write(`wrote ${target.pathname}\n`);
