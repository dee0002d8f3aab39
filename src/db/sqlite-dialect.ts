/**
 * SQLite through better-sqlite3: Kysely's stock dialect (used for migrations) and
 * the synchronous work runner that every request uses, with a bounded
 * prepared-statement cache. A unit of work runs inside one `BEGIN IMMEDIATE`
 * transaction, its statements executed synchronously, so a writer never fails on a
 * lock upgrade; the writes of one event-loop turn share that transaction's commit
 * (group commit). The connection is one lane: a group of writes or a read holds it
 * until done, and the others wait their turn in order. Short work runs at once, in
 * the caller's turn; work longer than a slice (SLICE_MS) lets the event loop turn
 * between its statements, its transaction kept open and the lane held, so a large
 * apply or batch never holds every other request (/healthz answers; ping() returns
 * at once while a transaction is open).
 *
 * Waiting for a lock that another process holds (an operator's `sqlite3` shell, a
 * backup) must not block the event loop: once serving, SQLite's own (synchronous)
 * busy wait is a few milliseconds, and work that found the database busy is run
 * again after a short, growing delay, until BUSY_BUDGET_MS is spent.
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3'
import { Kysely, SqliteDialect, type Compilable } from 'kysely'
import { DatabaseNotWritableError, isBusy, isReadOnly } from './errors.js'
import { groupCommit } from './sqlite-group-commit.js'
import { BUSY_BUDGET_MS, createLane, drive, retryDelay, transactionControl } from './sqlite-lane.js'
import type { Database, Db } from './types.js'
import type { Effects, Work, WorkRunner } from './work.js'

export { BUSY_BUDGET_MS } from './sqlite-lane.js'

const STATEMENT_CACHE_SIZE = 500

/** SQLite's own, synchronous busy wait once requests are served: short, as it blocks the event loop. */
const SERVING_BUSY_TIMEOUT_MS = 5

/**
 * Throws what a write would meet, writing nothing: SQLITE_READONLY… when the database
 * refuses writes, SQLITE_BUSY when another connection holds the write lock past the
 * busy timeout. (`BEGIN IMMEDIATE` alone succeeds on a read-only file: only a page
 * write fails, so the header's user_version is rewritten as it is, then rolled back.)
 */
export function probeWrite (database: SqliteDatabase): void {
  // Inside a transaction of Kysely's (migrations), the connection is in use: nothing to probe.
  if (database.inTransaction) return
  database.prepare('BEGIN IMMEDIATE').run()
  try {
    const version = Number(database.pragma('user_version', { simple: true }))
    database.pragma(`user_version = ${version}`)
  } finally {
    // Some errors roll the transaction back themselves.
    if (database.inTransaction) database.prepare('ROLLBACK').run()
  }
}

/** Prepares statements once per SQL text. */
function statementCache (database: SqliteDatabase): (sqlText: string) => Statement {
  const cache = new Map<string, Statement>()
  return (sqlText) => {
    let statement = cache.get(sqlText)
    if (statement === undefined) {
      // Queries are built from code, so the set of distinct texts is small;
      // the bound only guards against a builder that inlines values.
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear()
      statement = database.prepare(sqlText)
      cache.set(sqlText, statement)
    }
    return statement
  }
}

/**
 * A reader statement in raw (array) mode, with the row objects built in JS from
 * its column names: better-sqlite3 builds objects through V8's C++ API property
 * by property, which costs about twice as much per row.
 */
interface Reader {
  readonly statement: Statement
  readonly columns: readonly string[]
}

function readRows ({ statement, columns }: Reader, parameters: unknown[]): Array<Record<string, unknown>> {
  const rows = statement.all(parameters) as unknown[][]
  const objects = new Array<Record<string, unknown>>(rows.length)
  for (let r = 0; r < rows.length; r++) {
    const values = rows[r] as unknown[]
    const row: Record<string, unknown> = {}
    for (let c = 0; c < columns.length; c++) row[columns[c] as string] = values[c]
    objects[r] = row
  }
  return objects
}

