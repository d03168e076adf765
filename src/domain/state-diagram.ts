import { ALLOWED_MOVES, INITIAL_ORDER_STATE, isFinalState, ORDER_STATES } from './states.js';

/** The command that writes docs/state-machine.md from the table in states.ts. */
export const STATE_DIAGRAM_COMMAND = 'npm run docs:states';

/** The Mermaid `stateDiagram-v2` of the order state machine: every allowed move is one arrow. */
export function renderStateDiagram(): string {
  const lines = [
    'stateDiagram-v2',
    `    [*] --> ${INITIAL_ORDER_STATE}`,
    ...ALLOWED_MOVES.map(({ from, to }) => `    ${from} --> ${to}`),
    ...ORDER_STATES.filter(isFinalState).map((state) => `    ${state} --> [*]`),
  ];
  return lines.join('\n');
}

/** docs/state-machine.md as the table says it must read now. */
export function renderStateMachineDoc(): string {
  return [
    '# Order state machine',
    '',
    `Generated from the table in \`src/domain/states.ts\` by \`${STATE_DIAGRAM_COMMAND}\`; do not edit by hand.`,
    'A test fails when this file and the table disagree.',
    '',
    `An order quoted by the service starts in \`${INITIAL_ORDER_STATE}\` (an imported one may start in any state).`,
    'Every arrow is a move the store accepts; a move not drawn here is refused. The history row of each move',
    'records its cause (see `src/domain/transition-cause.ts` and the "Store" section of decisions.md).',
    '',
    '```mermaid',
    renderStateDiagram(),
    '```',
    '',
  ].join('\n');
}
