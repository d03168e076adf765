import { readFileSync } from 'node:fs';
import { CLI_ENTRY } from './settings.js';

const SHEBANG = /^#!\/usr\/bin\/env -S node((?: \S+)*)$/;

/**
 * The arguments to `node` that run `lnswap <args>` as the installed command does: the node options of its
 * shebang (`src/cli/main.ts`), then the built entry point. Measured as a bare `node main.js`, the server would
 * run without them (V8's worker pool sized by the cores, docs/operations.md), as no operator's does.
 */
export function lnswapCommand(...args: string[]): string[] {
  const firstLine = readFileSync(CLI_ENTRY, 'utf8').split('\n', 1)[0] ?? '';
  const shebang = SHEBANG.exec(firstLine);
  if (shebang === null) throw new Error(`${CLI_ENTRY} does not start with #!/usr/bin/env -S node: ${firstLine}`);
  const nodeOptions = shebang[1]!.split(' ').filter((option) => option !== '');
  return [...nodeOptions, CLI_ENTRY, ...args];
}
