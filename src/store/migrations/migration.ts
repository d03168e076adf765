/** One step of a database schema; `version`s ascend, and a step once released never changes. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** Data the step cannot take: each row this query returns is named by `explain` and the step is refused. */
  readonly refuseWhen?: MigrationPrecondition;
}

export interface MigrationPrecondition {
  readonly query: string;
  explain(rows: readonly Record<string, unknown>[]): string;
}

/** Thrown instead of applying a step the data cannot take; nothing of that step is written. */
export class MigrationRefused extends Error {
  constructor(migration: Migration, reason: string) {
    super(`Cannot apply database migration ${migration.version} (${migration.name}): ${reason}`);
    this.name = 'MigrationRefused';
  }
}

export function refusalFor(
  migration: Migration,
  rows: readonly Record<string, unknown>[],
): MigrationRefused | undefined {
  if (migration.refuseWhen === undefined || rows.length === 0) return undefined;
  return new MigrationRefused(migration, migration.refuseWhen.explain(rows));
}

/** The migrations still to apply, in order; refuses a database written by a newer lnswap. */
export function pendingMigrations(migrations: readonly Migration[], applied: readonly number[]): Migration[] {
  const known = new Set(migrations.map((migration) => migration.version));
  const unknown = applied.filter((version) => !known.has(version));
  if (unknown.length > 0) {
    throw new Error(
      `Database has schema version ${Math.max(...unknown)}, which this lnswap does not know: upgrade lnswap`,
    );
  }
  const done = new Set(applied);
  return migrations.filter((migration) => !done.has(migration.version));
}
