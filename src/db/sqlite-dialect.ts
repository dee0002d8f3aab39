/**
 * Kysely's SQLite dialect with two changes that matter for speed and for
 * several processes sharing one file: prepared statements are cached by SQL text
 * (Kysely's stock driver prepares every query anew), and transactions start with
 * BEGIN IMMEDIATE so a writer takes the lock up front instead of failing on upgrade.
 */
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3'
import {
  CompiledQuery, SqliteDialect, SqliteDriver,
  type DatabaseConnection, type Driver, type SqliteDatabase as KyselySqliteDatabase
} from 'kysely'

const STATEMENT_CACHE_SIZE = 500

class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction (connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'))
  }
}

function withStatementCache (database: SqliteDatabase): KyselySqliteDatabase {
  const cache = new Map<string, Statement>()
  return {
    close: () => { database.close() },
    prepare: (sqlText: string) => {
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
}

/** A SQLite dialect over an open better-sqlite3 handle, with a bounded statement cache. */
export class CachingSqliteDialect extends SqliteDialect {
  readonly #database: KyselySqliteDatabase

  constructor (database: SqliteDatabase) {
    const cached = withStatementCache(database)
    super({ database: cached })
    this.#database = cached
  }

  override createDriver (): Driver {
    return new ImmediateSqliteDriver({ database: this.#database })
  }
}
