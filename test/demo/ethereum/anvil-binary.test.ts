import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { locateAnvilBinary } from '../../../src/demo/ethereum/anvil-binary.js';

describe('locateAnvilBinary', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'lnswap-anvil-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  test('ANVIL_BINARY names an executable to use instead of the npm package', async () => {
    const executable = join(directory, 'anvil');
    await writeFile(executable, '#!/bin/sh\n', { mode: 0o755 });
    assert.equal(locateAnvilBinary({ ANVIL_BINARY: executable }), executable);
  });

  test('is undefined when ANVIL_BINARY is missing or not executable, never a path that cannot run', async () => {
    const plain = join(directory, 'not-executable');
    await writeFile(plain, '', { mode: 0o644 });
    assert.equal(locateAnvilBinary({ ANVIL_BINARY: plain }), undefined);
    assert.equal(locateAnvilBinary({ ANVIL_BINARY: join(directory, 'absent') }), undefined);
  });

  // npm installs the optional dependency on this platform only; elsewhere the absence is expected.
  const packagedPlatform = process.platform === 'linux' && process.arch === 'x64';
  test("finds the optional npm package's executable on linux-x64", { skip: !packagedPlatform }, () => {
    const found = locateAnvilBinary({});
    assert.ok(found !== undefined, 'the optional dependency @foundry-rs/anvil-linux-amd64 is not installed');
    assert.match(found, /@foundry-rs\/anvil-linux-amd64\/bin\/anvil$/);
  });
});
