/**
 * SQLite through better-sqlite3: Kysely's stock dialect (used for migrations) and
 * the synchronous work runner that every request uses, with a bounded
 * prepared-statement cache. A unit of work runs start to finish inside one
 * `BEGIN IMMEDIATE` transaction without yielding to the event loop, so requests
 * are serialised without a mutex and a writer never fails on a lock upgrade; the
 * writes of one event-loop turn share that transaction's commit (group commit).
 *
 * Waiting for a lock that another process holds (an operator's `sqlite3` shell, a
 * backup) must not block the event loop: once serving, SQLite's own (synchronous)
 * busy wait is a few milliseconds, and work that found the database busy is run
 * again after a short, growing delay, until BUSY_BUDGET_MS is spent.
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import { DatabaseNotWritableError, isBusy, isReadOnly } from './errors.js'
import type { Database, Db } from './types.js'
import { Declaration, Effects, keep, type Work, type WorkRunner } from './work.js'

const STATEMENT_CACHE_SIZE = 500

/**
 * How long, in all, a unit of work waits for a lock held by another process before it
 * fails with SQLITE_BUSY (answered as "the database is not answering; retry shortly").
 * Start-up (opening, migrating) waits as long, synchronously: nothing is served yet.
 */
export const BUSY_BUDGET_MS = 5000

/** SQLite's own, synchronous busy wait once requests are served: short, as it blocks the event loop. */
const SERVING_BUSY_TIMEOUT_MS = 5

/** The delay before the nth retry of busy work: 2, 4, 8 … ms, at most 50 ms. */
function retryDelay (retry: number): number {
  return Math.min(2 * 2 ** retry, 50)
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms))

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

/** Drives `work` to its end, executing each yielded query synchronously and keeping what it declares in `effects`. */
function drive<T> (work: Work<T>, prepare: (sqlText: string) => Statement, readers: WeakMap<Statement, Reader>, effects: Effects | undefined): T {
  let step = work.next()
  while (step.done !== true) {
    if (step.value instanceof Declaration) {
      step = work.next(keep(effects, step.value))
      continue
    }
    const { sql, parameters } = step.value.compile()
    const statement = prepare(sql)
    let rows: unknown[] = []
    if (statement.reader) {
      let reader = readers.get(statement)
      if (reader === undefined) {
        reader = { statement: statement.raw(true), columns: statement.columns().map((c) => c.name) }
        readers.set(statement, reader)
      }
      rows = readRows(reader, parameters as unknown[])
    } else {
      statement.run(parameters as unknown[])
    }
    step = work.next(rows)
  }
  return step.value
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

/** The Kysely handle and the work runner over one open better-sqlite3 database. */
export function createSqliteRunner (database: SqliteDatabase): SqliteRunner {
  // Kysely (migrations) gets its own statements: the runner's are switched to raw mode.
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database })
  })
  const prepare = statementCache(database)
  const readers = new WeakMap<Statement, Reader>()
  const inTransaction = database.transaction((work: Work<unknown>, effects?: Effects) => drive(work, prepare, readers, effects))
  // Two statements: the pragma read through pragma_data_version() in one SELECT costs twice as much.
  const dataVersion = database.prepare('PRAGMA data_version').pluck()
  const totalChanges = database.prepare('SELECT total_changes()').pluck()

  // Group commit: the writes that arrive in one turn of the event loop run one after
  // the other inside one BEGIN IMMEDIATE … COMMIT, each in its own savepoint (a write
  // that throws is rolled back alone), and are answered once that commit is done. Each
  // stays atomic and serialised; the commit, most of a small write's cost, is shared.
  //
  // When another process holds the write lock, BEGIN IMMEDIATE fails with SQLITE_BUSY
  // before any work has run, and the whole group goes back to the head of the queue,
  // in order, to be tried again after a short delay; writes arriving meanwhile queue
  // behind it and run in the same group. Only writes whose budget is spent fail. (Work
  // that has started is never run again: a unit may have effects outside the database.)
  // What a write declared is handed to its `committed` after the group's commit, before
  // it is answered; a write rolled back (alone, or with its group) hands nothing.
  interface Pending {
    work: (db: Db) => Work<unknown>
    committed: ((effects: Effects) => void) | undefined
    resolve: (value: unknown) => void
    reject: (error: unknown) => void
    /** When this write stops waiting for another process's lock (Date.now() time). */
    deadline: number
  }
  let queue: Pending[] = []
  let flushScheduled = false
  let retries = 0
  let began = false
  const group = database.transaction((items: Pending[]) => {
    began = true
    return items.map((item) => {
      const effects = item.committed === undefined ? undefined : new Effects()
      try {
        // Nested in the group's transaction, this runs in a savepoint.
        return { ok: true as const, value: inTransaction(item.work(db), effects), effects }
      } catch (error) {
        return { ok: false as const, error }
      }
    })
  })
  const flush = () => {
    flushScheduled = false
    const items = queue
    queue = []
    let outcomes
    began = false
    try {
      outcomes = group.immediate(items)
    } catch (error) {
      if (!began && isBusy(error)) {
        const now = Date.now()
        queue = items.filter((item) => {
          if (item.deadline > now) return true
          item.reject(error)
          return false
        })
        if (queue.length > 0) {
          flushScheduled = true
          setTimeout(flush, retryDelay(retries++))
        } else {
          retries = 0
        }
        return
      }
      retries = 0
      for (const item of items) item.reject(error)
      return
    }
    retries = 0
    items.forEach((item, i) => {
      const outcome = outcomes[i] as { ok: true, value: unknown, effects: Effects | undefined } | { ok: false, error: unknown }
      if (!outcome.ok) {
        item.reject(outcome.error)
        return
      }
      if (outcome.effects !== undefined && !outcome.effects.empty) {
        try {
          item.committed?.(outcome.effects)
        } catch (error) {
          item.reject(error)
          return
        }
      }
      item.resolve(outcome.value)
    })
  }

  return {
    db,
    transact: async <T>(work: (db: Db) => Work<T>, committed?: (effects: Effects) => void) => await new Promise<T>((resolve, reject) => {
      queue.push({ work, committed, resolve: resolve as (value: unknown) => void, reject, deadline: Date.now() + BUSY_BUDGET_MS })
      if (!flushScheduled) {
        flushScheduled = true
        setImmediate(flush)
      }
    }),
    // Reads rarely meet a lock in WAL mode (a reader waits only for another process's
    // WAL recovery or exclusive locking mode); read work has no other effect, so it is
    // simply run again, from a fresh generator.
    read: async <T>(work: (db: Db) => Work<T>) => {
      const deadline = Date.now() + BUSY_BUDGET_MS
      for (let retry = 0; ; retry++) {
        try {
          return inTransaction.deferred(work(db)) as T
        } catch (error) {
          if (!isBusy(error) || Date.now() >= deadline) throw error
        }
        await sleep(retryDelay(retry))
      }
    },
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
