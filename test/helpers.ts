/**
 * Test helpers shared by every suite: the dialects to run against and
 * buildTestApp, which uses the production buildApp on a fresh database.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify'
import { after, describe, it } from 'node:test'
import { sql } from 'kysely'
import pg from 'pg'
import type { TSchema } from 'typebox'
import { buildApp, type AppDeps } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createDb, type DbHandle } from '../src/db/create-db.js'
import { migrateBefore } from '../src/db/migrate.js'
import type { Db } from '../src/db/types.js'

export interface TestDatabase {
  readonly url: string
  drop(): Promise<void>
}

export interface TestDialect {
  readonly name: 'sqlite' | 'postgres'
  /** Why this dialect's suites are skipped (it is not configured), or undefined when they run. */
  readonly skip?: string
  /** A new, empty database (a fresh PostgreSQL schema, or an in-memory SQLite file). */
  create(): Promise<TestDatabase>
}

const postgresUrl = process.env.TEST_DATABASE_URL

/** Runs `statement` (with `values`) on the PostgreSQL server named by TEST_DATABASE_URL; its rows. */
async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow> (statement: string, values?: unknown[]): Promise<R[]> {
  const client = new pg.Client({ connectionString: postgresUrl })
  await client.connect()
  try {
    return (await client.query<R>(statement, values)).rows
  } finally {
    await client.end()
  }
}

/** Schemas this process created and has not dropped yet. */
const liveSchemas = new Set<string>()

/** Drops `schema` and everything in it. */
async function dropSchema (schema: string): Promise<void> {
  await adminQuery(`drop schema if exists ${schema} cascade`)
  liveSchemas.delete(schema)
}

// The shared server must be left as it was found, even when a test fails before its own
// clean-up: after each test file, whatever it left is dropped, kept schemas included.
after(async () => {
  for (const schema of [...liveSchemas]) await dropSchema(schema)
  recycled.length = 0
})

/** A fresh schema on the test server; dropped (with everything in it) afterwards. */
export async function createPostgresSchema (): Promise<TestDatabase> {
  const schema = `sourcepool_test_${process.pid}_${randomBytes(4).toString('hex')}`
  liveSchemas.add(schema)
  await adminQuery(`create schema ${schema}`)
  const url = new URL(postgresUrl as string)
  url.searchParams.set('schema', schema)
  return { url: url.toString(), drop: async () => { await dropSchema(schema) } }
}

/** A database several processes can share: a SQLite file in a temp dir, or a fresh PostgreSQL schema. */
export async function sharedDatabase (dialect: TestDialect): Promise<TestDatabase> {
  if (dialect.name === 'postgres') return await createPostgresSchema()
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-shared-'))
  return { url: `sqlite:${join(dir, 'pools.db')}`, drop: async () => { rmSync(dir, { recursive: true, force: true }) } }
}

/** The columns of `table` as the database has them now (a migration test's before and after). */
export async function columnsOf (db: Db, dialect: TestDialect, table: string): Promise<string[]> {
  const rows = dialect.name === 'sqlite'
    ? await sql<{ name: string }>`select name from pragma_table_info(${table})`.execute(db)
    : await sql<{ name: string }>`select column_name as name from information_schema.columns where table_name = ${table} and table_schema = current_schema()`.execute(db)
  return rows.rows.map((r) => r.name)
}

/**
 * A migration met on a database the previous version left: on a fresh database of
 * `dialect`, `before` runs once `name` and every later migration are undone (seed the
 * old shape there), `after` once a start has migrated it again; the database is dropped.
 */
export async function acrossMigration (dialect: TestDialect, name: string, before: (db: Db) => Promise<void>, after: (db: Db) => Promise<void>): Promise<void> {
  const database = await sharedDatabase(dialect)
  try {
    for (const [index, step] of [before, after].entries()) {
      const handle = await createDb(database.url)
      try {
        if (index === 0) await migrateBefore(handle.db, dialect.name, name)
        await step(handle.db)
      } finally {
        await handle.close()
      }
    }
  } finally {
    await database.drop()
  }
}

/** Resolves after `ms`. */
export const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

export const sqlite: TestDialect = {
  name: 'sqlite',
  create: async () => ({ url: 'sqlite::memory:', drop: async () => {} })
}

/**
 * Migrated schemas a test has finished with, emptied and kept for the next test of this
 * file: migrating a new schema costs about a second of PostgreSQL's CPU (some 90 DDL
 * statements), emptying one a few milliseconds.
 */
const recycled: string[] = []

/** What a schema holds when it is fit to be used again: its tables, columns and applied migrations. */
async function shapeOf (schema: string): Promise<string | undefined> {
  try {
    const rows = await adminQuery<{ shape: string | null }>(`
      select string_agg(c.table_name || '.' || c.column_name || ':' || c.data_type || ':' || coalesce(c.column_default, ''), ','
                        order by c.table_name, c.ordinal_position)
        || '|' || (select string_agg(indexdef, ',' order by indexname) from pg_indexes where schemaname = $1)
        || '|' || (select coalesce(string_agg(con.conname || pg_get_constraintdef(con.oid), ',' order by con.conname), '')
                   from pg_constraint con join pg_namespace n on n.oid = con.connamespace where n.nspname = $1)
        || '|' || (select count(*) from ${schema}.kysely_migration) as shape
      from information_schema.columns c where c.table_schema = $1`, [schema])
    return rows[0]?.shape ?? undefined
  } catch {
    return undefined
  }
}

