import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium package; `.ci/run` installs it when it is missing. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** For node:test: the browser tests need a real Chromium, and say so when there is none. */
export function chromiumSkipReason(): string | false {
  return existsSync(CHROMIUM_PATH)
    ? false
    : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;
}

/** Quiet and self-contained: no GPU, no sandbox (CI runs as root), nothing fetched from Google's servers. */
const ARGUMENTS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface Chromium {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium on a fresh profile directory, removed on close. */
export async function launchChromium(
  viewport = { width: 1024, height: 900 },
  deviceScaleFactor = 1,
): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), 'lnswap-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ARGUMENTS,
      viewport,
      deviceScaleFactor,
      locale: 'en-GB',
      timezoneId: 'UTC',
    });
    return {
      context,
      async close() {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(profile, { recursive: true, force: true });
    throw error;
  }
}
