import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { finished, runCli, runInProcess, startCli } from '../support/cli/cli-process.js';
import { openFreshStore, skipReason, STORE_KINDS, type FreshStore } from '../support/stores.js';
import { render, validDocument } from '../support/snapshot/snapshot-fixtures.js';

let directory: string;
let snapshotFile: string;

before(async () => {
  directory = await mkdtemp(join(tmpdir(), 'lnswap-cli-'));
  snapshotFile = join(directory, 'snapshot.json');
  await writeFile(snapshotFile, render(validDocument()));
});
after(() => rm(directory, { recursive: true, force: true }));

for (const kind of STORE_KINDS) {
  describe(`lnswap import and export on ${kind}`, { skip: skipReason(kind) }, () => {
    let source: FreshStore;
    let target: FreshStore;
    before(async () => {
      source = await openFreshStore(kind);
      target = await openFreshStore(kind);
    });
    after(async () => {
      await source.dispose();
      await target.dispose();
    });

    test('lnswap export | lnswap import - round-trips byte for byte', async () => {
      const imported = await runInProcess(['import', snapshotFile, '--db', source.url]);
      assert.equal(imported.code, 0, imported.stderr);
      assert.equal(imported.stdout, `imported 3 orders, 2 providers and 2 markets from ${snapshotFile}\n`);

      const exporter = startCli(['export', '--db', source.url]);
      const importer = startCli(['import', '-', '--db', target.url]);
      exporter.stdout.pipe(importer.stdin);
      const [exported, piped] = await Promise.all([finished(exporter), finished(importer)]);
      assert.equal(exported.code, 0, exported.stderr);
      assert.equal(piped.code, 0, piped.stderr);
      assert.equal(piped.stdout, 'imported 3 orders, 2 providers and 2 markets from stdin\n');

      const first = await runInProcess(['export', '--db', source.url]);
      const second = await runInProcess(['export'], { env: { DATABASE_URL: target.url } });
      assert.equal(first.code, 0, first.stderr);
      assert.equal(second.code, 0, second.stderr);
      assert.ok(first.stdout.length > 1000);
      assert.equal(second.stdout, first.stdout);
    });

    test('a bad snapshot exits 1 with a one-line error and changes nothing', async () => {
      const before_ = await runInProcess(['export', '--db', target.url]);
      const document = validDocument();
      document.orders[2]!.payToAddress = 'nowhere';
      const bad = join(directory, `bad-${kind}.json`);
      await writeFile(bad, render(document));

      const result = await runInProcess(['import', bad, '--db', target.url]);
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.match(
        result.stderr,
        new RegExp(
          `^lnswap import: orders\\[2\\] \\(id ${document.orders[2]!.id as string}\\): payToAddress: not an Ethereum address\\n$`,
        ),
      );
      assert.equal((await runInProcess(['export', '--db', target.url])).stdout, before_.stdout);
    });

    test('an amount, a payment requirement or a NUL PostgreSQL cannot hold is refused at validation, as on every store', async () => {
      const before_ = await runInProcess(['export', '--db', target.url]);
      const orderId = validDocument().orders[1]!.id as string;
      const cases: [damage: (document: ReturnType<typeof validDocument>) => void, message: string][] = [
        [
          (d) => (d.orders[1]!.amount = `1${'0'.repeat(400)}`),
          `orders[1] (id ${orderId}): amount: must be at most 2^256 - 1 base units (the largest uint256)`,
        ],
        [
          (d) =>
            ((d.providers[0]!.markets as Record<string, Record<string, string>>).BTC_LBTC!.maxBaseUnits = '9'.repeat(
              5_000,
            )),
          'providers[0] (id maker-a): markets.BTC_LBTC.maxBaseUnits: must be at most 2^256 - 1 base units (the largest uint256)',
        ],
        [(d) => (d.providers[1]!.id = 'maker\u0000b'), 'providers[1]: id: must not contain a NUL character'],
      ];
      for (const [index, [damage, message]] of cases.entries()) {
        const document = validDocument();
        damage(document);
        const bad = join(directory, `unholdable-${kind}-${index}.json`);
        await writeFile(bad, render(document));
        const result = await runInProcess(['import', bad, '--db', target.url]);
        assert.equal(result.code, 1, message);
        assert.equal(result.stderr, `lnswap import: ${message}\n`);
      }
      assert.equal((await runInProcess(['export', '--db', target.url])).stdout, before_.stdout);
    });

    test('a snapshot that cannot be read exits 1 and changes nothing', async () => {
      const before_ = await runInProcess(['export', '--db', target.url]);
      const result = await runInProcess(['import', join(directory, 'missing.json'), '--db', target.url]);
      const truncated = await runInProcess(['import', '-', '--db', target.url], {
        input: render(validDocument()).slice(0, 500),
      });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^lnswap import: cannot read .*missing\.json: ENOENT\n$/);

      assert.equal(truncated.code, 1);
      assert.match(truncated.stderr, /^lnswap import: .*not valid JSON.*\n$/);
      assert.equal((await runInProcess(['export', '--db', target.url])).stdout, before_.stdout);
    });
  });
}

describe('lnswap command line', () => {
  test('--help prints the commands; each command has its own help', async () => {
    const [help, importHelp] = await Promise.all([runCli(['--help']), runCli(['import', '--help'])]);
    assert.equal(help.code, 0);
    for (const command of ['serve', 'import', 'export', 'demo'])
      assert.match(help.stdout, new RegExp(`^  ${command} `, 'm'));
    assert.equal(importHelp.code, 0);
    assert.match(importHelp.stdout, /^Usage: lnswap import FILE\|- \[--db URL\]/);
  });

  test('an unknown command, flag or bad value is a one-line error with a hint, exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['launch'], /^lnswap: unknown command "launch" \(run lnswap --help for usage\)\n$/],
      [['export', '--verbose'], /^lnswap export: Unknown option '--verbose' \(run lnswap export --help for usage\)\n$/],
      [
        ['import'],
        /^lnswap import: missing the snapshot FILE \(or - for stdin\) \(run lnswap import --help for usage\)\n$/,
      ],
      [
        ['serve', '--port', 'http'],
        /^lnswap serve: --port must be a port number from 0 to 65535, not "http" \(run lnswap serve --help for usage\)\n$/,
      ],
      [
        ['serve', '--response-cache-mb', '1.5'],
        /^lnswap serve: --response-cache-mb must be a whole number of megabytes, not "1.5" \(run lnswap serve --help for usage\)\n$/,
      ],
      [
        ['demo', '--db', 'sqlite::memory:'],
        /^lnswap demo: Unknown option '--db' \(run lnswap demo --help for usage\)\n$/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runInProcess(args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, message);
    }
    // The process exits with the code the command line returned.
    const spawned = await runCli(cases[0]![0]);
    assert.equal(spawned.code, 2);
    assert.match(spawned.stderr, cases[0]![1]);
  });

  test('an unusable database URL exits 1 naming the problem', async () => {
    const result = await runCli(['export', '--db', 'mysql://localhost/lnswap']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^lnswap export: Unsupported database URL scheme "mysql:".*\n$/);
  });
});
