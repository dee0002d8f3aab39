/**
 * A start binds its port before it touches the database, on both databases and with
 * WORKERS 1 and 2: a start on a port already in use exits 1 with one line naming PORT,
 * having applied no CONFIG_FILE (the running instance's member keeps its weight, no
 * audit record) and migrated nothing (a fresh database stays empty). A connection made
 * while it starts waits, and is answered once CONFIG_FILE is applied, so /healthz
 * never says ready before.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect, type Socket } from 'node:net'
import { after, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import BetterSqlite3 from 'better-sqlite3'
import pg from 'pg'
import { HOLD_MS } from '../src/serving-port.js'
import { DECLARED_FILE } from './fixtures.js'
import { describeOn, dialects, sharedDatabase, sleep, type TestDatabase } from './helpers.js'
import { freePort, http, runMain, SERVER_ENTRY, startServer } from './server-process.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'sourcepool-start-order-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

/** DECLARED_FILE with portal-a's weight in the pool set to `weight`, written to a file of its own. */
function declaredFile (name: string, weight: number): string {
  const file = join(dir, name)
  writeFileSync(file, DECLARED_FILE.replace('      - provider: portal-a\n', `      - provider: portal-a\n        weight: ${weight}\n`))
  return file
}

/** The tables of the PostgreSQL schema a database URL names. */
async function tablesOf (url: string): Promise<number> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await client.connect()
  try {
    const schema = new URL(url).searchParams.get('schema')
    return (await client.query('select count(*)::int as n from information_schema.tables where table_schema = $1', [schema])).rows[0].n
  } finally {
    await client.end()
  }
}

/** A connection to 127.0.0.1:`port`, or undefined while nothing takes it. */
async function connected (port: number): Promise<Socket | undefined> {
  return await new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => { resolve(socket) })
    socket.once('error', () => { resolve(undefined) })
  })
}

/** `GET path` on `socket` (then closed): the status and the whole answer as text. */
async function rawGet (socket: Socket, path: string): Promise<{ status: number, text: string }> {
  let text = ''
  socket.on('data', (chunk) => { text += String(chunk) })
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
  await new Promise((resolve) => socket.once('close', resolve))
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text }
}

/** How many pools the database holds (0 while it has no pools table yet, or no file). */
async function poolsIn (url: string): Promise<number> {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length)
    if (!existsSync(path)) return 0
    const db = new BetterSqlite3(path, { readonly: true })
    try {
      return (db.prepare("select count(*) as n from sqlite_master where type = 'table' and name = 'pools'").get() as { n: number }).n === 0
        ? 0
        : (db.prepare('select count(*) as n from pools').get() as { n: number }).n
    } finally {
      db.close()
    }
  }
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await client.connect()
  try {
    const schema = new URL(url).searchParams.get('schema')
    const table = await client.query('select 1 from information_schema.tables where table_schema = $1 and table_name = $2', [schema, 'pools'])
    return table.rowCount === 0 ? 0 : (await client.query(`select count(*)::int as n from ${schema}.pools`)).rows[0].n
  } finally {
    await client.end()
  }
}

const weightOfA = async (url: string): Promise<number> => {
  const pools = (await http('GET', `${url}/api/pools`)).body.pools as Array<{ members: Array<{ provider_name: string, weight: number }> }>
  return pools[0]?.members.find((m) => m.provider_name === 'portal-a')?.weight ?? -1
}

