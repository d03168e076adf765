import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { renderStateMachineDoc, STATE_DIAGRAM_COMMAND } from '../../src/domain/state-diagram.js';
import { canTransition, isFinalState, ORDER_STATES } from '../../src/domain/states.js';
import { repositoryPath } from '../support/repository.js';

const committed = readFileSync(repositoryPath('docs', 'state-machine.md'), 'utf8');

test('docs/state-machine.md is what the generator writes from the table today', () => {
  assert.equal(committed, renderStateMachineDoc(), `docs/state-machine.md is stale: run ${STATE_DIAGRAM_COMMAND}`);
});

test('the committed diagram draws exactly the moves the table allows, and marks the final states', () => {
  const arrows = [...committed.matchAll(/^ {4}(\S+) --> (\S+)$/gm)].map(([, from, to]) => `${from} --> ${to}`);
  const expected = [
    '[*] --> WaitingForFundingTx',
    ...ORDER_STATES.flatMap((from) =>
      ORDER_STATES.filter((to) => canTransition(from, to)).map((to) => `${from} --> ${to}`),
    ),
    ...ORDER_STATES.filter(isFinalState).map((state) => `${state} --> [*]`),
  ];
  assert.deepEqual([...arrows].sort(), [...expected].sort());
  assert.equal(new Set(arrows).size, arrows.length, 'no arrow drawn twice');
  for (const state of ORDER_STATES) assert.match(committed, new RegExp(`\\b${state}\\b`), `${state} is drawn`);
});
