/**
 * A child process of the import: checks batches of invoice signatures, the one step of validating
 * an order that costs more than everything else together (a key recovery's curve arithmetic each).
 * A process, not a worker thread: the native secp256k1 binding keeps per-process state that breaks
 * (a double free) when it is loaded by several threads and one of them ends.
 *
 * Batches are queued here as they arrive and checked one per turn of the event loop, so the pipe
 * from the importer keeps being emptied: while the importer is busy with work that does not yield
 * (rebuilding indexes), this process still has a backlog to check.
 */
import { checkPackedSignatures, type SignatureBatch, type SignatureVerdicts } from './signature-batch.js';
import { fastestRecovery } from './signer-recovery.js';

const recover = fastestRecovery();

const queue: SignatureBatch[] = [];

function checkNextBatch(): void {
  const next = queue.shift();
  if (next === undefined) return;
  const verdicts: SignatureVerdicts = { batch: next.batch, valid: checkPackedSignatures(next.checks, recover) };
  process.send?.(verdicts);
  if (queue.length > 0) setImmediate(checkNextBatch);
}

process.on('message', (batch: SignatureBatch) => {
  queue.push(batch);
  if (queue.length === 1) setImmediate(checkNextBatch);
});
// The importer ends the batch work by disconnecting; so does its exit, however it happens.
process.on('disconnect', () => process.exit(0));
