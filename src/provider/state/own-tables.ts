import Database, { type Database as Db } from 'better-sqlite3';
import { MIGRATIONS } from './schema.js';

/** A state file holding tables the provider never made: another program's database, not to be written into. */
export class ForeignStateFileError extends Error {
  constructor(
    readonly path: string,
    readonly foreignTables: readonly string[],
  ) {
    super(
      `provider state: ${path} holds tables of another program (${foreignTables.join(', ')}); ` +
        'give lnswap provider a file of its own with --state',
    );
    this.name = 'ForeignStateFileError';
  }
}

let ownTables: ReadonlySet<string> | undefined;

/**
 * Every table a provider state file of any schema version has: those left after each migration step, run once
 * on an empty database in memory, so a file of an older version is recognised as the provider's too.
 */
function providerTables(): ReadonlySet<string> {
  if (ownTables !== undefined) return ownTables;
  const scratch = new Database(':memory:');
  try {
    const tables = new Set<string>();
    for (const migration of MIGRATIONS) {
      scratch.exec(migration);
      for (const table of tablesIn(scratch)) tables.add(table);
    }
    ownTables = tables;
    return tables;
  } finally {
    scratch.close();
  }
}

/**
 * Refuses to open `db` as the provider's state when it holds a table the provider never made (the service's own
 * database given as `--state`, say): the migrations would add the provider's tables to it without a word.
 */
export function refuseForeignTables(db: Db, path: string): void {
  const own = providerTables();
  const foreign = tablesIn(db).filter((table) => !own.has(table));
  if (foreign.length > 0) throw new ForeignStateFileError(path, foreign);
}

function tablesIn(db: Db): string[] {
  const rows = db
    .prepare(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
    )
    .all() as { name: string }[];
  return rows.map((row) => row.name);
}
