import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { parseArgumentAndDatabase, type Command } from '../command.js';
import { databaseUrlFrom, DEFAULT_DATABASE_URL } from '../settings.js';

export const importCommand: Command = {
  name: 'import',
  summary: 'load a snapshot into the database (all or nothing)',
  help: `Usage: lnswap import FILE|- [--db URL]

Loads a version-1 snapshot (FILE, or - for stdin) in one transaction: every record is checked,
and the first bad one stops the import with nothing written (exit code 1). Orders whose id already
exists are replaced; offered markets and chain views are replaced; providers are upserted.

Options:
  --db URL     database (env DATABASE_URL or DATABASE_URL_FILE, default ${DEFAULT_DATABASE_URL})
  -h, --help   show this help
`,
  async run(args, context) {
    const parsed = parseArgumentAndDatabase(importCommand, args, context, 'snapshot FILE (or - for stdin)');
    if (parsed === undefined) return 0;
    const source = parsed.argument;
    const databaseUrl = databaseUrlFrom(parsed.db, context);

    const input = source === '-' ? context.stdin : await openFile(source);
    const [{ openStore }, { importSnapshot }] = await Promise.all([
      import('../../store/open.js'),
      import('../../snapshot/import-snapshot.js'),
    ]);
    const store = await openStore(databaseUrl);
    try {
      const { orders, providers, markets } = await importSnapshot(store, input);
      const from = source === '-' ? 'stdin' : source;
      context.stdout.write(`imported ${orders} orders, ${providers} providers and ${markets} markets from ${from}\n`);
      return 0;
    } finally {
      await store.close();
    }
  },
};

/** Read a mebibyte at a time: a million-order snapshot is a gigabyte, and every read has its cost. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** Opened before the database, so a mistyped path touches nothing. */
async function openFile(path: string): Promise<Readable> {
  const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
  try {
    await once(stream, 'open');
  } catch (error) {
    throw new Error(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, {
      cause: error,
    });
  }
  return stream;
}