for (const dialect of dialects) {
  describeOn(dialect, 'a start binds its port first', () => {
    const databases: TestDatabase[] = []
    after(async () => { for (const database of databases) await database.drop() })

    for (const workers of ['1', '2']) {
      it(`WORKERS=${workers}: a start on a port in use exits 1 with one line naming PORT, and applies and migrates nothing`, async () => {
        const shared = await sharedDatabase(dialect)
        databases.push(shared)
        const env = { DATABASE_URL: shared.url, PORTAL_A_KEY: 'secret-a' }
        const running = await startServer({ ...env, CONFIG_FILE: declaredFile(`five-${dialect.name}-${workers}.yaml`, 5) })
        try {
          assert.equal(await weightOfA(running.url), 5)
          const audited = (await http('GET', `${running.url}/api/audit`)).body.records.length
          const port = new URL(running.url).port
          const second = await runMain({ ...env, WORKERS: workers, HOST: '127.0.0.1', PORT: port, LOG_LEVEL: 'warn', CONFIG_FILE: declaredFile(`one-${dialect.name}-${workers}.yaml`, 1) })
          assert.equal(second.code, 1, second.stderr)
          assert.equal(second.stderr, `sourcepool: failed to start: 127.0.0.1:${port} is already in use; set PORT (or HOST) to another\n`)
          assert.equal(await weightOfA(running.url), 5, 'the running instance\'s member keeps its weight')
          assert.equal((await http('GET', `${running.url}/api/audit`)).body.records.length, audited, 'no audit record written')

          // A database of its own, never opened before: it stays as it was, not migrated.
          const fresh = dialect.name === 'sqlite' ? { url: `sqlite:${join(dir, `fresh-${workers}.db`)}`, drop: async () => {} } : await sharedDatabase(dialect)
          databases.push(fresh)
          const third = await runMain({ DATABASE_URL: fresh.url, WORKERS: workers, HOST: '127.0.0.1', PORT: port, LOG_LEVEL: 'warn' })
          assert.equal(third.code, 1, third.stderr)
          if (dialect.name === 'sqlite') assert.equal(existsSync(fresh.url.slice('sqlite:'.length)), false, 'no database file created')
          else assert.equal(await tablesOf(fresh.url), 0, 'no table created')
        } finally {
          assert.equal(await running.stop(), 0)
        }
      })
    }

    for (const workers of ['1', '2']) {
      it(`WORKERS=${workers}: a connection made while it starts waits, and is answered once CONFIG_FILE is applied`, async () => {
        const database = await sharedDatabase(dialect)
        databases.push(database)
        const port = await freePort()
        const child = spawn(process.execPath, [...SERVER_ENTRY], {
          cwd: ROOT,
          env: { ...process.env, WORKERS: workers, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', DATABASE_URL: database.url, PORTAL_A_KEY: 'secret-a', CONFIG_FILE: declaredFile(`waits-${dialect.name}-${workers}.yaml`, 5) },
          stdio: ['ignore', 'ignore', 'inherit']
        })
        const exited = new Promise((resolve) => child.once('exit', resolve))
        try {
          let socket: Socket | undefined
          for (const deadline = Date.now() + 60_000; socket === undefined; await sleep(5)) {
            assert.ok(child.exitCode === null && Date.now() < deadline, 'the port never took a connection')
            socket = await connected(port)
          }
          // The port takes connections before the service is built: the file is not applied yet.
          assert.equal(await poolsIn(database.url), 0, 'the port took the connection before CONFIG_FILE was applied')
          const asked = Date.now()
          const answer = await rawGet(socket, '/api/pools')
          // A start longer than HOLD_MS (a machine busy with other tests) is answered 503 Starting
          // instead, but only once the request has waited that long: an earlier 503 is a defect.
          if (answer.status === 503) {
            assert.ok(Date.now() - asked >= HOLD_MS - 50, `503 Starting after ${Date.now() - asked} ms, before HOLD_MS`)
            assert.match(answer.text, /Retry-After: 1\r\n[\s\S]*\{"detail":"Starting"\}$/i)
          } else assert.match(answer.text, /^HTTP\/1\.1 200 [\s\S]*"weight":5/)
          assert.equal(await weightOfA(`http://127.0.0.1:${port}`), 5)
        } finally {
          child.kill('SIGTERM')
          assert.equal(await exited, 0)
        }
      })
    }
  })
}
