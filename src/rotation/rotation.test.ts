import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { ISO_UTC, createPool, poolWithMembers, rotateTimes } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

function counts (ids: number[]): Map<number, number> {
  const result = new Map<number, number>()
  for (const id of ids) result.set(id, (result.get(id) ?? 0) + 1)
  return result
}

for (const dialect of dialects) {
  describeOn(dialect, 'rotation', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => { await t.close() })

    describe('POST /api/pools/:pool_id/rotate', () => {
      it('answers the next provider with the spec fields, and no reason', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { reason: 'scheduled' } })
        assert.equal(res.status, 200)
        assert.deepEqual(Object.keys(res.body).sort(), ['message', 'pool_id', 'provider_id', 'provider_name', 'timestamp'])
        assert.equal(res.body.pool_id, poolId)
        assert.equal(res.body.provider_id, providers.a)
        assert.equal(res.body.provider_name, 'p-a')
        assert.match(res.body.timestamp, ISO_UTC)
        assert.equal(res.body.message, "Rotated to provider 'p-a'")
        const history = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
        assert.equal(history.body.history[0].reason, 'scheduled')
      })

      it('works with no body, an empty body and an empty JSON object', async () => {
        const { poolId } = await poolWithMembers(t, 'p', ['a'])
        assert.equal((await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })).status, 200)
        assert.equal((await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, headers: { 'content-type': 'application/json' }, payload: '' })).status, 200)
        assert.equal((await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: {} })).status, 200)
        const history = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
        assert.equal(history.body.history[0].reason, 'manual')
      })

      it('round_robin cycles through enabled members by member_id and skips disabled ones', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'rr', ['a', 'b', 'c'])
        assert.deepEqual(await rotateTimes(t, poolId, 4), [providers.a, providers.b, providers.c, providers.a])
        await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers.c}`, payload: { enabled: false } })
        assert.deepEqual(await rotateTimes(t, poolId, 3), [providers.b, providers.a, providers.b])
      })

      it('weighted with weights 5,1,1 chooses A B A A C A A', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'w', [{ name: 'a', weight: 5 }, { name: 'b', weight: 1 }, { name: 'c', weight: 1 }], { rotation_strategy: 'weighted' })
        const { a, b, c } = providers
        assert.deepEqual(await rotateTimes(t, poolId, 7), [a, b, a, a, c, a, a])
      })

      it('priority prefers the highest number and rotates among ties', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'pr', [{ name: 'low', priority: 1 }, { name: 'hi1', priority: 5 }, { name: 'hi2', priority: 5 }], { rotation_strategy: 'priority' })
        assert.deepEqual(await rotateTimes(t, poolId, 4), [providers.hi1, providers.hi2, providers.hi1, providers.hi2])
      })

      it('least_used evens out use counts, ties by member_id', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'lu', ['a', 'b', 'c'], { rotation_strategy: 'least_used' })
        assert.deepEqual(await rotateTimes(t, poolId, 5), [providers.a, providers.b, providers.c, providers.a, providers.b])
      })

      it('random chooses only enabled members, following the injected random source', async () => {
        await t.close()
        const values = [0.9, 0.1, 0.5]
        let i = 0
        t = await buildTestApp(dialect, { random: () => values[i++ % values.length] as number })
        const { poolId, providers } = await poolWithMembers(t, 'rnd', ['a', 'b', 'c', 'off'], { rotation_strategy: 'random' })
        await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers.off}`, payload: { enabled: false } })
        assert.deepEqual(await rotateTimes(t, poolId, 3), [providers.c, providers.a, providers.b])
      })

      it('least_latency tries unmeasured members first, then follows reported latency (injected random), and explain says how it draws', async () => {
        await t.close()
        const values = [0.5, 0.9, 0.1]
        let i = 0
        t = await buildTestApp(dialect, { random: () => values[i++ % values.length] as number })
        const { poolId, providers } = await poolWithMembers(t, 'll', ['slow', 'fast', 'new'], { rotation_strategy: 'least_latency' })
        for (const [name, latency] of [['slow', 800], ['fast', 30]] as const) {
          assert.equal((await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers[name], success: true, latency_ms: latency } })).status, 200)
        }
        // 'new' has no measurement yet: it goes first, and explain can name it.
        const first = await t.request({ method: 'GET', url: `/api/pools/${poolId}/next` })
        assert.deepEqual([first.body.rotation_strategy, first.body.provider_id], ['least_latency', providers.new])
        assert.deepEqual(await rotateTimes(t, poolId, 1), [providers.new])
        await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers.new, success: true, latency_ms: 100 } })
        // Every member measured: each rotation draws two (0.5 → no uniform pick; 0.9, 0.1 → members 3 and 1).
        const drawn = await t.request({ method: 'GET', url: `/api/pools/${poolId}/next` })
        assert.equal(drawn.body.provider_id, null)
        assert.match(drawn.body.explanation, /draws two members at random and takes the lower average latency .* the fastest now is 'll-fast' \(30 ms\)/)
        assert.deepEqual(await rotateTimes(t, poolId, 1), [providers.new])
      })

      it('consistent_hash gives a key the same member every time, explain agrees, and a key over 256 characters is a 422', async () => {
        const { poolId } = await poolWithMembers(t, 'ch', ['a', 'b', 'c', 'd'], { rotation_strategy: 'consistent_hash' })
        const rotate = async (key: string) => (await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { key } })).body.provider_id
        const placed = new Map<string, number>()
        for (let i = 0; i < 20; i++) placed.set(`user-${i}`, await rotate(`user-${i}`))
        for (const [key, provider] of placed) assert.equal(await rotate(key), provider, key)
        assert.ok(new Set(placed.values()).size >= 3, 'keys spread over the members')
        const explained = await t.request({ method: 'GET', url: `/api/pools/${poolId}/next?key=user-7` })
        assert.equal(explained.body.provider_id, placed.get('user-7'))
        const tooLong = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { key: 'k'.repeat(257) } })
        assert.equal(tooLong.status, 422)
        assert.deepEqual(tooLong.body.detail[0].loc, ['body', 'key'])
      })

      it('counts use, rotations and current provider, and records history only when the provider changes', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'one', ['solo'])
        await rotateTimes(t, poolId, 3)
        const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
        assert.equal(status.body.total_rotations, 3)
        assert.equal(status.body.members[0].use_count, 3)
        assert.deepEqual(status.body.current_provider, { id: providers.solo, provider_id: providers.solo, name: 'one-solo', status: 'active' })
        const history = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
        assert.equal(history.body.total, 1)
        assert.deepEqual({ ...history.body.history[0], id: 0, timestamp: '' }, {
          id: 0, timestamp: '', from_provider: null, to_provider: 'one-solo', reason: 'manual', success: true, notes: null
        })
      })

      it('answers 404 "No available providers" for an unknown pool, an empty pool, all members disabled and a disabled pool', async () => {
        assert.deepEqual((await t.request({ method: 'POST', url: '/api/pools/404/rotate' })).body, { detail: 'No available providers in pool 404' })
        const empty = await createPool(t, 'empty')
        const res = await t.request({ method: 'POST', url: `/api/pools/${empty}/rotate` })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { detail: `No available providers in pool ${empty}` })
        const { poolId, providers } = await poolWithMembers(t, 'off', ['a'])
        await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers.a}`, payload: { enabled: false } })
        assert.equal((await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })).status, 404)
        await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers.a}`, payload: { enabled: true } })
        await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { enabled: false } })
        const disabledPool = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })
        assert.equal(disabledPool.status, 404)
        assert.deepEqual(disabledPool.body, { detail: `No available providers in pool ${poolId}` })
        const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
        assert.equal(status.body.total_rotations, 0)
      })

      it('answers 422 for a reason that is not a string', async () => {
        const { poolId } = await poolWithMembers(t, 'p', ['a'])
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate`, payload: { reason: 5 } })
        assert.equal(res.status, 422)
        assert.deepEqual(res.body.detail[0].loc, ['body', 'reason'])
      })

      it('keeps 100 concurrent rotations of a 4-member round_robin pool exact', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'busy', ['a', 'b', 'c', 'd'])
        const results = await Promise.all(Array.from({ length: 100 }, () => t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })))
        assert.ok(results.every((r) => r.status === 200))
        const byProvider = counts(results.map((r) => r.body.provider_id))
        for (const id of Object.values(providers)) assert.equal(byProvider.get(id), 25)
        const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
        assert.equal(status.body.total_rotations, 100)
        assert.equal(status.body.members.reduce((sum: number, m: any) => sum + m.use_count, 0), 100)
        const history = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history?limit=1000` })).body.history.reverse()
        assert.equal(history.length, 100)
        for (let i = 1; i < history.length; i++) assert.equal(history[i].from_provider, history[i - 1].to_provider)
      })
    })

    describe('POST /api/pools/:pool_id/failover', () => {
      it('moves to another provider, counts the failure and always records history', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'fo', ['a', 'b', 'c'])
        await rotateTimes(t, poolId, 1)
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers.a } })
        assert.equal(res.status, 200)
        assert.deepEqual(Object.keys(res.body).sort(), ['failed_provider_id', 'message', 'new_provider_id', 'new_provider_name', 'pool_id', 'timestamp'])
        assert.equal(res.body.pool_id, poolId)
        assert.equal(res.body.failed_provider_id, providers.a)
        assert.equal(res.body.new_provider_id, providers.b)
        assert.equal(res.body.new_provider_name, 'fo-b')
        assert.match(res.body.timestamp, ISO_UTC)
        assert.equal(res.body.message, "Failed over from provider 'fo-a' to 'fo-b'")
        const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
        assert.equal(status.body.members[0].failure_count, 1)
        assert.deepEqual(status.body.current_provider, { id: providers.b, provider_id: providers.b, name: 'fo-b', status: 'active' })
        const history = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
        assert.equal(history.body.total, 2)
        assert.deepEqual({ ...history.body.history[0], id: 0, timestamp: '' }, {
          id: 0, timestamp: '', from_provider: 'fo-a', to_provider: 'fo-b', reason: 'manual_failover', success: true, notes: `Failover from failed provider ${providers.a}`
        })
      })

      it('never chooses the failed provider, and stores the reason sent', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'fo2', ['a', 'b'])
        for (let i = 0; i < 4; i++) {
          const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers.b, reason: 'timeout' } })
          assert.equal(res.body.new_provider_id, providers.a)
        }
        const history = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history?limit=1` })
        assert.equal(history.body.history[0].reason, 'timeout')
      })

      it('answers 404 "No alternative providers available" but keeps the failure and a failed history record', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'alone', ['a'])
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers.a } })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { detail: `No alternative providers available in pool ${poolId}` })
        const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
        assert.equal(status.body.members[0].failure_count, 1)
        const history = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
        assert.equal(history.body.history[0].success, false)
        assert.equal(history.body.history[0].to_provider, null)
        assert.equal(history.body.history[0].from_provider, 'alone-a')
      })

      it('answers 404 for an unknown pool and a disabled pool', async () => {
        const unknown = await t.request({ method: 'POST', url: '/api/pools/999/failover', payload: { failed_provider_id: 1 } })
        assert.equal(unknown.status, 404)
        assert.deepEqual(unknown.body, { detail: 'No alternative providers available in pool 999' })
        const { poolId, providers } = await poolWithMembers(t, 'dis', ['a', 'b'])
        await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { enabled: false } })
        const disabled = await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers.a } })
        assert.equal(disabled.status, 404)
      })

      it('answers 404 "Member not found in pool" for a provider that is not a member, and writes nothing', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'nm', ['a', 'b'])
        const outsider = (await poolWithMembers(t, 'other', ['c'])).providers.c
        await rotateTimes(t, poolId, 1)
        const before = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
        for (const failed of [outsider, 999_999]) {
          const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: failed } })
          assert.equal(res.status, 404, String(failed))
          assert.deepEqual(res.body, { detail: `Member not found in pool ${poolId}` })
        }
        const after = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
        assert.deepEqual(after, before)
        assert.deepEqual(after.current_provider, { id: providers.a, provider_id: providers.a, name: 'nm-a', status: 'active' })
        const history = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
        assert.equal(history.body.total, 1)
      })

      it('answers 422 when failed_provider_id is missing', async () => {
        const { poolId } = await poolWithMembers(t, 'v', ['a'])
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: {} })
        assert.equal(res.status, 422)
        assert.deepEqual(res.body, { detail: [{ type: 'missing', loc: ['body', 'failed_provider_id'], msg: 'Field required', input: {}, url: 'https://errors.pydantic.dev/2.5/v/missing' }] })
      })
    })

    describe('GET /api/pools/:pool_id/history', () => {
      it('answers newest first, ties by id descending, capped by limit (default 50)', async () => {
        await t.close()
        t = await buildTestApp(dialect, { now: () => new Date('2026-05-05T05:05:05.000Z') })
        const { poolId } = await poolWithMembers(t, 'h', ['a', 'b'])
        await rotateTimes(t, poolId, 60)
        const all = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
        assert.equal(all.status, 200)
        assert.equal(all.body.total, 50)
        assert.equal(all.body.history.length, 50)
        const ids = all.body.history.map((h: any) => h.id)
        assert.deepEqual(ids, [...ids].sort((x: number, y: number) => y - x))
        const three = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history?limit=3` })
        assert.deepEqual(three.body.history, all.body.history.slice(0, 3))
        assert.equal(three.body.total, 3)
      })

      it('orders by timestamp before id', async () => {
        let clock = Date.parse('2026-05-05T05:05:05.000Z')
        await t.close()
        t = await buildTestApp(dialect, { now: () => new Date(clock) })
        const { poolId } = await poolWithMembers(t, 'ts', ['a', 'b'])
        await rotateTimes(t, poolId, 1)
        clock -= 1000
        await rotateTimes(t, poolId, 1)
        const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
        assert.deepEqual(res.body.history.map((h: any) => h.timestamp), ['2026-05-05T05:05:05.000Z', '2026-05-05T05:05:04.000Z'])
      })

      it('answers an empty history with total 0 for an unknown pool (no 404)', async () => {
        const res = await t.request({ method: 'GET', url: '/api/pools/31337/history' })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, { pool_id: 31337, history: [], total: 0 })
      })

      it('keeps records of a deleted provider, whose name then reads null', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'del', ['a', 'b'])
        await rotateTimes(t, poolId, 2)
        await t.request({ method: 'DELETE', url: `/api/providers/${providers.a}` })
        const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
        assert.equal(res.body.total, 2)
        assert.deepEqual(res.body.history.map((h: any) => [h.from_provider, h.to_provider]), [[null, 'del-b'], [null, null]])
      })

      it('answers 422 for a limit outside 1-1000 or not an integer', async () => {
        for (const limit of ['0', '1001', 'abc', '2.5']) {
          const res = await t.request({ method: 'GET', url: `/api/pools/1/history?limit=${limit}` })
          assert.equal(res.status, 422, limit)
          assert.deepEqual(res.body.detail[0].loc, ['query', 'limit'])
        }
      })
    })
  })
}
