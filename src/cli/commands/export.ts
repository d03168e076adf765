import { HELP_OPTION, parseCommandArgs, printHelp, type Command } from '../command.js';
import { databaseUrlFrom, DEFAULT_DATABASE_URL } from '../settings.js';

export const exportCommand: Command = {
  name: 'export',
  summary: 'write the database as a snapshot to stdout',
  help: `Usage: lnswap export [--db URL]

Writes the whole database as a version-1 snapshot to stdout, one order per line.
export -> import -> export gives the same bytes.

Options:
  --db URL     database (env DATABASE_URL or DATABASE_URL_FILE, default ${DEFAULT_DATABASE_URL})
  -h, --help   show this help
`,
  async run(args, context) {
    const { values } = parseCommandArgs({ args: [...args], options: { db: { type: 'string' }, ...HELP_OPTION } });
    if (values.help) return printHelp(exportCommand, context);
    const databaseUrl = databaseUrlFrom(values.db, context);
    const [{ openStore }, { exportSnapshot }] = await Promise.all([
      import('../../store/open.js'),
      import('../../snapshot/export-snapshot.js'),
    ]);
    const store = await openStore(databaseUrl);
    try {
      await exportSnapshot(store, context.stdout);
      return 0;
    } finally {
      await store.close();
    }
  },
};
