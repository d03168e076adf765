import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseArgs, promisify } from 'node:util';
import { secretFromEnv, urlCarriesCredential } from '../../src/cli/secrets.js';
import { readServeSettings, settingOptions } from '../../src/cli/serve-settings.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { BitcoinTestChain } from '../support/bitcoin-node/chain.js';
import { startTestBitcoinNode, type TestBitcoinNode } from '../support/bitcoin-node/server.js';
import { BITCOIN_VIEW } from '../support/fixtures.js';
import { openFreshStore, postgresReachable, type FreshStore } from '../support/stores.js';
import { readAll, startCli, waitForLine } from '../support/cli/cli-process.js';

const run = promisify(execFile);

let directory: string;
before(async () => {
  directory = await mkdtemp(join(tmpdir(), 'lnswap-secrets-'));
});
after(() => rm(directory, { recursive: true, force: true }));

async function secretFile(name: string, text: string): Promise<string> {
  const path = join(directory, name);
  await writeFile(path, text, { mode: 0o600 });
  return path;
}

test('a secret comes from its variable or from the file its _FILE variable names, not both', async () => {
  const path = await secretFile('password', 'from-the-file\n');
  assert.equal(secretFromEnv('BITCOIN_RPC_PASSWORD', { BITCOIN_RPC_PASSWORD_FILE: path }), 'from-the-file');
  assert.equal(secretFromEnv('BITCOIN_RPC_PASSWORD', { BITCOIN_RPC_PASSWORD: 'direct' }), 'direct');
  assert.equal(secretFromEnv('BITCOIN_RPC_PASSWORD', {}), undefined);
  assert.throws(
    () => secretFromEnv('BITCOIN_RPC_PASSWORD', { BITCOIN_RPC_PASSWORD: 'a', BITCOIN_RPC_PASSWORD_FILE: path }),
    (error: unknown) => error instanceof UsageError && /not both/.test(error.message),
  );
  assert.throws(
    () => secretFromEnv('DATABASE_URL', { DATABASE_URL_FILE: join(directory, 'missing') }),
    (error: unknown) => error instanceof UsageError && /DATABASE_URL_FILE .* \(ENOENT\)/.test(error.message),
  );
});

test('every serve secret reads its _FILE, and a refused one is not repeated in the error', async () => {
  const { values } = parseArgs({ args: [], options: settingOptions() });
  const settings = readServeSettings(values, {
    ETHEREUM_RPC_URL_FILE: await secretFile(
      'ethereum',
      'https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef\n',
    ),
    BITCOIN_RPC_URL_FILE: await secretFile('bitcoin', 'http://127.0.0.1:8332'),
    BITCOIN_RPC_USER_FILE: await secretFile('user', 'lnswap'),
    BITCOIN_RPC_PASSWORD_FILE: await secretFile('bitcoin-password', 'hunter2'),
  });
  assert.equal(settings.ethereum?.rpcUrl, 'https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef');
  assert.deepEqual(settings.bitcoin, {
    rpcUrl: 'http://127.0.0.1:8332',
    rpcUser: 'lnswap',
    rpcPassword: 'hunter2',
    confirmations: 2,
    pollIntervalMs: 10_000,
    mempoolIntervalMs: 2_000,
  });
  assert.throws(
    () => readServeSettings(values, { BITCOIN_ESPLORA_URL: 'ftp://user:hunter2@esplora' }),
    (error: unknown) =>
      error instanceof UsageError &&
      /^BITCOIN_ESPLORA_URL must be/.test(error.message) &&
      !error.message.includes('hunter2'),
  );
});

test('a URL carries a credential when it has a password, a key-like parameter or a key in its path', () => {
  for (const url of [
    'postgres://lnswap:pw@db:5432/lnswap',
    'http://user:pass@127.0.0.1:8332',
    'https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef',
    'https://eth-mainnet.g.alchemy.com/v2/aB3dE5fG7hJ9kL1mN3pQ5rS7',
    'https://node.example/rpc?apikey=abc',
    'https://node.example/rpc?access_token=abc',
  ]) {
    assert.equal(urlCarriesCredential(url), true, url);
  }
  for (const url of [
    'postgres://lnswap@db:5432/lnswap',
    'sqlite:./data/lnswap.sqlite',
    'http://127.0.0.1:8545',
    'https://mempool.space/api',
    'https://blockstream.info/testnet/api',
    'not a url',
  ]) {
    assert.equal(urlCarriesCredential(url), false, url);
  }
});

