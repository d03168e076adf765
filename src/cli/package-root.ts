import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The installed package's own directory, found by walking up from this file to lnswap's
 * package.json: the same answer from src/cli (tsx) and from dist/src/cli (built), whatever the cwd.
 */
export function packageRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'lnswap') {
      return directory;
    }
    const parent = dirname(directory);
    if (parent === directory) throw new Error('cannot find the lnswap package directory');
    directory = parent;
  }
}
