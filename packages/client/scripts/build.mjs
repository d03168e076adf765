// Builds @lnswap/client from src/client (the one copy of the client, which the provider daemon uses too): an ESM
// bundle per platform with esbuild, the peer dependencies left as imports, and the declarations with the TypeScript
// compiler, the answer types written out plain (expand-views.mjs). The browser bundle must hold no Node module: the
// build fails on one, as a browser would.
import { rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { viewExpander } from './expand-views.mjs';

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
// The declarations are checked and emitted in this process, as `tsc -p tsconfig.json` would, then the views are
// expanded by a second program over response-shapes.ts, with a checker of its own: a checker names union members and
// properties in the order it first met their types, and the views read best in their schemas' order, not in the
// order the whole check left. The second program reuses the first one's parsed files.
const repository = join(packageDirectory, '..', '..');
const { config, error } = ts.readConfigFile(join(packageDirectory, 'tsconfig.json'), ts.sys.readFile);
const { fileNames, options, errors } = ts.parseJsonConfigFileContent(config, ts.sys, packageDirectory);
const host = ts.createCompilerHost(options);
const parsedFiles = new Map();
const parse = host.getSourceFile.bind(host);
host.getSourceFile = (fileName, ...rest) => {
  if (!parsedFiles.has(fileName)) parsedFiles.set(fileName, parse(fileName, ...rest));
  return parsedFiles.get(fileName);
};
const program = ts.createProgram(fileNames, options, host);
const diagnostics = [...(error === undefined ? [] : [error]), ...errors, ...ts.getPreEmitDiagnostics(program)];
const declarationFile = resolve(packageDirectory, 'dist', 'types', 'src', 'wire', 'response-shapes.d.ts');
let views;
const emitted = program.emit(undefined, (fileName, text, writeByteOrderMark) => {
  if (resolve(fileName) === declarationFile) views = text;
  else ts.sys.writeFile(fileName, text, writeByteOrderMark);
});
diagnostics.push(...emitted.diagnostics);
if (diagnostics.length > 0) {
  const formatHost = {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: ts.sys.getCurrentDirectory,
    getNewLine: () => ts.sys.newLine,
  };
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, formatHost));
  process.exit(1);
}
if (views === undefined) throw new Error(`${declarationFile} was not emitted`);
const responseShapes = join(repository, 'src', 'wire', 'response-shapes.ts');
const expandViews = viewExpander(ts.createProgram([responseShapes], options, host), responseShapes);
ts.sys.writeFile(declarationFile, expandViews(views));
