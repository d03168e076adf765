// Builds @lnswap/client from src/client (the one copy of the client, which the provider daemon uses too): an ESM
// bundle per platform with esbuild, the peer dependencies left as imports, and the declarations with tsc, the
// answer types written out plain (expand-views.mjs). The browser bundle must hold no Node module: the build fails
// on one, as a browser would.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { expandViews } from './expand-views.mjs';

const packageDirectory = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(packageDirectory, '..', '..', 'src', 'client', 'index.ts');
const PEERS = ['bitcoinjs-lib', 'socket.io-client', 'viem', 'viem/*'];

rmSync(join(packageDirectory, 'dist'), { recursive: true, force: true });
for (const platform of ['browser', 'node']) {
  await build({
    entryPoints: [entry],
    outfile: join(packageDirectory, 'dist', platform, 'index.js'),
    bundle: true,
    format: 'esm',
    platform,
    target: platform === 'browser' ? 'es2022' : 'node20',
    external: PEERS,
    sourcemap: true,
    logLevel: 'error',
  });
}
const tsc = spawnSync(
  process.execPath,
  [
    join(packageDirectory, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    join(packageDirectory, 'tsconfig.json'),
  ],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
const repository = join(packageDirectory, '..', '..');
const { config } = ts.readConfigFile(join(repository, 'tsconfig.json'), ts.sys.readFile);
const { options } = ts.parseJsonConfigFileContent(config, ts.sys, repository);
expandViews(
  join(repository, 'src', 'wire', 'response-shapes.ts'),
  join(packageDirectory, 'dist', 'types', 'src', 'wire', 'response-shapes.d.ts'),
  options,
);
