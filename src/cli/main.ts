#!/usr/bin/env -S node --v8-pool-size=0
import { runCommandLine } from './command-line.js';

/** Exits once stdout has taken everything written to it; a pipe may still be draining. */
function exitWhenFlushed(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

const code = await runCommandLine(process.argv.slice(2), {
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});
exitWhenFlushed(code);
