import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Bytes gathered before handing them to the stream: one write per order would be a million syscalls. */
const FLUSH_AT_CHARACTERS = 64 * 1024;

/**
 * Writes text to a stream in large pieces and waits whenever the stream asks it to (backpressure),
 * so a slow reader never makes the writer buffer the whole output. A stream error (a closed pipe)
 * surfaces as a rejected write instead of an unhandled 'error' event.
 */
export class BufferedWriter {
  private pending = '';
  private failure: Error | undefined;
  private readonly recordFailure = (error: Error): void => {
    this.failure ??= error;
  };

  constructor(private readonly output: Writable) {
    output.on('error', this.recordFailure);
  }

  async write(text: string): Promise<void> {
    this.pending += text;
    if (this.pending.length >= FLUSH_AT_CHARACTERS) await this.flush();
  }

  async flush(): Promise<void> {
    this.throwIfFailed();
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    if (!this.output.write(text)) await once(this.output, 'drain');
    // The stream may have failed while this waited for it to drain.
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Stops listening to the stream; the caller still owns (and ends) it. */
  release(): void {
    this.output.off('error', this.recordFailure);
  }
}
