import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { repositoryPath } from '../support/repository.js';

const CLI_ENTRY = repositoryPath('src', 'cli', 'main.ts');

/** The node options and V8 worker threads of a script started by the kernel through `shebang`. */
function startedThrough(shebang: string): { execArgv: string[]; threads: number } {
  const directory = mkdtempSync(join(tmpdir(), 'lnswap-launcher-'));
  try {
    const script = join(directory, 'probe.mjs');
    writeFileSync(
      script,
      `${shebang}\nimport { readdirSync } from 'node:fs';\n` +
        `setTimeout(() => process.stdout.write(JSON.stringify({ execArgv: process.execArgv, ` +
        `threads: readdirSync('/proc/self/task').length })), 100);\n`,
    );
    chmodSync(script, 0o755);
    const child = spawnSync(script, { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    return JSON.parse(child.stdout) as { execArgv: string[]; threads: number };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

test("the lnswap command starts node with V8's worker pool sized by the cores, not Node's fixed four", () => {
  const shebang = readFileSync(CLI_ENTRY, 'utf8').split('\n', 1)[0]!;
  const lnswap = startedThrough(shebang);
  assert.ok(
    lnswap.execArgv.includes('--v8-pool-size=0'),
    `node options of the lnswap command: ${lnswap.execArgv.join(' ')}`,
  );
  const plainNode = startedThrough('#!/usr/bin/env node');
  assert.equal(plainNode.threads - lnswap.threads, 4 - v8WorkersForTheCores());
});

/** Node's choice under `--v8-pool-size=0`: one worker fewer than the cores it may use, at least one. */
function v8WorkersForTheCores(): number {
  const probe = spawnSync(process.execPath, ['-p', 'require("node:os").availableParallelism()'], { encoding: 'utf8' });
  return Math.max(1, Number(probe.stdout) - 1);
}
