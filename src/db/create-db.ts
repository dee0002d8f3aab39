/**
 * Opens the database named by a DATABASE_URL: the only module that knows SQLite
 * from PostgreSQL. Everything above it sees one Kysely handle and a few dialect facts.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, PostgresDialect, sql, type SelectQueryBuilder } from 'kysely'
import pg from 'pg'
import { CachingSqliteDialect } from './sqlite-dialect.js'
import { migrateToLatest } from './migrate.js'
import type { Database, Db, Dialect } from './types.js'

/** An open database: the query handle plus what callers may need to know of its dialect. */
export interface DbHandle {
  readonly db: Db
  readonly dialect: Dialect
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
  close(): Promise<void>
}

/** Adds a row lock where the dialect has one; SQLite's write lock is the whole transaction. */
export function lockRows<DB, TB extends keyof DB, O> (
  dialect: Dialect, query: SelectQueryBuilder<DB, TB, O>
): SelectQueryBuilder<DB, TB, O> {
  return dialect === 'postgres' ? query.forUpdate() : query
}

function openSqlite (url: string): Kysely<Database> {
  const path = url.slice('sqlite:'.length)
  const inMemory = path === ':memory:'
  if (!inMemory) mkdirSync(dirname(path), { recursive: true })
  const database = new BetterSqlite3(inMemory ? ':memory:' : path)
  database.pragma('journal_mode = WAL')
  // NORMAL in WAL mode: every commit survives a process crash; only an OS crash or
  // power loss can lose the last commits. FULL would fsync on every rotation.
  database.pragma('synchronous = NORMAL')
  database.pragma('foreign_keys = ON')
  database.pragma('busy_timeout = 5000')
  return new Kysely<Database>({ dialect: new CachingSqliteDialect(database) })
}

function openPostgres (url: string): Kysely<Database> {
  const parsed = new URL(url)
  // `?schema=name` keeps an instance (or a test run) in its own schema.
  const schema = parsed.searchParams.get('schema')
  parsed.searchParams.delete('schema')
  const max = Number(parsed.searchParams.get('pool_max') ?? 10)
  parsed.searchParams.delete('pool_max')
  const pool = new pg.Pool({
    connectionString: parsed.toString(),
    max,
    ...(schema !== null ? { options: `-c search_path=${schema.replace(/[^a-zA-Z0-9_]/g, '')}` } : {})
  })
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {})
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
}

/** Opens and migrates the database named by `url` (sqlite:… or postgres://…). */
export async function createDb (url: string): Promise<DbHandle> {
  const dialect: Dialect = url.startsWith('sqlite:') ? 'sqlite' : 'postgres'
  const db = dialect === 'sqlite' ? openSqlite(url) : openPostgres(url)
  try {
    await migrateToLatest(db, dialect)
  } catch (error) {
    await db.destroy()
    throw error
  }
  return {
    db,
    dialect,
    ping: async () => { await sql`select 1`.execute(db) },
    close: async () => { await db.destroy() }
  }
}
