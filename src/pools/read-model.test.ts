/**
 * The read model of pool status records (read-model.ts): what it serves from
 * memory is byte for byte what Fastify wrote for a freshly built record; a cached
 * read costs the change check at most; it is rebuilt when a cooldown or a quota
 * window ends with no write, and an evm pool's a second after it was built (its
 * members' heads). (What the proxy has not written down yet is written
 * before every API read by the settle hook in app.ts, not by the read model.)
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { createChangeFeed } from '../changes.js'
import type { DbHandle } from '../db/create-db.js'
import type { Db } from '../db/types.js'
import { execute, type Work, type WorkRunner } from '../db/work.js'
import { SYSTEM_ACTOR } from '../audit/audit.js'
import { addMember, createPool, createProvider, poolWithMembers, rotateTimes } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, fastifyBytes, type TestApp } from '../../test/helpers.js'
import { createMemberService } from './member.service.js'
import { buildPoolStatuses } from './pool-status.js'
import { listPools } from './pool.repository.js'
import { bumpChangeSeqs } from '../db/unit-of-work.js'
import { PoolList, PoolStatus } from './pool.schemas.js'
import { createPoolService } from './pool.service.js'
import { joined } from './read-model.js'
import { createProviderService } from '../providers/provider.service.js'

/** The handle as a work runner that counts the statements its work runs. */
function counting (handle: DbHandle): { runner: WorkRunner & { changeToken: () => string | null }, statements: () => number } {
  let statements = 0
  const counted = <T>(work: (db: Db) => Work<T>) => (db: Db): Work<T> => (function * () {
    const inner = work(db)
    let step = inner.next()
    while (step.done !== true) {
      statements++
      step = inner.next(yield step.value)
    }
    return step.value
  })()
  return {
    runner: { transact: (work) => handle.transact(counted(work)), read: (work) => handle.read(counted(work)), changeToken: () => handle.changeToken() },
    statements: () => statements
  }
}

