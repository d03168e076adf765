import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { checkInvoiceSignature, type ReadInvoice } from '../domain/bolt11-reader.js';
import type { SignatureBatch, SignatureVerdicts } from './signature-worker.js';

/** Invoices sent to a worker at once: large enough that messaging costs little next to the checks. */
const BATCH_SIZE = 256;

/** What each check reported, by the number `submit` gave it. */
export type VerdictListener = (checks: readonly number[], valid: readonly boolean[]) => void;

/**
 * Checks invoice signatures on worker threads while the importer's thread goes on parsing and
 * writing. Small imports never start a worker: below `inlineLimit` checks, each is made on the
 * calling thread as it is submitted, which costs less than starting threads.
 */
export class SignaturePool {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, { checks: number[]; worker: Worker }>();
  private readonly busy = new Map<Worker, number>();
  private queued: ReadInvoice[] = [];
  private queuedChecks: number[] = [];
  private nextCheck = 0;
  private nextBatch = 0;
  private failure: Error | undefined;
  private drained: (() => void) | undefined;

  constructor(
    private readonly onVerdicts: VerdictListener,
    private readonly inlineLimit: number,
    private readonly threads = Math.max(1, availableParallelism()),
  ) {}

  /** The number the next `submit` gives its check. */
  get nextCheckNumber(): number {
    return this.nextCheck;
  }

  /** Queues a check and returns its number; its verdict reaches the listener later, or at once when inline. */
  submit(invoice: ReadInvoice): number {
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
    await Promise.all(this.workers.map((worker) => worker.terminate()));
    this.workers.length = 0;
  }

  private dispatch(): void {
    if (this.queued.length === 0) return;
    const message: SignatureBatch = { batch: this.nextBatch++, invoices: this.queued };
    const worker = this.leastBusyWorker();
    this.pending.set(message.batch, { checks: this.queuedChecks, worker });
    this.busy.set(worker, (this.busy.get(worker) ?? 0) + 1);
    worker.postMessage(message);
    this.queued = [];
    this.queuedChecks = [];
  }

  private leastBusyWorker(): Worker {
    if (this.workers.length < this.threads) return this.startWorker();
    return this.workers.reduce((best, worker) => ((this.busy.get(worker) ?? 0) < (this.busy.get(best) ?? 0) ? worker : best));
  }

  private startWorker(): Worker {
    const worker = createSignatureWorker();
    worker.on('message', ({ batch, valid }: SignatureVerdicts) => {
      const sent = this.pending.get(batch);
      if (sent === undefined) return;
      this.pending.delete(batch);
      this.busy.set(sent.worker, (this.busy.get(sent.worker) ?? 1) - 1);
      this.onVerdicts(sent.checks, valid);
      this.wake();
    });
    worker.on('error', (error) => {
      this.failure = error;
      this.wake();
    });
    this.workers.push(worker);
    this.busy.set(worker, 0);
    return worker;
  }

  private wake(): void {
    const drained = this.drained;
    this.drained = undefined;
    drained?.();
  }
}

function createSignatureWorker(): Worker {
  const entry = new URL(import.meta.url.endsWith('.ts') ? './signature-worker.ts' : './signature-worker.js', import.meta.url);
  if (entry.pathname.endsWith('.js')) return new Worker(entry);
  return new Worker(new URL('./run-typescript-worker.mjs', import.meta.url), {
    workerData: { typescriptEntry: entry.href },
  });
}