/**
 * The shape every kept schema must have: that of a schema this process migrated itself (the
 * first it hands out), never one a test has used, which may have changed it.
 */
let migratedShape: Promise<string | undefined> | undefined

/**
 * Empties `schema` for the next test when it is exactly as migrated (no table or column
 * added, dropped or changed by the test); drops it otherwise.
 */
async function recycleSchema (schema: string): Promise<void> {
  const shape = await shapeOf(schema)
  if (shape === undefined || migratedShape === undefined || shape !== await migratedShape) {
    await dropSchema(schema)
    return
  }
  try {
    const tables = await adminQuery<{ name: string }>(
      "select tablename as name from pg_tables where schemaname = $1 and tablename not like 'kysely_migration%'", [schema])
    // A test that left a connection holding a lock leaves its schema to the file's end.
    if (tables.length > 0) await adminQuery(`set lock_timeout = '2s'; truncate ${tables.map((t) => `${schema}.${t.name}`).join(', ')} restart identity cascade`)
    recycled.push(schema)
  } catch {
    // Still listed as live: dropped when the file ends.
  }
}

/** A schema for buildTestApp and the like: an emptied one of this file's earlier tests, or a new one. */
async function createOrReusePostgresSchema (): Promise<TestDatabase> {
  const schema = recycled.pop()
  if (schema === undefined) {
    const fresh = await createPostgresSchema()
    // The first: migrated here, so that its shape is the reference (the test's own start then
    // finds it migrated, which it would have done first thing anyway).
    migratedShape ??= createDb(fresh.url).then(async (database) => { await database.close(); return await shapeOf(schemaOf(fresh.url)) }, () => undefined)
    await migratedShape
    return { url: fresh.url, drop: async () => { await recycleSchema(schemaOf(fresh.url)) } }
  }
  const url = new URL(postgresUrl as string)
  url.searchParams.set('schema', schema)
  return { url: url.toString(), drop: async () => { await recycleSchema(schema) } }
}

const schemaOf = (url: string): string => new URL(url).searchParams.get('schema') as string

export const postgres: TestDialect = {
  name: 'postgres',
  ...(postgresUrl ? {} : { skip: 'set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run the PostgreSQL suites' }),
  create: createOrReusePostgresSchema
}

/** Both dialects; PostgreSQL suites are skipped (and counted so) unless TEST_DATABASE_URL is set. */
export const dialects: TestDialect[] = [sqlite, postgres]

/**
 * `describe('[dialect] title', fn)`, or, for a dialect that is not configured, one skipped
 * test in its place: node:test leaves a skipped suite out of the summary's `skipped` count,
 * and a run that skipped the PostgreSQL suites must say so.
 */
export function describeOn (dialect: TestDialect, title: string, fn: () => void): void {
  const name = `[${dialect.name}] ${title}`
  if (dialect.skip !== undefined) it(name, { skip: dialect.skip }, () => {})
  else describe(name, fn)
}

export interface TestApp {
  readonly app: FastifyInstance
  readonly database: DbHandle
  /** Injects a request and returns status, parsed JSON body and headers. */
  request(options: InjectOptions): Promise<{ status: number, body: any, headers: Record<string, unknown> }>
  close(): Promise<void>
}

/** The production app on a fresh database of `dialect`, logging off; `env` adds configuration. */
export async function buildTestApp (
  dialect: TestDialect, deps: Omit<AppDeps, 'database'> = {}, env: Record<string, string> = {}
): Promise<TestApp> {
  const testDb = await dialect.create()
  let database: DbHandle | undefined
  let app: FastifyInstance
  try {
    const config = loadConfig({ DATABASE_URL: testDb.url, LOG_LEVEL: 'silent', ...env })
    database = await createDb(config.databaseUrl)
    app = await buildApp(config, { logger: false, ...deps, database })
    await app.ready()
  } catch (error) {
    // A database that failed to open or migrate still leaves its schema behind.
    await database?.close()
    await testDb.drop()
    throw error
  }
  const opened = database
  return {
    app,
    database: opened,
    async request (options) {
      const response = await app.inject(options)
      const text = response.body
      return { status: response.statusCode, body: text === '' ? undefined : JSON.parse(text), headers: response.headers }
    },
    async close () {
      await app.close()
      await opened.close()
      await testDb.drop()
    }
  }
}

/** What Fastify writes for `value` under the response schema `schema` (its default serializer, as the app uses). */
export async function fastifyBytes (schema: TSchema, value: unknown): Promise<string> {
  const app = Fastify({ logger: false })
  app.get('/', { schema: { response: { 200: schema } } }, async () => value)
  const res = await app.inject({ method: 'GET', url: '/' })
  await app.close()
  return res.body
}