for (const dialect of dialects) {
  describeOn(dialect, 'pool status read model', () => {
    let clock = Date.parse('2026-03-01T12:00:00.000Z')
    let t: TestApp
    beforeEach(async () => {
      clock = Date.parse('2026-03-01T12:00:00.000Z')
      t = await buildTestApp(dialect, { now: () => new Date(clock) })
    })
    afterEach(async () => { await t.close() })

    const get = async (url: string) => await t.app.inject({ method: 'GET', url })

    it('serves from memory the bytes Fastify wrote for a freshly built record', async () => {
      const { poolId, providers } = await poolWithMembers(t, 'odd "name" \\ é 😀 \u2028', ['a', 'b', 'c'], { description: 'tab\there\nline\u0007 ✓' })
      const limited = await createProvider(t, 'limité "q"', { rate_limit: { requests: 100, per: 'hour' } })
      await addMember(t, poolId, limited)
      await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers.c}`, payload: { enabled: false } })
      await rotateTimes(t, poolId, 4)
      for (const latency of [12.5, 7.25, 100]) {
        await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers.a, success: latency !== 100, latency_ms: latency } })
      }
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers.b, success: false, status_code: 429, retry_after_s: 90 } })
      // History now names a provider that no longer exists.
      await t.request({ method: 'DELETE', url: `/api/providers/${providers.a}` })
      await createPool(t, 'empty')

      const first = await get(`/api/pools/${poolId}`)
      const cached = await get(`/api/pools/${poolId}`)
      const list = await get('/api/pools')
      const fresh = await t.database.read(function * (db) { return yield * buildPoolStatuses(db, yield * listPools(db), new Date(clock)) })
      assert.equal(fresh.length, 2)
      assert.equal(fresh[0]?.members.some((m) => m.health === 'cooling_down' && m.quota === null), true)
      assert.equal(fresh[0]?.members.some((m) => m.quota !== null && m.quota.used > 0), true)
      assert.equal(fresh[0]?.recent_rotations.some((r) => r.to_provider === null), true)
      const expected = await fastifyBytes(PoolStatus, fresh[0])
      assert.equal(first.body, expected)
      assert.equal(cached.body, expected)
      assert.equal(cached.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(list.body, await fastifyBytes(PoolList, { pools: fresh, total: 2, timestamp: new Date(clock).toISOString() }))
      assert.equal(list.headers['content-type'], 'application/json; charset=utf-8')
      assert.equal(list.headers['content-length'], String(Buffer.byteLength(list.body)))
      assert.equal(list.headers['transfer-encoding'], undefined)
    })

    it('answers a cached read with the change check alone (none at all on SQLite), and rebuilds only the pool that changed', async () => {
      const counter = counting(t.database)
      const changes = createChangeFeed()
      const pools = createPoolService({ database: counter.runner, now: () => new Date(clock), changes })
      const members = createMemberService({ database: t.database, now: () => new Date(clock), changes })
      const a = await poolWithMembers(t, 'a', ['x', 'y'])
      await poolWithMembers(t, 'b', ['x', 'y'])
      await rotateTimes(t, a.poolId, 2)
      const check = dialect.name === 'sqlite' ? 0 : 1
      const cost = async (read: () => Promise<unknown>) => {
        const before = counter.statements()
        await read()
        return counter.statements() - before
      }
      assert.ok(await cost(() => pools.listPoolStatuses()) > 4)
      assert.equal(await cost(() => pools.listPoolStatuses()), check)
      assert.equal(await cost(() => pools.getPoolStatus(a.poolId)), check)
      await members.updateMember(a.poolId, a.providers.x as number, { priority: 7 }, SYSTEM_ACTOR)
      // The change check, then the one pool: its row, members and history, and its change_seq once built.
      assert.equal(await cost(() => pools.listPoolStatuses()), 1 + 3 + 1)
      assert.equal(await cost(() => pools.listPoolStatuses()), check)
      assert.equal(JSON.parse((await pools.getPoolStatus(a.poolId)).toString()).members[0].priority, 7)
    })

    it('shows a write of this process that moved change_seq without telling the change feed', async () => {
      const { poolId } = await poolWithMembers(t, 'untold', ['x'])
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.description, null)
      assert.equal((await t.request({ method: 'GET', url: '/api/pools' })).body.pools[0].description, null)
      await t.database.transact(function * (db) {
        yield * execute(db.updateTable('pools').set({ description: 'untold' }).where('id', '=', poolId))
        yield * bumpChangeSeqs(db, [poolId])
      })
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.description, 'untold')
      assert.equal((await t.request({ method: 'GET', url: '/api/pools' })).body.pools[0].description, 'untold')
    })

    it('drops what the change feed names at once, even where the change token would not move', async () => {
      const a = await poolWithMembers(t, 'told', ['x'])
      const changes = createChangeFeed()
      // A token that never moves: only the feed can tell this read model of a change.
      const database = { transact: t.database.transact, read: t.database.read, changeToken: () => 'fixed' }
      const pools = createPoolService({ database, now: () => new Date(clock), changes })
      const members = createMemberService({ database: t.database, now: () => new Date(clock), changes })
      const providers = createProviderService({ database: t.database, now: () => new Date(clock), changes })
      const read = async () => [JSON.parse((await pools.getPoolStatus(a.poolId)).toString()), JSON.parse(joined(await pools.listPoolStatuses()).toString()).pools[0]]
      await read()
      await members.updateMember(a.poolId, a.providers.x as number, { weight: 5 }, SYSTEM_ACTOR)
      for (const status of await read()) assert.equal(status.members[0].weight, 5)
      await providers.updateProvider(a.providers.x as number, { name: 'told-renamed' }, SYSTEM_ACTOR, 'admin')
      for (const status of await read()) assert.equal(status.members[0].provider_name, 'told-renamed')
    })

    it('shows probing once a cooldown ends, with no write', async () => {
      const { poolId, providers } = await poolWithMembers(t, 'cooling', ['x', 'y'])
      const report = await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers.x, success: false, status_code: 429, retry_after_s: 60 } })
      assert.equal(report.status, 200)
      const health = async () => {
        const one = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members[0].health
        const listed = (await t.request({ method: 'GET', url: '/api/pools' })).body.pools[0].members[0].health
        assert.equal(listed, one)
        return one
      }
      assert.equal(await health(), 'cooling_down')
      clock += 59_999
      assert.equal(await health(), 'cooling_down')
      clock += 1
      assert.equal(await health(), 'probing')
    })

    it('shows used 0 and the next reset once the quota window ends, with no write', async () => {
      const provider = await createProvider(t, 'metered', { rate_limit: { requests: 5, per: 'minute' } })
      const poolId = await createPool(t, 'metered')
      await addMember(t, poolId, provider)
      await rotateTimes(t, poolId, 2)
      const quota = async () => {
        const one = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members[0].quota
        assert.deepEqual((await t.request({ method: 'GET', url: '/api/pools' })).body.pools[0].members[0].quota, one)
        return one
      }
      assert.deepEqual(await quota(), { used: 2, limit: 5, unit: 'requests', resets_at: '2026-03-01T12:01:00.000Z' })
      clock += 59_999
      assert.equal((await quota()).used, 2)
      clock += 1
      assert.deepEqual(await quota(), { used: 0, limit: 5, unit: 'requests', resets_at: '2026-03-01T12:02:00.000Z' })
    })

    it('shows an evm pool\'s heads a second behind at most, with no write, in Fastify\'s bytes; asks none for other pools', async () => {
      const evm = await poolWithMembers(t, 'chain', ['near', 'far'], { protocol: 'evm', max_block_lag: 5 })
      const plain = await poolWithMembers(t, 'plain', ['p'])
      let known: Array<{ provider_id: number, head: string | null, lag: number | null }> = []
      const asked: number[] = []
      const memberHeads = (poolId: number) => { asked.push(poolId); return known }
      const pools = createPoolService({ database: t.database, now: () => new Date(clock), changes: createChangeFeed(), memberHeads })
      const heads = async () => {
        const one = JSON.parse((await pools.getPoolStatus(evm.poolId)).toString())
        const listed = JSON.parse(joined(await pools.listPoolStatuses()).toString()).pools.find((p: { pool_id: number }) => p.pool_id === evm.poolId)
        assert.deepEqual(listed.members, one.members)
        return one.members.map((m: Record<string, unknown>) => [m.head_block, m.block_lag, m.lagging])
      }
      assert.deepEqual(await heads(), [[null, null, false], [null, null, false]])
      known = [{ provider_id: evm.providers.near as number, head: '120', lag: 0 }, { provider_id: evm.providers.far as number, head: '100', lag: 20 }]
      clock += 999
      assert.deepEqual(await heads(), [[null, null, false], [null, null, false]], 'kept as built for a second')
      clock += 1
      assert.deepEqual(await heads(), [['120', 0, false], ['100', 20, true]])
      // The bytes kept are those Fastify writes for the record built now.
      const fresh = await t.database.read(function * (db) { return yield * buildPoolStatuses(db, yield * listPools(db), new Date(clock), memberHeads) })
      assert.equal((await pools.getPoolStatus(evm.poolId)).toString(), await fastifyBytes(PoolStatus, fresh[0]))
      // An http pool's record asks no heads and has none of the keys.
      assert.ok(!asked.includes(plain.poolId))
      const record = JSON.parse((await pools.getPoolStatus(plain.poolId)).toString())
      assert.deepEqual(Object.keys(record.members[0]).filter((key) => ['head_block', 'block_lag', 'lagging'].includes(key)), [])
    })
  })
}
