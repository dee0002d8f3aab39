/**
 * SQLite through better-sqlite3: Kysely's stock dialect (used for migrations and
 * health checks) and the synchronous work runner that every request uses, with a
 * bounded prepared-statement cache. A unit of work runs start to finish inside one
 * `BEGIN IMMEDIATE` transaction without yielding to the event loop, so requests
 * are serialised without a mutex and a writer never fails on a lock upgrade; the
 * writes of one event-loop turn share that transaction's commit (group commit).
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3'
import { Kysely, SqliteDialect } from 'kysely'
import type { Database, Db } from './types.js'
import type { Work, WorkRunner } from './work.js'

const STATEMENT_CACHE_SIZE = 500

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

/** Drives `work` to its end, executing each yielded query synchronously. */
function drive<T> (work: Work<T>, prepare: (sqlText: string) => Statement, readers: WeakMap<Statement, Reader>): T {
  let step = work.next()
  while (step.done !== true) {
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

/** The Kysely handle and the work runner over one open better-sqlite3 database. */
export function createSqliteRunner (database: SqliteDatabase): { db: Db } & WorkRunner {
  // Kysely (migrations, health checks) gets its own statements: the runner's are switched to raw mode.
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database })
  })
  const prepare = statementCache(database)
  const readers = new WeakMap<Statement, Reader>()
  const inTransaction = database.transaction((work: Work<unknown>) => drive(work, prepare, readers))

  // Group commit: the writes that arrive in one turn of the event loop run one after
  // the other inside one BEGIN IMMEDIATE … COMMIT, each in its own savepoint (a write
  // that throws is rolled back alone), and are answered once that commit is done. Each
  // stays atomic and serialised; the commit, most of a small write's cost, is shared.
  interface Pending { work: (db: Db) => Work<unknown>, resolve: (value: unknown) => void, reject: (error: unknown) => void }
  let queue: Pending[] = []
  const group = database.transaction((items: Pending[]) => items.map((item) => {
    try {
      // Nested in the group's transaction, this runs in a savepoint.
      return { ok: true as const, value: inTransaction(item.work(db)) }
    } catch (error) {
      return { ok: false as const, error }
    }
  }))
  const flush = () => {
    const items = queue
    queue = []
    let outcomes
    try {
      outcomes = group.immediate(items)
    } catch (error) {
      for (const item of items) item.reject(error)
      return
    }
    items.forEach((item, i) => {
      const outcome = outcomes[i] as { ok: true, value: unknown } | { ok: false, error: unknown }
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(outcome.error)
    })
  }
  return {
    db,
    transact: async <T>(work: (db: Db) => Work<T>) => await new Promise<T>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush)
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
    }),
    read: async <T>(work: (db: Db) => Work<T>) => inTransaction.deferred(work(db)) as T
  }
}
