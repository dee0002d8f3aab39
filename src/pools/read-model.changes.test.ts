/**
 * When the read model (read-model.ts) must let go of a record: after a write by
 * another process (here a second app with its own connection, change feed and read
 * model on the same database) the next read shows it; this process's admin writes
 * show at once; and every admin write bumps change_seq for the other processes.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, it } from 'node:test'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { sql } from 'kysely'
import { buildApp } from '../app.js'
import { loadConfig } from '../config.js'
import { createDb, type DbHandle } from '../db/create-db.js'
import { recordRefusal } from '../providers/refusal.repository.js'
import { addMember, createPool, createProvider, poolWithMembers, rotateTimes } from '../../test/fixtures.js'
import { createPostgresSchema, describeOn, dialects, type TestApp } from '../../test/helpers.js'

/** One app of the pair, as a test drives it. */
type Side = TestApp

/** Two apps on one database file or schema, as two processes would be. */
async function twoApps (dialect: 'sqlite' | 'postgres', now: () => Date): Promise<{ a: Side, b: Side, close: () => Promise<void> }> {
  let url: string
  let drop: () => Promise<void>
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'sourcepool-read-model-'))
    url = `sqlite:${join(dir, 'shared.db')}`
    drop = async () => { rmSync(dir, { recursive: true, force: true }) }
  } else {
    const schema = await createPostgresSchema()
    url = schema.url
    drop = schema.drop
  }
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' })
  const side = async (): Promise<{ side: Side, app: FastifyInstance, database: DbHandle }> => {
    const database = await createDb(url)
    const app = await buildApp(config, { logger: false, database, now })
    await app.ready()
    const request = async (options: InjectOptions) => {
      const res = await app.inject(options)
      return { status: res.statusCode, body: res.body === '' ? undefined : JSON.parse(res.body), headers: res.headers }
    }
    return { side: { app, database, request, close: async () => {} }, app, database }
  }
  // One after the other, so the second finds the database migrated.
  const a = await side()
  const b = await side()
  return {
    a: a.side,
    b: b.side,
    close: async () => {
      for (const s of [a, b]) {
        await s.app.close()
        await s.database.close()
      }
      await drop()
    }
  }
}

