/**
 * Opens the database named by a DATABASE_URL: the only module that knows SQLite
 * from PostgreSQL. Everything above it sees one Kysely handle for building
 * queries and a work runner (db/work.ts) for running them. A database that cannot
 * be used (unreachable, unknown, read-only, locked, failing to migrate) is refused
 * at start-up with one line saying why (DatabaseStartupError), never the password.
 */
import { performance } from 'node:perf_hooks'
import BetterSqlite3 from 'better-sqlite3'
import { Kysely, PostgresAdapter, sql, type SelectQueryBuilder } from 'kysely'
import pg from 'pg'
import { DatabaseNotWritableError, DatabaseStartupError, describePostgresError, describeSqliteError, isRetryableConflict } from './errors.js'
import { MigrationError, migrateToLatest } from './migrate.js'
import { SchemaPostgresDialect } from './postgres-dialect.js'
import { AUTOCHECKPOINT_PAGES, startCheckpointer, type Checkpointer } from './checkpointer.js'
import { BUSY_BUDGET_MS, createSqliteRunner, probeWrite } from './sqlite-dialect.js'
import { makeParentDirectories, whyNotCreated } from './sqlite-file.js'
import type { Database, Db, Dialect } from './types.js'
import { Breath, Declaration, Effects, keep, nextTurn, SLICE_MS, type Work, type WorkRunner } from './work.js'

/** An open database: query building, the work runner, and what callers may need of its dialect. */
export interface DbHandle extends WorkRunner {
  readonly db: Db
  readonly dialect: Dialect
  /**
   * The health check. Resolves when the database answers and would take a write (on
   * SQLite also while another process merely holds the write lock: it is writable,
   * just busy); rejects with DatabaseNotWritableError when it answers but is
   * read-only, with the driver's error when it does not answer. SQLite's waits a
   * few milliseconds at most for a lock.
   */
  ping(): Promise<void>
  /**
   * A token that differs whenever the database may have changed since it was last
   * taken, by this process or another (on SQLite, cheap: no table is read). Take it
   * before the data it vouches for. Null where the dialect cannot tell (PostgreSQL):
   * always check the data.
   */
  changeToken(): string | null
  close(): Promise<void>
}

/**
 * Adds a row lock where the dialect has one; SQLite's write lock is the whole transaction.
 * With `skipLocked`, rows another transaction holds are left out instead of waited for
 * (several processes taking work from one queue).
 */
export function lockRows<DB, TB extends keyof DB, O> (
  db: Db, query: SelectQueryBuilder<DB, TB, O>, { skipLocked = false } = {}
): SelectQueryBuilder<DB, TB, O> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return query
  return skipLocked ? query.forUpdate().skipLocked() : query.forUpdate()
}

/** A database opened but not yet migrated. */
interface Opened extends WorkRunner {
  readonly db: Db
  ping(): Promise<void>
  /** Checks the database, migrates it, and gets it ready to serve; throws DatabaseStartupError. */
  start(): Promise<void>
  /** Stops what start began besides the connection (before the connection closes). */
  stop?(): Promise<void>
  changeToken(): string | null
}

/** The one line for a failed migration (or a failure before any could run). */
function describeMigrationFailure (error: unknown, describe: (error: unknown) => string): string {
  if (error instanceof MigrationError) return `${error.message}: ${describe(error.cause)}`
  return describe(error)
}

