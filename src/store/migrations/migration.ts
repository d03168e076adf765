/** One step of a database schema; `version`s ascend, and a step once released never changes. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
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
