import {
  INITIAL_LIFECYCLE_STATE,
  isFinalLifecycleState,
  LIFECYCLE_MOVES,
  LIFECYCLE_STATE_MEANINGS,
  ORDER_LIFECYCLE_STATES,
} from './order-lifecycle.js';

/** The Mermaid `stateDiagram-v2` of the provider's order lifecycle: every move is one arrow. */
export function renderLifecycleDiagram(): string {
  // Mermaid state names cannot hold a dash: each state is declared with its name as the label.
  const id = (state: string) => state.replaceAll('-', '_');
  return [
    'stateDiagram-v2',
    ...ORDER_LIFECYCLE_STATES.filter((state) => state.includes('-')).map(
      (state) => `    state "${state}" as ${id(state)}`,
    ),
    `    [*] --> ${id(INITIAL_LIFECYCLE_STATE)}`,
    ...LIFECYCLE_MOVES.map(({ from, to }) => `    ${id(from)} --> ${id(to)}`),
    ...ORDER_LIFECYCLE_STATES.filter(isFinalLifecycleState).map((state) => `    ${id(state)} --> [*]`),
  ].join('\n');
}

/** The command that writes docs/provider-lifecycle.md from the table in order-lifecycle.ts. */
export const LIFECYCLE_DIAGRAM_COMMAND = 'npm run docs:states';

/** docs/provider-lifecycle.md as the table says it must read now. */
export function renderLifecycleDoc(): string {
  return [
    "# The provider's order lifecycle",
    '',
    'Generated from the table in `src/provider/lifecycle/order-lifecycle.ts` by ' +
      `\`${LIFECYCLE_DIAGRAM_COMMAND}\`; do not edit by hand. A test fails when this file and the table disagree.`,
    '',
    "Each order the provider daemon quotes is in one of these states, read by `orderLifecycle` from the daemon's",
    'own records (its quote, payment and claim rows); the loop (`followOrder` in',
    '`src/provider/daemon/follow-orders.ts`) acts on that state. [provider.md](provider.md) walks one order',
    'from `won` to `claimed` file by file.',
    '',
    '```mermaid',
    renderLifecycleDiagram(),
    '```',
    '',
    ...ORDER_LIFECYCLE_STATES.map((state) => `- \`${state}\`: ${LIFECYCLE_STATE_MEANINGS[state]}`),
    '',
  ].join('\n');
}