/** The command lines of a process and everything it started, as any local user sees them with ps. */
async function commandLines(rootPid: number): Promise<string[]> {
  const { stdout } = await run('ps', ['-eo', 'pid=,ppid=,args=']);
  const rows = stdout
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\d+)\s(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map(([, pid, ppid, args]) => ({ pid: Number(pid), ppid: Number(ppid), args: args ?? '' }));
  const family = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) {
      if (family.has(row.ppid) && !family.has(row.pid)) {
        family.add(row.pid);
        grew = true;
      }
    }
  }
  return rows.filter((row) => family.has(row.pid)).map((row) => row.args);
}

function servingUrl(line: string): string | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    return entry.msg === 'lnswap is serving' ? entry.url : undefined;
  } catch {
    return undefined;
  }
}

describe('lnswap serve with its secrets in the environment', () => {
  const databasePassword = 'db-pw-7f3a9c';
  let node: TestBitcoinNode;
  let fresh: FreshStore;
  let databaseUrl: string;

  before(async () => {
    node = await startTestBitcoinNode(new BitcoinTestChain('mainnet', BITCOIN_VIEW.blockHeight));
    fresh = await openFreshStore(postgresReachable ? 'postgres' : 'sqlite');
    const url = new URL(fresh.url);
    // PostgreSQL here trusts every local connection, so any password is let in; it only has to be there.
    if (url.protocol === 'postgres:') {
      url.username ||= userInfo().username;
      url.password = databasePassword;
    }
    databaseUrl = url.toString();
  });
  after(async () => {
    await node?.close();
    await fresh?.dispose();
  });

  /** Starts serve, reads the process list once it serves, and stops it; with everything it wrote on stderr. */
  async function serving(args: string[], env: Record<string, string>): Promise<{ lines: string[]; stderr: string }> {
    const child = startCli(['serve', '--port', '0', ...args], { env });
    const stderr = readAll(child.stderr);
    const closed = once(child, 'close');
    let lines: string[];
    try {
      await waitForLine(child, servingUrl);
      lines = await commandLines(child.pid ?? 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGTERM');
      await closed;
    }
    return { lines, stderr: await stderr };
  }

  test('no secret shows in the process list when they come from variables and files', { timeout: 60_000 }, async () => {
    const passwordFile = await secretFile('node-password', `${node.rpcPassword}\n`);
    const rpcUrl = `http://${new URL(node.rpcUrl).host}/`;
    const { lines, stderr } = await serving([], {
      DATABASE_URL: databaseUrl,
      BITCOIN_RPC_URL: rpcUrl,
      BITCOIN_RPC_USER: node.rpcUser,
      BITCOIN_RPC_PASSWORD_FILE: passwordFile,
    });
    assert.ok(
      lines.some((line) => line.includes('serve')),
      'the serve process is among the lines',
    );
    for (const line of lines) {
      assert.ok(!line.includes(node.rpcPassword), line);
      if (postgresReachable) assert.ok(!line.includes(databasePassword), line);
    }
    assert.ok(
      node.requests.some((request) => request.startsWith('rpc ')),
      'the node was asked, with the password from the file',
    );
    assert.equal(stderr, '', 'no warning');
  });

  test(
    'a credential in a flag still works, but shows in ps, so it is warned of',
    { skip: !postgresReachable && 'needs PostgreSQL for a password', timeout: 60_000 },
    async () => {
      const { lines, stderr } = await serving(['--db', databaseUrl], {});
      assert.ok(
        lines.some((line) => line.includes(databasePassword)),
        'this is what the warning is about',
      );
      assert.match(
        stderr,
        /warning: --db carries a credential, .* pass it in DATABASE_URL or DATABASE_URL_FILE instead/,
      );
      assert.ok(!stderr.includes(databasePassword), 'the warning does not repeat it');
    },
  );
});
