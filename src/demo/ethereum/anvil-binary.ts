import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The npm package that carries Anvil; an optional dependency, only published for linux-amd64 here. */
export const ANVIL_PACKAGE = '@foundry-rs/anvil-linux-amd64';

/**
 * The path of an executable Anvil: the one named by ANVIL_BINARY when set (a Foundry install on
 * another platform), else the optional npm package's. Undefined when there is none, so callers
 * can fall back (the demo serves its static snapshot, chain tests are skipped).
 */
export function locateAnvilBinary(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const override = env.ANVIL_BINARY;
  if (override !== undefined && override !== '') return isExecutable(override) ? override : undefined;
  try {
    const manifest = createRequire(import.meta.url).resolve(`${ANVIL_PACKAGE}/package.json`);
    const binary = join(dirname(manifest), 'bin', 'anvil');
    return isExecutable(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
