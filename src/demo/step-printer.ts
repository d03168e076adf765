import type { StateChanged } from './user-bot.js';

/** The short form of an order id: its first eight hex digits, as a wallet shows it. */
const shortId = (orderId: string) => orderId.slice(0, 8);

const FINAL_STATES = new Set(['Complete', 'Refunded', 'FundWindowElapsed']);

/**
 * One line per step of a live order, as it happens: `live <id> <market> <state> <cause>` for each state change,
 * and an indented line for what a bot did.
 */
export class StepPrinter {
  /** The market of each order between its quote and its final state. */
  private readonly markets = new Map<string, string>();

  constructor(private readonly write: (line: string) => void) {}

  quoted(orderId: string, market: string, amount: string, ticker: string): void {
    this.markets.set(orderId, market);
    this.line(orderId, 'WaitingForFundingTx', `quoted ${amount} ${ticker}`);
  }

  stateChanged(change: StateChanged): void {
    const cause =
      change.preimage !== undefined
        ? `preimage ${change.preimage}`
        : change.transactionId !== undefined
          ? `tx ${change.transactionId}`
          : '';
    this.line(change.orderId, change.state, cause);
    if (FINAL_STATES.has(change.state)) this.markets.delete(change.orderId);
  }

  step(orderId: string, text: string): void {
    this.write(`live ${shortId(orderId)}   ${text}\n`);
  }

  note(text: string): void {
    this.write(`live ${text}\n`);
  }

  private line(orderId: string, state: string, cause: string): void {
    const market = this.markets.get(orderId) ?? '?';
    this.write(`live ${shortId(orderId)} ${market} ${state.padEnd(31)} ${cause}`.trimEnd() + '\n');
  }
}
