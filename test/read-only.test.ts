/**
 * A read-only SQLite database must not look healthy while every write fails:
 * start-up refuses it in one line naming the file, and `/healthz` says 503
 * "not writable" when writes are refused after start.
 *
 * Root ignores file permissions, so as root the server runs as `nobody`.
 */
import assert from 'node:assert/strict'
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { sql } from 'kysely'
import { createDb } from '../src/db/create-db.js'
import { buildTestApp, sqlite } from './helpers.js'
import { runMain, type RunAs } from './server-process.js'

/** Someone whom file permissions apply to: ourselves, or `nobody` when we are root. */
const unprivileged: RunAs | undefined = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined

describe('a read-only SQLite database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-read-only-'))
  // Readable and searchable by the unprivileged user, writable only by us.
  chmodSync(dir, 0o755)
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  // A writable directory is the case that used to start and fail every write; a
  // read-only one used to fail with SQLite's "attempt to write a readonly database".
  for (const [where, mode] of [['a writable', 0o777], ['a read-only', 0o755]] as const) {
    it(`is refused at start-up, in one line naming the file, with a non-zero exit code (in ${where} directory)`, async () => {
      const folder = join(dir, `in-${mode.toString(8)}`)
      mkdirSync(folder)
      chmodSync(folder, mode)
      const file = join(folder, 'pools.db')
      await (await createDb(`sqlite:${file}`)).close()
      chmodSync(file, 0o444)
      const { code, stderr } = await runMain({ DATABASE_URL: `sqlite:${file}`, PORT: '0' }, unprivileged, 15_000)
      assert.equal(code, 1)
      assert.equal(stderr, `sourcepool: failed to start: database file ${file} is read-only\n`)
    })
  }

  it('that cannot even be created (a read-only directory) is refused in one line too', async () => {
    const readOnlyDir = join(dir, 'locked')
    mkdirSync(readOnlyDir)
    chmodSync(readOnlyDir, 0o555)
    const file = join(readOnlyDir, 'pools.db')
    const { code, stderr } = await runMain({ DATABASE_URL: `sqlite:${file}`, PORT: '0' }, unprivileged, 15_000)
    assert.equal(code, 1)
    assert.equal(stderr, `sourcepool: failed to start: cannot create ${file}: permission denied to write in ${readOnlyDir}\n`)
  })

  it('answers /healthz 503 "not writable", and writes with a clear 500, while writes are refused after start', async () => {
    const t = await buildTestApp(sqlite)
    try {
      const before = await t.request({ method: 'GET', url: '/healthz' })
      assert.deepEqual([before.status, before.body], [200, { status: 'ok' }])
      // SQLite's own switch: from now on this connection refuses writes as a read-only file does.
      await sql`pragma query_only = on`.execute(t.database.db)
      const health = await t.request({ method: 'GET', url: '/healthz' })
      assert.equal(health.status, 503)
      assert.deepEqual(health.body, { detail: 'Database is not writable' })
      const write = await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'p', category: 'rpc' }, headers: { 'x-request-id': 'req-ro' } })
      assert.equal(write.status, 500)
      assert.deepEqual(write.body, { detail: 'Failed to create pool: the database is read-only and refuses writes (request id req-ro)' })
      // Reads go on.
      assert.deepEqual((await t.request({ method: 'GET', url: '/api/pools' })).status, 200)

      await sql`pragma query_only = off`.execute(t.database.db)
      const healthy = await t.request({ method: 'GET', url: '/healthz' })
      assert.deepEqual([healthy.status, healthy.body], [200, { status: 'ok' }])
    } finally {
      await t.close()
    }
  })
})
