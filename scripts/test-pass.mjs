// One pass of run-tests.mjs: runs the test files named after the two leading arguments, in the order given
// (`node --test` would sort them by name), CONCURRENCY at a time, each in its own process that inherits this
// one's `--import tsx`. TAP goes to stdout; each file's time goes to DURATIONS_LOG as a JSON line
// `{"file":PATH,"ms":DURATION}`, PATH relative to the working directory. Exits 1 when any test fails.
// Usage: node --import tsx scripts/test-pass.mjs CONCURRENCY DURATIONS_LOG FILE...
import { createWriteStream } from 'node:fs';
import { relative, resolve } from 'node:path';
import { run } from 'node:test';
import { tap } from 'node:test/reporters';

const [concurrency, durationsLog, ...files] = process.argv.slice(2);
const durations = createWriteStream(durationsLog);
const stream = run({ files, concurrency: Number(concurrency) });
stream.on('test:fail', ({ todo, skip }) => {
  if (todo === undefined && skip === undefined) process.exitCode = 1;
});
stream.on('test:complete', ({ nesting, name, file, details }) => {
  // The runner reports each file's process as a top-level test named after the file.
  if (nesting !== 0 || file === undefined || resolve(name) !== file) return;
  durations.write(`${JSON.stringify({ file: relative(process.cwd(), file), ms: Math.round(details.duration_ms) })}\n`);
});
stream.on('end', () => durations.end());
stream.compose(tap).pipe(process.stdout);