for (const dialect of dialects) {
  describeOn(dialect, 'pool status read model: changes', () => {
    const clock = Date.parse('2026-03-01T12:00:00.000Z')
    let pair: Awaited<ReturnType<typeof twoApps>>
    let a: Side
    let b: Side
    beforeEach(async () => {
      pair = await twoApps(dialect.name, () => new Date(clock))
      a = pair.a
      b = pair.b
    })
    afterEach(async () => { await pair.close() })

    const one = async (side: Side, id: number) => (await side.request({ method: 'GET', url: `/api/pools/${id}` })).body
    const list = async (side: Side) => (await side.request({ method: 'GET', url: '/api/pools' })).body

    it("shows another process's writes at the next read, and only writes that move change_seq", async () => {
      const { poolId, providers } = await poolWithMembers(a, 'shared', ['x', 'y'])
      assert.equal((await one(a, poolId)).description, null)
      assert.equal((await list(a)).total, 1)
      // Not through the service: change_seq stays, so a reads its record from memory.
      await sql`update pools set description = 'behind the back' where id = ${poolId}`.execute(b.database.db)
      assert.equal((await one(a, poolId)).description, null)
      assert.equal((await list(a)).pools[0].description, null)

      await b.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { description: 'from b' } })
      assert.equal((await one(a, poolId)).description, 'from b')
      await list(a)
      await b.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers.x}`, payload: { weight: 9 } })
      assert.equal((await list(a)).pools[0].members[0].weight, 9)
      assert.equal((await one(a, poolId)).members[0].weight, 9)
      await rotateTimes(b, poolId, 1)
      assert.equal((await one(a, poolId)).total_rotations, 1)
      assert.equal((await list(a)).pools[0].recent_rotations.length, 1)
      await b.request({ method: 'PUT', url: `/api/providers/${providers.y}`, payload: { name: 'renamed-y' } })
      assert.equal((await one(a, poolId)).members[1].provider_name, 'renamed-y')

      const other = await createPool(b, 'created-by-b')
      assert.deepEqual((await list(a)).pools.map((p: any) => p.pool_id), [poolId, other])
      await b.request({ method: 'DELETE', url: `/api/pools/${poolId}` })
      assert.equal((await a.request({ method: 'GET', url: `/api/pools/${poolId}` })).status, 404)
      assert.deepEqual((await list(a)).pools.map((p: any) => p.pool_id), [other])
    })

    it("shows a provider's rename where it is only the current provider or in recent history, in both processes", async () => {
      const { poolId, providers } = await poolWithMembers(a, 'history', ['gone', 'stays'])
      await rotateTimes(a, poolId, 1)
      assert.equal((await one(a, poolId)).current_provider.provider_id, providers.gone)
      await a.request({ method: 'DELETE', url: `/api/pools/${poolId}/members/${providers.gone}` })
      assert.equal((await one(a, poolId)).recent_rotations[0].to_provider, 'history-gone')
      assert.equal((await one(b, poolId)).recent_rotations[0].to_provider, 'history-gone')
      await a.request({ method: 'PUT', url: `/api/providers/${providers.gone}`, payload: { name: 'new-name' } })
      for (const side of [a, b]) {
        const status = await one(side, poolId)
        assert.equal(status.current_provider.name, 'new-name')
        assert.equal(status.recent_rotations[0].to_provider, 'new-name')
      }
      await b.request({ method: 'DELETE', url: `/api/providers/${providers.gone}` })
      for (const side of [a, b]) {
        const status = await one(side, poolId)
        assert.equal(status.current_provider, null)
        assert.equal(status.recent_rotations[0].to_provider, null)
      }
    })

    it("shows this process's admin writes at once", async () => {
      const poolId = await createPool(a, 'admin')
      const provider = await createProvider(a, 'p', { rate_limit: { requests: 10, per: 'day' } })
      const steps: Array<[InjectOptions, (status: any) => void]> = [
        [{ method: 'POST', url: `/api/pools/${poolId}/members`, payload: { provider_id: provider } }, (s) => assert.equal(s.members.length, 1)],
        [{ method: 'PUT', url: `/api/pools/${poolId}/members/${provider}`, payload: { enabled: false } }, (s) => assert.equal(s.members[0].enabled, false)],
        [{ method: 'PUT', url: `/api/pools/${poolId}`, payload: { rotation_strategy: 'weighted' } }, (s) => assert.equal(s.rotation_strategy, 'weighted')],
        [{ method: 'PUT', url: `/api/providers/${provider}`, payload: { name: 'p2' } }, (s) => assert.equal(s.members[0].provider_name, 'p2')],
        [{ method: 'DELETE', url: `/api/providers/${provider}/rate_limit` }, (s) => assert.equal(s.members[0].quota, null)],
        [{ method: 'DELETE', url: `/api/pools/${poolId}/members/${provider}` }, (s) => assert.deepEqual(s.members, [])]
      ]
      for (const [write, check] of steps) {
        await one(a, poolId)
        await list(a)
        assert.equal((await a.request(write)).status, 200, JSON.stringify(write))
        check(await one(a, poolId))
        check((await list(a)).pools[0])
      }
      const second = await addMember(a, poolId, await createProvider(a, 'q'))
      assert.ok(second > 0)
      await one(a, poolId)
      await a.request({ method: 'DELETE', url: '/api/providers/' + String((await one(a, poolId)).members[0].provider_id) })
      assert.deepEqual((await one(a, poolId)).members, [])
      const created = await createPool(a, 'admin-2')
      assert.equal((await list(a)).total, 2)
      await a.request({ method: 'DELETE', url: `/api/pools/${created}` })
      assert.equal((await list(a)).total, 1)
      assert.equal((await a.request({ method: 'GET', url: `/api/pools/${created}` })).status, 404)
    })

    it('bumps change_seq in every admin write, clearing a refusal included', async () => {
      const { poolId, providers } = await poolWithMembers(a, 'seq', ['x'])
      const seq = async () => Number((await sql<{ change_seq: number }>`select change_seq from pools where id = ${poolId}`.execute(b.database.db)).rows[0]?.change_seq)
      const bumps = async (write: InjectOptions) => {
        const before = await seq()
        assert.equal((await a.request(write)).status, 200, JSON.stringify(write))
        return (await seq()) > before
      }
      await a.database.transact((db) => recordRefusal(db, providers.x as number, '/data', new Date(clock).toISOString(), new Date(clock + 3_600_000).toISOString(), 10))
      assert.equal(await bumps({ method: 'DELETE', url: `/api/providers/${providers.x}/refusals/data` }), true)
      assert.equal(await bumps({ method: 'PUT', url: `/api/providers/${providers.x}`, payload: { rate_limit: { requests: 3, per: 'hour' } } }), true)
      assert.equal(await bumps({ method: 'DELETE', url: `/api/providers/${providers.x}/rate_limit` }), true)
      assert.equal(await bumps({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers.x}`, payload: { priority: 4 } }), true)
      assert.equal(await bumps({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { enabled: false } }), true)
      // An update that changes nothing writes nothing.
      assert.equal(await bumps({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers.x}`, payload: {} }), false)
      assert.equal(await bumps({ method: 'DELETE', url: `/api/pools/${poolId}/members/${providers.x}` }), true)
      assert.equal(await bumps({ method: 'POST', url: `/api/pools/${poolId}/members`, payload: { provider_id: providers.x } }), true)
      assert.equal(await bumps({ method: 'DELETE', url: `/api/providers/${providers.x}` }), true)
    })
  })
}
