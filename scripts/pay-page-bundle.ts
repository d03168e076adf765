/**
 * The pay page's bundle: web/pay/main.js and what it imports (the tracker's modules, the client library of
 * src/client with socket.io-client, viem's encoders and bitcoinjs-lib, light-bolt11-decoder) as one minified
 * file, web/pay.js, committed so the service serves it without esbuild. The browser libraries the tracker already
 * serves stay imports of /assets/. test/web/pay-page-bundle.test.ts holds the committed file equal to a fresh build.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { packageRoot } from '../src/cli/package-root.js';

const repositoryRoot = packageRoot();

export const PAY_PAGE_BUNDLE = join(repositoryRoot, 'web', 'pay.js');

/** The bundle's text, built in memory. */
export async function buildPayPage(): Promise<string> {
  const result = await build({
    entryPoints: [join(repositoryRoot, 'web', 'pay', 'main.js')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    external: ['/assets/*'],
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    banner: { js: '// Built by `npm run build:pay-page` from web/pay/: edit those files, not this one.' },
  });
  return result.outputFiles[0]!.text;
}
