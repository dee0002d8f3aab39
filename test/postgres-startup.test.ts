/**
 * Starting on PostgreSQL: an instance keeps its migrator's tables in its own schema
 * (a database shared with other instances, as CI's is, must not confuse it), and a
 * database that cannot be used stops the start in one line naming the cause, never
 * with a stack or the password.
 *
 * Every schema made here is dropped afterwards, even when a test fails: the server
 * is shared.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { after, describe, it } from 'node:test'
import pg from 'pg'
import { createDb } from '../src/db/create-db.js'
import { createPostgresSchema, type TestDatabase } from './helpers.js'
import { freePort, http, runMain, startServer } from './server-process.js'

const base = process.env.TEST_DATABASE_URL

/** `base` changed by `change` (a copy). */
function urlWith (change: (url: URL) => void): string {
  const url = new URL(base as string)
  change(url)
  return url.toString()
}

async function query<R extends pg.QueryResultRow> (text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: base })
  await client.connect()
  try {
    return (await client.query<R>(text, values)).rows
  } finally {
    await client.end()
  }
}

async function tablesIn (schema: string): Promise<string[]> {
  const rows = await query<{ table_name: string }>('select table_name from information_schema.tables where table_schema = $1 order by table_name', [schema])
  return rows.map((r) => r.table_name)
}

const unique = () => `sourcepool_test_${process.pid}_${randomBytes(4).toString('hex')}`
const PASSWORD = 's3cret-pw-do-not-echo'

/** Runs the server entry, which must fail to start; resolves with its one line. */
async function failedStart (databaseUrl: string): Promise<string> {
  const { code, stderr } = await runMain({ DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'warn' }, undefined, 20_000)
  assert.equal(code, 1, `exit code ${code}: ${stderr}`)
  assert.equal(stderr.split('\n').filter((line) => line !== '').length, 1, stderr)
  assert.ok(!stderr.includes(PASSWORD), stderr)
  assert.ok(!/\n\s+at /.test(stderr), stderr)
  return stderr
}

describe('starting on PostgreSQL', { skip: base ? false : 'set TEST_DATABASE_URL to run' }, () => {
  const made: TestDatabase[] = []
  const namesToDrop: string[] = []
  after(async () => {
    for (const database of made) await database.drop()
    for (const name of namesToDrop) await query(`drop schema if exists ${name} cascade`)
  })
  const host = () => new URL(base as string).hostname

  it('on a new schema of a database where another schema already holds sourcepool tables', async () => {
    const a = await createPostgresSchema()
    made.push(a)
    await (await createDb(a.url)).close()
    const b = await createPostgresSchema()
    made.push(b)
    const server = await startServer({ DATABASE_URL: b.url })
    try {
      const created = await http('POST', `${server.url}/api/pools`, { name: 'in-b', category: 'rpc' })
      assert.equal(created.status, 200, JSON.stringify(created.body))
    } finally {
      assert.equal(await server.stop(), 0)
    }
    const schemaB = new URL(b.url).searchParams.get('schema') as string
    const tables = await tablesIn(schemaB)
    for (const table of ['kysely_migration', 'kysely_migration_lock', 'pools', 'providers']) assert.ok(tables.includes(table), `${table} in ${tables.join(', ')}`)
    const pools = await query<{ name: string }>(`select name from ${schemaB}.pools`)
    assert.deepEqual(pools.map((p) => p.name), ['in-b'])
  })

  it('without ?schema=, in the connection\'s current schema (the first on its search_path)', async () => {
    const target = await createPostgresSchema()
    made.push(target)
    const schema = new URL(target.url).searchParams.get('schema') as string
    const url = urlWith((u) => u.searchParams.set('options', `-c search_path=${schema}`))
    await (await createDb(url)).close()
    const tables = await tablesIn(schema)
    for (const table of ['kysely_migration', 'kysely_migration_lock', 'pools']) assert.ok(tables.includes(table), `${table} in ${tables.join(', ')}`)
  })

  it('refuses a ?schema= that does not exist, and does not create it', async () => {
    const name = unique()
    namesToDrop.push(name)
    const stderr = await failedStart(urlWith((u) => u.searchParams.set('schema', name)))
    assert.equal(stderr, `sourcepool: failed to start: schema "${name}" does not exist\n`)
    assert.deepEqual(await query('select 1 from pg_namespace where nspname = $1', [name]), [])
  })

  it('names the cause when PostgreSQL does not answer at that port', async () => {
    const port = await freePort()
    const stderr = await failedStart(urlWith((u) => {
      u.port = String(port)
      u.password = PASSWORD
    }))
    assert.equal(stderr, `sourcepool: failed to start: cannot connect to PostgreSQL at ${host()}:${port} (connection refused)\n`)
  })

  it('names the cause when the database does not exist', async () => {
    const name = unique()
    const stderr = await failedStart(urlWith((u) => {
      u.pathname = `/${name}`
      u.password = PASSWORD
    }))
    assert.equal(stderr, `sourcepool: failed to start: database "${name}" does not exist\n`)
  })

  it('names the cause when the role does not exist', async () => {
    const name = unique()
    const stderr = await failedStart(urlWith((u) => {
      u.username = name
      u.password = PASSWORD
    }))
    assert.equal(stderr, `sourcepool: failed to start: role "${name}" does not exist\n`)
  })

  it('refuses a read-only database', async () => {
    const target = await createPostgresSchema()
    made.push(target)
    const stderr = await failedStart(urlWith((u) => {
      u.searchParams.set('schema', new URL(target.url).searchParams.get('schema') as string)
      u.searchParams.set('options', '-c default_transaction_read_only=on')
    }))
    const { hostname, port } = new URL(base as string)
    assert.equal(stderr, `sourcepool: failed to start: PostgreSQL at ${hostname}:${port || '5432'} is read-only (transaction_read_only is on)\n`)
  })
})
