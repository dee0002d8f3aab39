/**
 * Opens the database named by a DATABASE_URL: the only module that knows SQLite
 * from PostgreSQL. Everything above it sees one Kysely handle for building
 * queries and a work runner (db/work.ts) for running them.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, PostgresAdapter, PostgresDialect, sql, type SelectQueryBuilder } from 'kysely'
import pg from 'pg'
import { migrateToLatest } from './migrate.js'
import { createSqliteRunner } from './sqlite-dialect.js'
import type { Database, Db, Dialect } from './types.js'
import type { Work, WorkRunner } from './work.js'

/** An open database: query building, the work runner, and what callers may need of its dialect. */
export interface DbHandle extends WorkRunner {
  readonly db: Db
  readonly dialect: Dialect
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>
  close(): Promise<void>
}

/** Adds a row lock where the dialect has one; SQLite's write lock is the whole transaction. */
export function lockRows<DB, TB extends keyof DB, O> (
  db: Db, query: SelectQueryBuilder<DB, TB, O>
): SelectQueryBuilder<DB, TB, O> {
  return db.getExecutor().adapter instanceof PostgresAdapter ? query.forUpdate() : query
}

function openSqlite (url: string): { db: Db } & WorkRunner {
  const path = url.slice('sqlite:'.length)
  const inMemory = path === ':memory:'
  if (!inMemory) mkdirSync(dirname(path), { recursive: true })
  const database = new BetterSqlite3(inMemory ? ':memory:' : path)
  database.pragma('journal_mode = WAL')
  // NORMAL in WAL mode: every commit survives a process crash; only an OS crash or
  // power loss can lose the last commits. FULL would fsync on every rotation.
  database.pragma('synchronous = NORMAL')
  // Checkpoint (and fsync) every ~40 MB of WAL instead of every 4 MB: rotations
  // rewrite the same few pages, so rarer checkpoints save most of their cost.
  database.pragma('wal_autocheckpoint = 10000')
  database.pragma('journal_size_limit = 67108864')
  database.pragma('foreign_keys = ON')
  database.pragma('busy_timeout = 5000')
  return createSqliteRunner(database)
}

/** Runs `work` statement by statement on one connection or transaction. */
async function driveAsync<T> (db: Db, work: Work<T>): Promise<T> {
  let step = work.next()
  while (step.done !== true) {
    const { rows } = await db.executeQuery(step.value)
    step = work.next(rows as unknown[])
  }
  return step.value
}

function openPostgres (url: string): { db: Db } & WorkRunner {
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
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  return {
    db,
    transact: async (work) => await db.transaction().execute(async (trx) => await driveAsync(trx, work(db))),
    read: async (work) => await db.connection().execute(async (connection) => await driveAsync(connection, work(db)))
  }
}

/** Opens and migrates the database named by `url` (sqlite:… or postgres://…). */
export async function createDb (url: string): Promise<DbHandle> {
  const dialect: Dialect = url.startsWith('sqlite:') ? 'sqlite' : 'postgres'
  const { db, transact, read } = dialect === 'sqlite' ? openSqlite(url) : openPostgres(url)
  try {
    await migrateToLatest(db, dialect)
  } catch (error) {
    await db.destroy()
    throw error
  }
  return {
    db,
    dialect,
    transact,
    read,
    ping: async () => { await sql`select 1`.execute(db) },
    close: async () => { await db.destroy() }
  }
}
