/**
 * Recognising database errors that services turn into domain errors, for both
 * drivers: better-sqlite3's `SQLITE_CONSTRAINT_*` codes and PostgreSQL's SQLSTATEs.
 */

/** True when `error` is a unique-constraint violation in either dialect. */
export function isUniqueViolation (error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505'
}

/** True when `error` is a foreign-key violation in either dialect. */
export function isForeignKeyViolation (error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503'
}
