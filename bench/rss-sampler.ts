import { readFileSync } from 'node:fs';

const SAMPLE_EVERY_MS = 200;

/** Keeps the largest resident set size of a process, read from /proc/<pid>/status while it runs. */
export class RssSampler {
  private maxKilobytes = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), SAMPLE_EVERY_MS);
  }

  get maxMegabytes(): number {
    return Math.round(this.maxKilobytes / 1024);
  }

  stop(): number {
    clearInterval(this.timer);
    this.sample();
    return this.maxMegabytes;
  }

  private sample(): void {
    let status: string;
    try {
      status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    } catch {
      return; // The process has exited; what was seen so far stands.
    }
    const match = /^VmRSS:\s+(\d+) kB/m.exec(status);
    if (match) this.maxKilobytes = Math.max(this.maxKilobytes, Number(match[1]));
  }
}
