/**
 * Pay page modules that import the client library's TypeScript, loaded as the pay page's bundle takes them: esbuild
 * bundles them with the parts of src/ they import into one module (packages left to Node), so they load the same
 * from source and from the test runner's build/ (where web/ is not transpiled), and share one copy of the client
 * library, whose classes `instanceof` then recognises.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { repositoryPath } from './repository.js';

/**
 * One module exporting everything `files` (paths under web/pay/) export, and the client library's
 * `clientExports` from the same copy of the library those files use.
 */
export async function loadPayPageModules<T>(files: readonly string[], clientExports: readonly string[]): Promise<T> {
  const contents = [
    ...files.map((file) => `export * from './${file}';`),
    `export { ${clientExports.join(', ')} } from '../../src/client/index.js';`,
  ].join('\n');
  const result = await build({
    stdin: { contents, resolveDir: repositoryPath('web', 'pay'), sourcefile: 'pay-page-modules.js' },
    bundle: true,
    packages: 'external',
    external: ['/assets/*'],
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]!.text;
  // Beside the repository's node_modules, so that the packages left out resolve as they do for the page's files.
  const directory = repositoryPath('node_modules', '.cache', 'lnswap-pay-page-modules');
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`);
  writeFileSync(path, text);
  return (await import(pathToFileURL(path).href)) as T;
}
