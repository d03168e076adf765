import type { StateChanged } from './user-bot.js';

/** The short form of an order id: its first eight hex digits, as a wallet shows it. */
const shortId = (orderId: string) => orderId.slice(0, 8);

/**
 * One line per step of a live order, as it happens: `live <id> <market> <state> <cause>` for each state change,
 * and an indented line for what a bot did.
 */
export class StepPrinter {
  constructor(
    private readonly market: string,
    private readonly write: (line: string) => void,
  ) {}

  quoted(orderId: string, amount: string): void {
    this.line(orderId, 'WaitingForFundingTx', `quoted ${amount} SETH`);
  }

  stateChanged(change: StateChanged): void {
    const cause =
      change.preimage !== undefined
        ? `preimage ${change.preimage}`
        : change.transactionId !== undefined
          ? `tx ${change.transactionId}`
          : '';
    this.line(change.orderId, change.state, cause);
  }

  step(orderId: string, text: string): void {
    this.write(`live ${shortId(orderId)}   ${text}\n`);
  }

  note(text: string): void {
    this.write(`live ${text}\n`);
  }

  private line(orderId: string, state: string, cause: string): void {
    this.write(`live ${shortId(orderId)} ${this.market} ${state.padEnd(31)} ${cause}`.trimEnd() + '\n');
  }
}
