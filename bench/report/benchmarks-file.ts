import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const START = '<!-- latest-run:start (written by `npm run bench`) -->';
const END = '<!-- latest-run:end -->';

/** Replaces the "Latest run" section of BENCHMARKS.md, leaving everything written by hand around it alone. */
export function writeLatestRun(file: string, content: string): void {
  const section = `${START}\n${content}\n${END}`;
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const updated =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${section}${current.slice(end + END.length)}`
      : `${current.trimEnd()}\n\n## Latest run\n\n${section}\n`;
  writeFileSync(file, updated);
}
