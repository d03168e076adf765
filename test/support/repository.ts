// Tests run in two forms: transpiled under build/ by `npm test` (scripts/run-tests.mjs), or as TypeScript through
// tsx when a developer runs one file directly. These find the repository's files, and start its programs, the same
// way from both.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../src/cli/package-root.js';

/** A file or folder of the repository (not of build/), from the repository's root. */
export function repositoryPath(...segments: string[]): string {
  return join(packageRoot(), ...segments);
}

/**
 * The node arguments that run a program of the repository in the form the calling test runs in. `path` is relative
 * to `from`, the caller's `import.meta.url`, and names the program without its extension: `.js` beside a transpiled
 * test, `.ts` through tsx beside a TypeScript one.
 */
export function programArgs(from: string, path: string): string[] {
  if (!from.endsWith('.ts')) return [fileURLToPath(new URL(`${path}.js`, from))];
  return ['--import', import.meta.resolve('tsx'), fileURLToPath(new URL(`${path}.ts`, from))];
}
