/**
 * SQLite through better-sqlite3: Kysely's dialect (used for migrations) over a
 * shared, bounded prepared-statement cache, and the synchronous work runner that
 * every request uses. A unit of work runs start to finish inside one
 * `BEGIN IMMEDIATE` transaction without yielding to the event loop, so requests
 * are serialised without a mutex and a writer never fails on a lock upgrade.
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

/** Drives `work` to its end, executing each yielded query synchronously. */
function drive<T> (work: Work<T>, prepare: (sqlText: string) => Statement): T {
  let step = work.next()
  while (step.done !== true) {
    const { sql, parameters } = step.value.compile()
    const statement = prepare(sql)
    let rows: unknown[] = []
    if (statement.reader) rows = statement.all(parameters as unknown[])
    else statement.run(parameters as unknown[])
    step = work.next(rows)
  }
  return step.value
}

/** The Kysely handle and the work runner over one open better-sqlite3 database. */
export function createSqliteRunner (database: SqliteDatabase): { db: Db } & WorkRunner {
  const prepare = statementCache(database)
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: { close: () => { database.close() }, prepare } })
  })
  const inTransaction = database.transaction((work: Work<unknown>) => drive(work, prepare))
  return {
    db,
    transact: async <T>(work: (db: Db) => Work<T>) => inTransaction.immediate(work(db)) as T,
    read: async <T>(work: (db: Db) => Work<T>) => inTransaction.deferred(work(db)) as T
  }
}
