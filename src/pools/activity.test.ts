/**
 * Activity for charts over HTTP on both databases, on a test clock: the window's
 * shape, rotations and failovers counted by the history rule (health, refusal and
 * quota records left out; the SQL count agrees with rules/history-kind.ts), each
 * member's mean latency per minute from reports, proxied attempts (through the
 * runtime's flush) and passing health checks, the overview of every pool, the
 * validation and 404 answers, and the retention purge.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { addMember, createPool, createProvider, poolWithMembers } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { upstream, type Upstream } from '../../test/upstreams.js'
import { CompiledQuery, type Compilable } from 'kysely'
import type { Db } from '../db/types.js'
import { all, type Work } from '../db/work.js'
import { historyKind, isRotation } from '../rules/history-kind.js'
import { countMinutesByPool, countPoolMinutes } from './activity.repository.js'
import { purgeMemberMinutes } from './member-minutes.repository.js'

const START = '2026-11-23T22:41:10.000Z'
const MINUTE = 60_000

for (const dialect of dialects) {
  describeOn(dialect, 'activity', () => {
    let t: TestApp
    let clock: Date
    const upstreams: Upstream[] = []
    beforeEach(async () => {
      clock = new Date(START)
      t = await buildTestApp(dialect, { now: () => clock, healthCheckTimer: false })
    })
    afterEach(async () => {
      await t.close()
      for (const u of upstreams.splice(0)) await u.close()
    })

    const later = (ms: number) => { clock = new Date(clock.getTime() + ms) }
    const activity = async (poolId: number, query = '') => await t.request({ method: 'GET', url: `/api/pools/${poolId}/activity${query}` })
    const post = async (url: string, payload: Record<string, unknown> = {}) => await t.request({ method: 'POST', url, payload })
    /** The member's series of the pool's activity, by provider id. */
    const latencyOf = (body: any, providerId: number | undefined) => body.latency.find((l: { provider_id: number }) => l.provider_id === providerId)
    /** Rows of member_minutes, read from the database itself. */
    const storedMinutes = async () => await t.database.read((db) => all(db.selectFrom('member_minutes').select(['member_id', 'minute', 'samples']).orderBy('minute')))

    it('answers every minute of the window, oldest first, the current one last, zero-filled', async () => {
      const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
      const res = await activity(poolId, '?minutes=5')
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, {
        pool_id: poolId,
        minutes: 5,
        minute_starts: ['2026-11-23T22:37:00.000Z', '2026-11-23T22:38:00.000Z', '2026-11-23T22:39:00.000Z', '2026-11-23T22:40:00.000Z', '2026-11-23T22:41:00.000Z'],
        rotations: [0, 0, 0, 0, 0],
        failovers: [0, 0, 0, 0, 0],
        latency: [
          { provider_id: providers.a, provider_name: 'p-a', latency_ms: [null, null, null, null, null], samples: [0, 0, 0, 0, 0] },
          { provider_id: providers.b, provider_name: 'p-b', latency_ms: [null, null, null, null, null], samples: [0, 0, 0, 0, 0] }
        ]
      })
      const byDefault = await activity(poolId)
      assert.equal(byDefault.body.minutes, 60)
      for (const series of [byDefault.body.minute_starts, byDefault.body.rotations, byDefault.body.failovers, byDefault.body.latency[0].latency_ms, byDefault.body.latency[1].samples]) {
        assert.equal(series.length, 60)
      }
      assert.equal(byDefault.body.minute_starts[59], '2026-11-23T22:41:00.000Z')
      const day = await activity(poolId, '?minutes=1440')
      assert.equal(day.body.rotations.length, 1440)
    })

    it('counts rotations and failovers in their minutes, not the health records the history also holds', async () => {
      const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'], { failure_threshold: 1, cooldown_seconds: 30 })
      // Minute 22:41: two rotations, a failover that cools 'b' down (a health record).
      assert.equal((await post(`/api/pools/${poolId}/rotate`)).status, 200)
      assert.equal((await post(`/api/pools/${poolId}/rotate`, { reason: 'scheduled' })).status, 200)
      assert.equal((await post(`/api/pools/${poolId}/failover`, { failed_provider_id: providers.b, reason: 'timeout' })).status, 200)
      // Minute 22:42: 'b' answers again while probing (a health record), and a rotation whose client-chosen reason reads like one.
      later(MINUTE)
      assert.equal((await post(`/api/pools/${poolId}/report`, { provider_id: providers.b, success: true })).status, 200)
      assert.equal((await post(`/api/pools/${poolId}/rotate`, { reason: 'recovered' })).status, 200)
      const history = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history?limit=100` })).body.history
      assert.deepEqual(history.map((h: { reason: string }) => h.reason).reverse(), ['manual', 'scheduled', 'cooldown:consecutive_failures', 'timeout', 'recovered', 'recovered'])

      const res = await activity(poolId, '?minutes=3')
      assert.deepEqual(res.body.minute_starts, ['2026-11-23T22:40:00.000Z', '2026-11-23T22:41:00.000Z', '2026-11-23T22:42:00.000Z'])
      assert.deepEqual(res.body.rotations, [0, 3, 1])
      assert.deepEqual(res.body.failovers, [0, 1, 0])

      // The database's count is the rule's, record by record.
      const rows = await t.database.read((db) => all(db.selectFrom('rotation_history').select(['from_provider_id', 'to_provider_id', 'reason', 'notes', 'timestamp']).where('pool_id', '=', poolId)))
      const byRule = res.body.minute_starts.map((start: string) => rows.filter((r) => r.timestamp.slice(0, 16) === start.slice(0, 16)))
      assert.deepEqual(byRule.map((minute: typeof rows) => minute.filter((r) => isRotation(historyKind(r))).length), res.body.rotations)
      assert.deepEqual(byRule.map((minute: typeof rows) => minute.filter((r) => historyKind(r) === 'failover').length), res.body.failovers)

      // A failover that found no alternative chose nothing: no rotation.
      const lone = await poolWithMembers(t, 'lone', ['x'])
      assert.equal((await post(`/api/pools/${lone.poolId}/failover`, { failed_provider_id: lone.providers.x })).status, 404)
      const loneActivity = await activity(lone.poolId, '?minutes=1')
      assert.deepEqual([loneActivity.body.rotations, loneActivity.body.failovers], [[0], [0]])
    })

    it("averages each member's reported latency per minute; a report without one adds no sample", async () => {
      const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
      for (const latency of [100, 201]) await post(`/api/pools/${poolId}/report`, { provider_id: providers.a, success: true, latency_ms: latency })
      await post(`/api/pools/${poolId}/report`, { provider_id: providers.a, success: false, status_code: 503, latency_ms: 30 })
      await post(`/api/pools/${poolId}/report`, { provider_id: providers.b, success: true })
      later(MINUTE)
      await post(`/api/pools/${poolId}/report`, { provider_id: providers.b, success: true, latency_ms: 12.5 })
      const res = await activity(poolId, '?minutes=2')
      assert.deepEqual(latencyOf(res.body, providers.a), { provider_id: providers.a, provider_name: 'p-a', latency_ms: [110.33333333333333, null], samples: [3, 0] })
      assert.deepEqual(latencyOf(res.body, providers.b), { provider_id: providers.b, provider_name: 'p-b', latency_ms: [null, 12.5], samples: [0, 1] })
    })

    it("counts a proxied failover and each attempt's latency once the runtime has flushed", async () => {
      let calls = 0
      // 'a' fails its first request only.
      const down = await upstream((_req, res) => { res.writeHead(calls++ === 0 ? 503 : 200).end('{}') })
      const up = await upstream((_req, res) => { res.writeHead(200).end('{}') })
      upstreams.push(down, up)
      const poolId = await createPool(t, 'proxied')
      const a = await createProvider(t, 'a', { base_url: down.url })
      const b = await createProvider(t, 'b', { base_url: up.url })
      await addMember(t, poolId, a)
      await addMember(t, poolId, b)
      const proxied = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/data` })
      assert.equal(proxied.status, 200)
      assert.equal(proxied.headers['x-sourcepool-attempts'], '2')
      // A request served by its first choice: no history record, one more latency sample.
      const second = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/data` })
      assert.deepEqual([second.status, second.headers['x-sourcepool-attempts']], [200, '1'])
      // Any other API call first writes down what proxied traffic did.
      const res = await activity(poolId, '?minutes=1')
      assert.deepEqual(res.body.rotations, [1])
      assert.deepEqual(res.body.failovers, [1])
      assert.deepEqual(latencyOf(res.body, a).samples, [2])
      assert.deepEqual(latencyOf(res.body, b).samples, [1])
      assert.equal(typeof latencyOf(res.body, a).latency_ms[0], 'number')
      // Written in the flush, not per request: the rows are there for every process to read.
      assert.deepEqual((await storedMinutes()).map((r) => Number(r.samples)).sort(), [1, 2])
    })

    it("counts a passing health check's latency in every pool of the provider, and a failing one in none", async () => {
      let status = 200
      const checked = await upstream((_req, res) => { res.writeHead(status).end('{}') })
      upstreams.push(checked)
      const a = await createProvider(t, 'a', { base_url: checked.url, health_check: { path: '/health', interval_s: 10 } })
      const pools = [await createPool(t, 'one'), await createPool(t, 'two')]
      for (const poolId of pools) await addMember(t, poolId, a)
      await t.app.healthChecks.checkNow()
      status = 503
      later(10_000)
      await t.app.healthChecks.checkNow()
      assert.equal(checked.seen.length, 2)
      for (const poolId of pools) {
        const res = await activity(poolId, '?minutes=1')
        assert.deepEqual(latencyOf(res.body, a).samples, [1], `pool ${poolId}`)
        assert.equal(typeof latencyOf(res.body, a).latency_ms[0], 'number')
        assert.deepEqual(res.body.rotations, [0])
      }
    })

    it('answers every pool in one overview, by pool id, on the same minutes', async () => {
      const p = await poolWithMembers(t, 'p', ['a', 'b'])
      const q = await poolWithMembers(t, 'q', ['c', 'd'])
      const idle = await createPool(t, 'idle')
      await post(`/api/pools/${p.poolId}/rotate`)
      later(MINUTE)
      await post(`/api/pools/${q.poolId}/rotate`)
      await post(`/api/pools/${q.poolId}/failover`, { failed_provider_id: q.providers.c })
      await post(`/api/pools/${p.poolId}/rotate`)
      await post(`/api/pools/${p.poolId}/rotate`)
      // Every pool's history in the window is read: at most an hour of it.
      const tooLong = await t.request({ method: 'GET', url: '/api/activity?minutes=61' })
      assert.equal(tooLong.status, 422)
      assert.deepEqual(tooLong.body.detail[0].loc, ['query', 'minutes'])
      const res = await t.request({ method: 'GET', url: '/api/activity?minutes=3' })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, {
        minutes: 3,
        minute_starts: ['2026-11-23T22:40:00.000Z', '2026-11-23T22:41:00.000Z', '2026-11-23T22:42:00.000Z'],
        pools: [
          { pool_id: p.poolId, name: 'p', rotations: [0, 1, 2], failovers: [0, 0, 0] },
          { pool_id: q.poolId, name: 'q', rotations: [0, 0, 2], failovers: [0, 0, 1] },
          { pool_id: idle, name: 'idle', rotations: [0, 0, 0], failovers: [0, 0, 0] }
        ]
      })
      const one = await activity(q.poolId, '?minutes=3')
      assert.deepEqual([one.body.minute_starts, one.body.rotations, one.body.failovers], [res.body.minute_starts, [0, 0, 2], [0, 0, 1]])
      // Records out of the window are not counted: an hour on, the window is empty.
      later(60 * MINUTE)
      const empty = await t.request({ method: 'GET', url: '/api/activity?minutes=60' })
      assert.ok(empty.body.pools.every((pool: { rotations: number[] }) => pool.rotations.every((n) => n === 0)))
      assert.equal((await activity(p.poolId, '?minutes=62')).body.rotations[0], 1)
    })

    it('answers 422 for minutes outside 1-1440 or not an integer, and 404 for an unknown pool', async () => {
      const poolId = await createPool(t, 'p')
      for (const minutes of ['0', '1441', 'abc', '2.5', '-1']) {
        for (const url of [`/api/pools/${poolId}/activity?minutes=${minutes}`, `/api/activity?minutes=${minutes}`]) {
          const res = await t.request({ method: 'GET', url })
          assert.equal(res.status, 422, url)
          assert.deepEqual(res.body.detail.map((d: { loc: unknown }) => d.loc), [['query', 'minutes']], url)
          assert.equal(typeof res.body.detail[0].msg, 'string')
        }
      }
      const missing = await activity(poolId + 1)
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { detail: `Pool ${poolId + 1} not found` })
    })

    it('keeps minutes 25 hours after they end, purged in housekeeping; a removed member or pool takes its minutes along', async () => {
      const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
      const [a, b] = [providers.a as number, providers.b as number]
      const report = async (providerId: number) => await post(`/api/pools/${poolId}/report`, { provider_id: providerId, success: true, latency_ms: 10 })
      await report(a)
      await report(b)
      later(2 * 60 * MINUTE)
      await report(a)
      await report(b)
      assert.equal((await storedMinutes()).length, 4)

      assert.equal((await t.request({ method: 'DELETE', url: `/api/pools/${poolId}/members/${a}` })).status, 200)
      assert.deepEqual((await storedMinutes()).map((r) => r.minute), ['2026-11-23T22:41:00.000Z', '2026-11-24T00:41:00.000Z'])
      // Added again: a new member, without the old one's minutes.
      await addMember(t, poolId, a)
      const res = await activity(poolId, '?minutes=121')
      assert.equal(latencyOf(res.body, a).samples.reduce((sum: number, n: number) => sum + n, 0), 0)
      assert.deepEqual([latencyOf(res.body, b).samples[0], latencyOf(res.body, b).samples[120]], [1, 1])

      // The minute 22:41 ended at 22:42: it is kept until 22:42 the next day.
      clock = new Date('2026-11-24T23:41:59.999Z')
      await t.app.runHousekeeping()
      assert.equal((await storedMinutes()).length, 2)
      clock = new Date('2026-11-24T23:42:00.000Z')
      await t.app.runHousekeeping()
      assert.deepEqual((await storedMinutes()).map((r) => r.minute), ['2026-11-24T00:41:00.000Z'])

      assert.equal((await t.request({ method: 'DELETE', url: `/api/pools/${poolId}` })).status, 200)
      assert.equal((await storedMinutes()).length, 0)
    })

    if (dialect.name === 'sqlite') {
      it('reads only the window through indexes: a pool, the overview and the purge', async () => {
        /** SQLite's plan of the first statement `work` runs (the repository's own SQL). */
        const plan = async (work: (db: Db) => Work<unknown>) => await t.database.read(function * (db) {
          const compiled = (work(db).next().value as Compilable<unknown>).compile()
          const rows = yield * all({ compile: () => CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]) })
          return (rows as Array<{ detail: string }>).map((r) => r.detail).join('; ')
        })
        const [from, to] = ['2026-11-23T22:00:00.000Z', '2026-11-23T23:00:00.000Z']
        assert.match(await plan((db) => countPoolMinutes(db, 1, from, to)), /USING (COVERING )?INDEX rotation_history_pool_time_idx/)
        assert.match(await plan((db) => countMinutesByPool(db, from, to)), /USING (COVERING )?INDEX rotation_history_time_idx/)
        assert.match(await plan((db) => purgeMemberMinutes(db, from)), /USING (COVERING )?INDEX member_minutes_minute_idx/)
      })
    }
  })
}
