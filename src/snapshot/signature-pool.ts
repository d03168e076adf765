import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism, getPriority, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { checkInvoiceSignature, type SignedInvoice } from '../domain/bolt11-reader.js';
import { packSignatureChecks, type SignatureBatch, type SignatureVerdicts } from './signature-batch.js';

/** Invoices sent to a checker process at once: large enough that messaging costs little next to the checks. */
const BATCH_SIZE = 256;
/**
 * Checkers run at a lower priority than the importer: its thread is what a large import waits for (parsing,
 * validating, writing, then rebuilding indexes), and on two cores three processes at equal priority took a
 * third of its core while both checkers ran. Niced, they use the other core and whatever the importer leaves.
 */
const CHECKER_NICENESS_ABOVE_IMPORTER = 10;
/** The lowest priority there is. */
const MAX_NICENESS = 19;

/** What each check reported, by the number `submit` gave it. */
export type VerdictListener = (checks: readonly number[], valid: readonly boolean[]) => void;

/**
 * Checks invoice signatures in child processes, one per core, while the importer goes on parsing and
 * writing. Small imports never start one: below `inlineLimit` checks, each is made in this
 * process as it is submitted, which costs less than starting processes.
 */
export class SignaturePool {
  private readonly checkers: ChildProcess[] = [];
  private readonly pending = new Map<number, { checks: number[]; checker: ChildProcess }>();
  private readonly busy = new Map<ChildProcess, number>();
  private queued: SignedInvoice[] = [];
  private queuedChecks: number[] = [];
  private nextCheck = 0;
  private nextBatch = 0;
  private failure: Error | undefined;
  private drained: (() => void) | undefined;

  constructor(
    private readonly onVerdicts: VerdictListener,
    private readonly inlineLimit: number,
    private readonly processes = Math.max(1, availableParallelism()),
  ) {}

  /** The number the next `submit` gives its check. */
  get nextCheckNumber(): number {
    return this.nextCheck;
  }

  /** Queues a check and returns its number; its verdict reaches the listener later, or at once when inline. */
  submit(invoice: SignedInvoice): number {
    const check = this.nextCheck++;
    if (check < this.inlineLimit) {
      this.onVerdicts([check], [checkInvoiceSignature(invoice) !== undefined]);
      return check;
    }
    this.queued.push(invoice);
    this.queuedChecks.push(check);
    if (this.queued.length >= BATCH_SIZE) this.dispatch();
    return check;
  }

  /** Batches sent and not yet answered: the importer waits when too many pile up. */
  get outstandingBatches(): number {
    return this.pending.size;
  }

  /** Resolves when every submitted check has its verdict. */
  async settle(): Promise<void> {
    this.dispatch();
    while (this.pending.size > 0) {
      if (this.failure !== undefined) throw this.failure;
      await new Promise<void>((resolve) => {
        this.drained = resolve;
      });
    }
    if (this.failure !== undefined) throw this.failure;
  }

  /** Resolves when fewer than `batches` batches are outstanding. */
  async below(batches: number): Promise<void> {
    while (this.pending.size >= batches) {
      if (this.failure !== undefined) throw this.failure;
      await new Promise<void>((resolve) => {
        this.drained = resolve;
      });
    }
  }

  async close(): Promise<void> {
    const exits = this.checkers.filter((checker) => checker.exitCode === null).map((checker) => once(checker, 'exit'));
    for (const checker of this.checkers) if (checker.connected) checker.disconnect();
    await Promise.all(exits);
    this.checkers.length = 0;
  }

  private dispatch(): void {
    if (this.queued.length === 0) return;
    const message: SignatureBatch = { batch: this.nextBatch++, checks: packSignatureChecks(this.queued) };
    const checker = this.leastBusyChecker();
    this.pending.set(message.batch, { checks: this.queuedChecks, checker });
    this.busy.set(checker, (this.busy.get(checker) ?? 0) + 1);
    checker.send(message);
    this.queued = [];
    this.queuedChecks = [];
  }

  private leastBusyChecker(): ChildProcess {
    if (this.checkers.length < this.processes) return this.startChecker();
    return this.checkers.reduce((best, checker) =>
      (this.busy.get(checker) ?? 0) < (this.busy.get(best) ?? 0) ? checker : best,
    );
  }

  private startChecker(): ChildProcess {
    const checker = createCheckerProcess();
    lowerPriority(checker);
    checker.on('message', ({ batch, valid }: SignatureVerdicts) => {
      const sent = this.pending.get(batch);
      if (sent === undefined) return;
      this.pending.delete(batch);
      this.busy.set(sent.checker, (this.busy.get(sent.checker) ?? 1) - 1);
      this.onVerdicts(
        sent.checks,
        Array.from(valid, (verdict) => verdict === 1),
      );
      this.wake();
    });
    checker.on('error', (error) => {
      this.failure = error;
      this.wake();
    });
    checker.on('exit', (code, signal) => {
      if (this.pending.size === 0 && this.queued.length === 0) return;
      this.failure ??= new Error(`a signature checker process stopped (${signal ?? `exit code ${code}`})`);
      this.wake();
    });
    this.checkers.push(checker);
    this.busy.set(checker, 0);
    return checker;
  }

  private wake(): void {
    const drained = this.drained;
    this.drained = undefined;
    drained?.();
  }
}

function lowerPriority(checker: ChildProcess): void {
  if (checker.pid === undefined) return;
  try {
    setPriority(checker.pid, Math.min(MAX_NICENESS, getPriority() + CHECKER_NICENESS_ABOVE_IMPORTER));
  } catch {
    // Where priorities cannot be set, the checkers merely compete with the importer on equal terms.
  }
}

function createCheckerProcess(): ChildProcess {
  const fromSources = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(
    new URL(fromSources ? './signature-checker.ts' : './signature-checker.js', import.meta.url),
  );
  return fork(entry, [], {
    // Structured clone carries the packed checks as bytes; JSON would spell out every byte.
    serialization: 'advanced',
    // Run from the TypeScript sources (tests, tsx), the child needs the same loader.
    execArgv: fromSources ? ['--import', 'tsx'] : [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}
