/**
 * Recognising database errors, for both drivers (better-sqlite3's `SQLITE_*` codes,
 * PostgreSQL's SQLSTATEs and node's socket errors): the ones services turn into
 * domain errors, the ones the error handler and `/healthz` explain, the conflicts
 * PostgreSQL transactions are run again after, and the one-line causes printed when
 * the database cannot be used at start-up.
 */

function codeOf (error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' ? code : undefined
}

/** True when `error` is a unique-constraint violation in either dialect. */
export function isUniqueViolation (error: unknown): boolean {
  const code = codeOf(error)
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505'
}

/** True when `error` is a foreign-key violation in either dialect. */
export function isForeignKeyViolation (error: unknown): boolean {
  const code = codeOf(error)
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503'
}

/**
 * True when PostgreSQL aborted the transaction as a deadlock (40P01) or a
 * serialization failure (40001): it was rolled back whole, and running it again
 * from the start may well succeed.
 */
export function isRetryableConflict (error: unknown): boolean {
  const code = codeOf(error)
  return code === '40P01' || code === '40001'
}

/** True when SQLite gave up waiting for a lock another connection holds (any SQLITE_BUSY_* code). */
export function isBusy (error: unknown): boolean {
  return codeOf(error)?.startsWith('SQLITE_BUSY') === true
}

/** True when the database refused a write because it is read-only (a file, or PostgreSQL's read-only transaction). */
export function isReadOnly (error: unknown): boolean {
  const code = codeOf(error)
  return code?.startsWith('SQLITE_READONLY') === true || code === '25006'
}

const CONNECTION_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable'
}

/** True when the database could not be reached, dropped the connection, or stayed busy past the wait budget. */
export function isNotAnswering (error: unknown): boolean {
  const code = codeOf(error) ?? codeOf((error as { errors?: unknown[] } | null)?.errors?.[0])
  return (code !== undefined && code in CONNECTION_FAILURES) || code === '57P01' || isBusy(error)
}

/** Thrown by a health check when the database answers but would refuse a write. */
export class DatabaseNotWritableError extends Error {
  constructor () {
    super('the database is read-only')
  }
}

/** Why the database cannot be used at start-up, in one line for the operator (no stack). */
export class DatabaseStartupError extends Error {}

function firstLine (error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0]?.trim() || (error as Error).name || 'unknown error'
}

/** One line saying why the SQLite file at `path` cannot be used. */
export function describeSqliteError (error: unknown, path: string): string {
  if (isReadOnly(error)) return `database file ${path} is read-only`
  if (isBusy(error)) return `database file ${path} is locked by another process`
  if (codeOf(error)?.startsWith('SQLITE_CANTOPEN') === true) return `cannot open database file ${path}`
  return `database file ${path}: ${firstLine(error)}`
}

/**
 * One line saying why PostgreSQL at `where` (host:port) cannot be used: the socket's
 * failure, or the server's own sentence (`database "x" does not exist`,
 * `role "x" does not exist`, `password authentication failed for user "x"`).
 */
export function describePostgresError (error: unknown, where: string): string {
  // Node reports a host with several addresses (localhost) as an AggregateError.
  const code = codeOf(error) ?? codeOf((error as { errors?: unknown[] } | null)?.errors?.[0])
  const reason = code === undefined ? undefined : CONNECTION_FAILURES[code]
  if (reason !== undefined) return `cannot connect to PostgreSQL at ${where} (${reason})`
  // A SQLSTATE: the server answered, and its message says what is wrong.
  if (code !== undefined && /^[0-9A-Z]{5}$/.test(code)) return firstLine(error)
  return `cannot use PostgreSQL at ${where} (${firstLine(error)})`
}
