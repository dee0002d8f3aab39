/**
 * Test helpers shared by every suite: the dialects to run against and
 * buildTestApp, which uses the production buildApp on a fresh database.
 */
import { randomBytes } from 'node:crypto'
import type { FastifyInstance, InjectOptions } from 'fastify'
import pg from 'pg'
import { buildApp, type AppDeps } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createDb, type DbHandle } from '../src/db/create-db.js'

export interface TestDatabase {
  readonly url: string
  drop(): Promise<void>
}

export interface TestDialect {
  readonly name: 'sqlite' | 'postgres'
  /** A new, empty database (a fresh PostgreSQL schema, or an in-memory SQLite file). */
  create(): Promise<TestDatabase>
}

const postgresUrl = process.env.TEST_DATABASE_URL

/** Runs `statement` on the PostgreSQL server named by TEST_DATABASE_URL. */
async function adminQuery (statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** A fresh schema on the test server; dropped (with everything in it) afterwards. */
export async function createPostgresSchema (): Promise<TestDatabase> {
  const schema = `sourcepool_test_${process.pid}_${randomBytes(4).toString('hex')}`
  await adminQuery(`create schema ${schema}`)
  const url = new URL(postgresUrl as string)
  url.searchParams.set('schema', schema)
  return { url: url.toString(), drop: () => adminQuery(`drop schema if exists ${schema} cascade`) }
}

export const sqlite: TestDialect = {
  name: 'sqlite',
  create: async () => ({ url: 'sqlite::memory:', drop: async () => {} })
}

export const postgres: TestDialect = { name: 'postgres', create: createPostgresSchema }

/** SQLite always; PostgreSQL when TEST_DATABASE_URL is set. */
export const dialects: TestDialect[] = postgresUrl ? [sqlite, postgres] : [sqlite]

if (!postgresUrl && !(globalThis as { sourcepoolNoted?: boolean }).sourcepoolNoted) {
  (globalThis as { sourcepoolNoted?: boolean }).sourcepoolNoted = true
  console.log('# PostgreSQL tests skipped: set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run them')
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
  const config = loadConfig({ DATABASE_URL: testDb.url, LOG_LEVEL: 'silent', ...env })
  const database = await createDb(config.databaseUrl)
  const app = await buildApp(config, { logger: false, ...deps, database })
  await app.ready()
  return {
    app,
    database,
    async request (options) {
      const response = await app.inject(options)
      const text = response.body
      return { status: response.statusCode, body: text === '' ? undefined : JSON.parse(text), headers: response.headers }
    },
    async close () {
      await app.close()
      await database.close()
      await testDb.drop()
    }
  }
}