function openSqlite (url: string): Opened {
  const path = url.slice('sqlite:'.length)
  const inMemory = path === ':memory:'
  let database: BetterSqlite3.Database | undefined
  try {
    if (!inMemory) makeParentDirectories(path)
    // Start-up waits for another process's lock synchronously: nothing is served yet.
    database = new BetterSqlite3(inMemory ? ':memory:' : path, { timeout: BUSY_BUDGET_MS })
    // Before anything writes: a read-only file opens without complaint, and would
    // otherwise answer /healthz and fail every write.
    probeWrite(database)
    database.pragma('journal_mode = WAL')
    // NORMAL in WAL mode: every commit survives a process crash; only an OS crash or
    // power loss can lose the last commits. FULL would fsync on every rotation.
    database.pragma('synchronous = NORMAL')
    // Until the checkpoint worker runs (db/checkpointer.ts), and should it fail:
    // checkpoint (and fsync) every ~40 MB of WAL instead of every 4 MB.
    database.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`)
    database.pragma('journal_size_limit = 67108864')
    database.pragma('foreign_keys = ON')
  } catch (error) {
    database?.close()
    if (error instanceof DatabaseStartupError) throw error
    throw new DatabaseStartupError((inMemory ? undefined : whyNotCreated(path)) ?? describeSqliteError(error, path))
  }
  const runner = createSqliteRunner(database)
  const opened = database
  let checkpointer: Checkpointer | undefined
  return {
    ...runner,
    start: async () => {
      try {
        await migrateToLatest(runner.db, 'sqlite')
      } catch (error) {
        throw new DatabaseStartupError(describeMigrationFailure(error, (cause) => describeSqliteError(cause, path)))
      }
      runner.serve()
      // A file in WAL mode: its checkpoints run off the event loop. Without the worker, the connection checkpoints by itself.
      if (!inMemory) checkpointer = await startCheckpointer(opened, path).catch(() => undefined)
    },
    stop: async () => { await checkpointer?.stop() }
  }
}

/**
 * Runs `work` statement by statement on one connection or transaction, keeping what
 * it declares in `effects`. Each statement waits for the server, so the event loop
 * turns between statements; a unit's own computing between them (declarations,
 * breaths) is cut after SLICE_MS by a turn of the event loop (nextTurn).
 */
async function driveAsync<T> (db: Db, work: Work<T>, effects?: Effects): Promise<T> {
  let sliceEnd = performance.now() + SLICE_MS
  let step = work.next()
  while (step.done !== true) {
    const value = step.value
    if (value instanceof Declaration || value instanceof Breath) {
      const answer = value instanceof Declaration ? keep(effects, value) : []
      if (performance.now() >= sliceEnd) {
        await nextTurn()
        sliceEnd = performance.now() + SLICE_MS
      }
      step = work.next(answer)
      continue
    }
    const { rows } = await db.executeQuery(value)
    sliceEnd = performance.now() + SLICE_MS
    step = work.next(rows as unknown[])
  }
  return step.value
}

/**
 * How many times PostgreSQL work is run again after the server aborted its
 * transaction as a deadlock or serialization failure (isRetryableConflict).
 */
export const CONFLICT_RETRIES = 3

/**
 * The pause before the nth retry (0-based) of a conflicting transaction: random in
 * [1, 5·2ⁿ] ms, so the two transactions that met do not meet again in step.
 */
function conflictDelay (retry: number): number {
  return 1 + Math.random() * (5 * 2 ** retry - 1)
}

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Runs `work` in one PostgreSQL transaction. A transaction the server aborted as a
 * deadlock (40P01) or serialization failure (40001) was rolled back whole, and
 * running it again usually succeeds: `work` is called afresh (a new generator) up
 * to CONFLICT_RETRIES more times; the last attempt's error propagates as it is.
 * Each attempt declares into Effects of its own: only the one that commits hands
 * them to `committed`, once.
 */
async function transactPostgres<T> (db: Db, work: (db: Db) => Work<T>, committed?: (effects: Effects) => void): Promise<T> {
  for (let retry = 0; ; retry++) {
    const effects = committed === undefined ? undefined : new Effects()
    let value: T
    try {
      value = await db.transaction().execute(async (trx) => await driveAsync(trx, work(db), effects))
    } catch (error) {
      if (retry >= CONFLICT_RETRIES || !isRetryableConflict(error)) throw error
      await sleep(conflictDelay(retry))
      continue
    }
    if (effects !== undefined && !effects.empty) committed?.(effects)
    return value
  }
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * How long PostgreSQL lets one of our sessions sit idle inside a transaction before it
 * ends the session. Ours run statement after statement; a gap this long means the
 * process stopped, and its locks would otherwise stop every other instance's writes
 * (and the API calls that flush first) until it resumed. Ten seconds: no transaction
 * of ours waits on anything but the database between statements, so only a process
 * stopped or starved that long loses one (a flush's batch is kept for the next).
 */
export const IDLE_IN_TRANSACTION_MS = 10_000

function openPostgres (url: string): Opened {
  const parsed = new URL(url)
  const where = `${parsed.hostname || parsed.searchParams.get('host') || 'localhost'}:${parsed.port || '5432'}`
  // `?schema=name` keeps an instance (or a test run) in its own schema.
  const schema = parsed.searchParams.get('schema')
  parsed.searchParams.delete('schema')
  if (schema !== null && !SCHEMA_NAME.test(schema)) {
    throw new DatabaseStartupError(`DATABASE_URL: ?schema=${schema} is not a plain schema name (letters, digits and _)`)
  }
  const max = Number(parsed.searchParams.get('pool_max') ?? 10)
  parsed.searchParams.delete('pool_max')
  // Server options given in the URL (`?options=-c …`) would replace the search_path.
  const given = parsed.searchParams.get('options')
  const options = [given, schema !== null ? `-c search_path=${schema}` : null].filter((o) => o !== null)
  parsed.searchParams.delete('options')
  const pool = new pg.Pool({
    connectionString: parsed.toString(),
    max,
    ...(options.length > 0 ? { options: options.join(' ') } : {})
  })
  // A client losing its server, idle or checked out between two statements (the server
  // ended the session), must not crash the process; the next query reports it.
  pool.on('error', () => {})
  // A session of ours idle inside a transaction is a process that stopped mid-way (paused,
  // starved, cut off): the server ends it, so the rows it locked (a pool's, by a flush) do
  // not hold up every other instance. Set by a statement (a pooler passes it on, where a
  // startup parameter may be refused) unless the URL's options set it; pg runs it before
  // the client's first query.
  const setIdleTimeout = given?.includes('idle_in_transaction_session_timeout') !== true
  pool.on('connect', (client) => {
    client.on('error', () => {})
    if (setIdleTimeout) client.query(`set idle_in_transaction_session_timeout = ${IDLE_IN_TRANSACTION_MS}`).catch(() => {})
  })
  const db = new Kysely<Database>({ dialect: new SchemaPostgresDialect({ pool }) })
  const describe = (error: unknown) => describePostgresError(error, where)
  return {
    db,
    transact: async (work, committed) => await transactPostgres(db, work, committed),
    read: async (work) => await db.connection().execute(async (connection) => await driveAsync(connection, work(db))),
    changeToken: () => null,
    ping: async () => {
      const { rows } = await sql<{ read_only: string }>`select current_setting('transaction_read_only') as read_only`.execute(db)
      if (rows[0]?.read_only === 'on') throw new DatabaseNotWritableError()
    },
    start: async () => {
      let found: { schema: string | null, read_only: string } | undefined
      try {
        found = (await sql<{ schema: string | null, read_only: string }>`select current_schema() as schema, current_setting('transaction_read_only') as read_only`.execute(db)).rows[0]
      } catch (error) {
        throw new DatabaseStartupError(describe(error))
      }
      // current_schema() is the first schema on the search_path that exists.
      const current = found?.schema ?? null
      if (current === null) {
        // Unquoted in the search_path, the name is folded to lower case.
        throw new DatabaseStartupError(schema !== null ? `schema "${schema.toLowerCase()}" does not exist` : 'no schema on the search_path exists')
      }
      if (found?.read_only === 'on') throw new DatabaseStartupError(`PostgreSQL at ${where} is read-only (transaction_read_only is on)`)
      try {
        // The migrator's own tables go in this schema too, not wherever it finds some.
        await migrateToLatest(db, 'postgres', current)
      } catch (error) {
        throw new DatabaseStartupError(describeMigrationFailure(error, describe))
      }
    }
  }
}

/** `message` with the URL's password (as written, and decoded) masked. */
function withoutPassword (message: string, url: string): string {
  let password = ''
  try {
    password = new URL(url).password
  } catch {
    return message
  }
  if (password === '') return message
  let decoded = password
  try {
    decoded = decodeURIComponent(password)
  } catch {}
  return message.split(password).join('***').split(decoded).join('***')
}

/** Opens and migrates the database named by `url` (sqlite:… or postgres://…); throws DatabaseStartupError. */
export async function createDb (url: string): Promise<DbHandle> {
  const dialect: Dialect = url.startsWith('sqlite:') ? 'sqlite' : 'postgres'
  try {
    const opened = dialect === 'sqlite' ? openSqlite(url) : openPostgres(url)
    const { db, transact, read, ping, changeToken } = opened
    const close = async () => {
      await opened.stop?.()
      await db.destroy()
    }
    try {
      await opened.start()
    } catch (error) {
      await close().catch(() => {})
      throw error
    }
    return { db, dialect, transact, read, ping, changeToken, close }
  } catch (error) {
    if (error instanceof DatabaseStartupError) throw new DatabaseStartupError(withoutPassword(error.message, url))
    throw error
  }
}
