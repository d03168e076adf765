import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { test } from 'node:test';
import { repositoryPath } from '../support/repository.js';

/** The pages whose walks a reader follows file by file: every file and code name they cite must exist. */
const CHECKED_PAGES = ['docs/architecture.md', 'docs/provider.md'];
/** Where a code name may be defined. */
const CODE_FOLDERS = ['src', 'test', 'bench', 'scripts', 'examples', 'web', 'contracts'];
/** Folders of the repository a page may cite by name alone (`claims/`). */
const IGNORED_FOLDERS = new Set(['node_modules', 'build', 'dist', '.git']);

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    if (IGNORED_FOLDERS.has(name)) return [];
    const path = join(folder, name);
    return statSync(path).isDirectory() ? [path, ...filesUnder(path)] : [path];
  });
}

const repositoryFiles = filesUnder(repositoryPath());
const basenames = new Set(repositoryFiles.map((path) => basename(path)));
const codeText = CODE_FOLDERS.flatMap((folder) =>
  filesUnder(repositoryPath(folder)).filter((path) => /\.(ts|js|mjs|sol)$/.test(path)),
)
  .map((path) => readFileSync(path, 'utf8'))
  .join('\n');

/** A cited file: a path with an extension, or a folder ending in `/`; globs and URLs are not checked. */
function citedPath(token: string): string | undefined {
  if (token.includes('*') || token.includes(' ') || token.startsWith('/') || token.includes(':')) return undefined;
  return /^[\w.-]+(\/[\w.-]+)*\/?$/.test(token) &&
    /(\.(ts|js|mjs|cjs|json|md|sol|yaml|yml|html|css|sql)|\/)$/.test(token)
    ? token
    : undefined;
}

/** A cited code name: `buildEngine`, `OrderTransitions.apply`, `ORDER_STATES` (words with a capital or an underscore inside). */
function citedNames(token: string): string[] {
  if (!/^[A-Za-z_][\w.]*$/.test(token)) return [];
  return token.split('.').filter((part) => /^[a-z]+[A-Z]\w*$|^[A-Z][a-z0-9]+[A-Z]\w*$|^[A-Z]+_[A-Z_]+$/.test(part));
}

function pathExists(path: string): boolean {
  const bare = path.replace(/\/$/, '');
  if (existsSync(repositoryPath(bare))) return true;
  if (!bare.includes('/')) return basenames.has(bare);
  return repositoryFiles.some((file) => file.endsWith(`/${bare}`));
}

for (const page of CHECKED_PAGES) {
  test(`${page} cites only files and code names that exist`, () => {
    const tokens = [...readFileSync(repositoryPath(page), 'utf8').matchAll(/`([^`\n]+)`/g)].map(
      (match) => match[1] ?? '',
    );
    const missing = new Set<string>();
    for (const token of tokens) {
      const path = citedPath(token);
      if (path !== undefined && !pathExists(path)) missing.add(`file ${path}`);
      for (const name of citedNames(token)) {
        if (!new RegExp(`\\b${name}\\b`).test(codeText)) missing.add(`name ${name}`);
      }
    }
    assert.deepEqual([...missing], [], `${page} cites what the repository does not have`);
    assert.ok(tokens.length > 50, `${page} was read (${tokens.length} code spans)`);
  });
}
