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
import pg from 'pg'
import type { TSchema } from 'typebox'
import { buildApp, type AppDeps } from '../src/app.js'
import { loadConfig } from '../src/config.js'
import { createDb, type DbHandle } from '../src/db/create-db.js'

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

/** Schemas this process created and has not dropped yet. */
const liveSchemas = new Set<string>()

/** Drops `schema` and everything in it. */
async function dropSchema (schema: string): Promise<void> {
  await adminQuery(`drop schema if exists ${schema} cascade`)
  liveSchemas.delete(schema)
}

// The shared server must be left as it was found, even when a test fails before its own
// clean-up: after each test file, whatever it left is dropped.
after(async () => {
  for (const schema of [...liveSchemas]) await dropSchema(schema)
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

/** Resolves after `ms`. */
export const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

export const sqlite: TestDialect = {
  name: 'sqlite',
  create: async () => ({ url: 'sqlite::memory:', drop: async () => {} })
}

export const postgres: TestDialect = {
  name: 'postgres',
  ...(postgresUrl ? {} : { skip: 'set TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run the PostgreSQL suites' }),
  create: createPostgresSchema
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
