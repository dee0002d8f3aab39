/**
 * A start binds its port before it touches the database, on both databases and with
 * WORKERS 1 and 2: a start on a port already in use exits 1 with one line naming PORT,
 * having applied no CONFIG_FILE (the running instance's member keeps its weight, no
 * audit record) and migrated nothing (a fresh database stays empty). Until it is
 * ready, every request is answered 503 Starting, so /healthz never says ready before
 * CONFIG_FILE is applied.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { DECLARED_FILE } from './fixtures.js'
import { describeOn, dialects, sharedDatabase, sleep, type TestDatabase } from './helpers.js'
import { freePort, http, runMain, startServer } from './server-process.js'

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
      it(`WORKERS=${workers}: answers every request 503 Starting (Retry-After, Connection: close) until CONFIG_FILE is applied and it serves`, async () => {
        const database = await sharedDatabase(dialect)
        databases.push(database)
        const port = await freePort()
        const url = `http://127.0.0.1:${port}`
        const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
          cwd: ROOT,
          env: { ...process.env, WORKERS: workers, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', DATABASE_URL: database.url, PORTAL_A_KEY: 'secret-a', CONFIG_FILE: declaredFile(`starting-${dialect.name}-${workers}.yaml`, 5) },
          stdio: ['ignore', 'ignore', 'inherit']
        })
        const exited = new Promise((resolve) => child.once('exit', resolve))
        try {
          const starting: Array<{ status: number, body: string, headers: Record<string, string | null> }> = []
          const deadline = Date.now() + 60_000
          while (Date.now() < deadline && child.exitCode === null) {
            const res = await fetch(`${url}/healthz`).catch(() => undefined)
            if (res !== undefined) {
              const body = await res.text()
              if (res.status === 200) break
              starting.push({ status: res.status, body, headers: { 'retry-after': res.headers.get('retry-after'), connection: res.headers.get('connection'), 'x-request-id': res.headers.get('x-request-id') } })
            }
            await sleep(5)
          }
          // Ready means CONFIG_FILE applied: its pool is there with the file's weight.
          assert.equal(await weightOfA(url), 5)
          assert.ok(starting.length > 0, 'the port answered before the service was ready')
          for (const answer of starting) {
            assert.deepEqual([answer.status, JSON.parse(answer.body), answer.headers['retry-after'], answer.headers.connection], [503, { detail: 'Starting' }, '1', 'close'])
            assert.match(answer.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/)
          }
        } finally {
          child.kill('SIGTERM')
          assert.equal(await exited, 0)
        }
      })
    }
  })
}