/** The Kysely handle, the work runner and the health check over one open better-sqlite3 database. */
export interface SqliteRunner extends WorkRunner {
  readonly db: Db
  /**
   * Resolves when the database would take a write (or another process holds the write
   * lock: it is writable, just busy); rejects with DatabaseNotWritableError when it is
   * read-only, with the driver's error when it cannot be used. Once serving, it waits
   * a few milliseconds at most for a lock.
   */
  ping(): Promise<void>
  /** Start-up is over: from now on lock waits yield to the event loop (see the header). */
  serve(): void
  /**
   * A token that differs whenever the database may have changed since it was last
   * taken: `PRAGMA data_version` (moves when another connection commits) with
   * `total_changes()` (moves with every row this connection writes).
   */
  changeToken(): string
}

/** Runs one statement of a unit and answers its rows (none for a statement that returns none). */
function statementRunner (database: SqliteDatabase): (query: Compilable<unknown>) => unknown[] {
  const prepare = statementCache(database)
  const readers = new WeakMap<Statement, Reader>()
  return (query) => {
    const { sql, parameters } = query.compile()
    const statement = prepare(sql)
    if (!statement.reader) {
      statement.run(parameters as unknown[])
      return []
    }
    let reader = readers.get(statement)
    if (reader === undefined) {
      reader = { statement: statement.raw(true), columns: statement.columns().map((c) => c.name) }
      readers.set(statement, reader)
    }
    return readRows(reader, parameters as unknown[])
  }
}

/** The Kysely handle and the work runner over one open better-sqlite3 database. */
export function createSqliteRunner (database: SqliteDatabase): SqliteRunner {
  // Kysely (migrations) gets its own statements: the runner's are switched to raw mode.
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database })
  })
  const execute = statementRunner(database)
  const control = transactionControl(database)
  const lane = createLane()
  const run = <T>(work: Work<T>, effects: Effects | undefined) => drive(work, execute, effects, lane.spent)
  // Two statements: the pragma read through pragma_data_version() in one SELECT costs twice as much.
  const dataVersion = database.prepare('PRAGMA data_version').pluck()
  const totalChanges = database.prepare('SELECT total_changes()').pluck()
  const writes = groupCommit(database, control, lane, (db, work, effects) => run(work(db), effects), db)

  // Reads rarely meet a lock in WAL mode (a reader waits only for another process's
  // WAL recovery or exclusive locking mode); read work has no other effect, so it is
  // simply run again, from a fresh generator, after a short delay.
  function * readTask<T> (work: (db: Db) => Work<T>, resolve: (value: T) => void, reject: (error: unknown) => void, retry: number, deadline?: number): Generator<void, void, void> {
    let nested: boolean | undefined
    try {
      nested = control.begin(false)
      const value = yield * run(work(db), undefined)
      control.commit(nested)
      resolve(value)
    } catch (error) {
      if (nested !== undefined) control.rollback(nested)
      const now = Date.now()
      const until = deadline ?? now + BUSY_BUDGET_MS
      if (!isBusy(error) || now >= until) return reject(error)
      setTimeout(() => { lane.enter(readTask(work, resolve, reject, retry + 1, until)) }, retryDelay(retry))
    }
  }

  return {
    db,
    transact: writes.transact,
    read: async <T>(work: (db: Db) => Work<T>) => await new Promise<T>((resolve, reject) => { lane.enter(readTask(work, resolve, reject, 0)) }),
    ping: async () => {
      try {
        probeWrite(database)
      } catch (error) {
        if (isBusy(error)) return
        if (isReadOnly(error)) throw new DatabaseNotWritableError()
        throw error
      }
    },
    serve: () => { database.pragma(`busy_timeout = ${SERVING_BUSY_TIMEOUT_MS}`) },
    changeToken: () => `${dataVersion.get() as number}:${totalChanges.get() as number}`
  }
}
