import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The `lnswap` command as the package installs it. */
export const BUILT_CLI_ENTRY = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'main.js');

function newestModification(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce(
    (newest, name) => Math.max(newest, newestModification(join(path, name))),
    stats.mtimeMs,
  );
}

/**
 * The bench's servers run from dist/, as an operator runs them, so dist/ is rebuilt whenever
 * src/ is newer than it.
 */
export function ensureBuilt(log: (message: string) => void): void {
  const inputs = ['src', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((name) =>
    join(PROJECT_ROOT, name),
  );
  const sourceTime = Math.max(...inputs.filter(existsSync).map(newestModification));
  if (existsSync(BUILT_CLI_ENTRY) && statSync(BUILT_CLI_ENTRY).mtimeMs >= sourceTime) return;
  log('dist/ is missing or older than src/: running `npm run build`');
  const build = spawnSync('npm', ['run', 'build'], { cwd: PROJECT_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (build.status === 0) return;
  if (!existsSync(BUILT_CLI_ENTRY)) throw new Error('`npm run build` failed and produced no dist/src/cli/main.js');
  log('WARNING: `npm run build` reported errors; using the JavaScript it emitted anyway');
}
