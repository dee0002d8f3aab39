import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { createPool, poolWithMembers, rotateTimes } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const START = Date.parse('2026-03-01T12:00:00.000Z')
const iso = (ms: number) => new Date(ms).toISOString()

for (const dialect of dialects) {
  describeOn(dialect, 'health-aware rotation', () => {
    let t: TestApp
    let clock: number
    beforeEach(async () => {
      clock = START
      t = await buildTestApp(dialect, { now: () => new Date(clock) })
    })
    afterEach(async () => { await t.close() })

    const report = async (poolId: number, body: Record<string, unknown>) =>
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: body })
    const member = async (poolId: number, providerId: number | undefined) =>
      (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members.find((m: any) => m.provider_id === providerId)

    describe('POST /api/pools/:pool_id/report', () => {
      it('records an outcome and answers the member\'s health record', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a'])
        const res = await report(poolId, { provider_id: providers.a, success: false, status_code: 502, latency_ms: 120, error: 'bad gateway' })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, {
          pool_id: poolId,
          provider_id: providers.a,
          provider_name: 'p-a',
          health: 'healthy',
          cooldown_until: null,
          cooldown_reason: null,
          consecutive_failures: 1,
          latency_ms: 120,
          success_rate: 0,
          success_count: 0,
          failure_count: 1,
          last_error: 'bad gateway'
        })
        const ok = await report(poolId, { provider_id: providers.a, success: true, latency_ms: 20 })
        assert.equal(ok.body.consecutive_failures, 0)
        assert.equal(ok.body.success_rate, 50)
        assert.equal(ok.body.latency_ms, 90)
        assert.equal(ok.body.last_error, null)
      })

      it('records in the history a cooldown a report starts and the recovery a report ends it with, as the proxy does', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
        for (let i = 0; i < 3; i++) await report(poolId, { provider_id: providers.a, success: false, error: 'timeout' })
        clock += 31_000
        await report(poolId, { provider_id: providers.a, success: true })
        const history = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history
        assert.deepEqual(history.map((h: any) => [h.reason, h.from_provider, h.to_provider, h.success]), [
          ['recovered', null, 'p-a', true],
          ['cooldown:consecutive_failures', 'p-a', null, false]
        ])
        assert.equal(history[1].notes, `Provider ${providers.a as number} cooling down until ${iso(START + 30_000)} after: timeout`)
        const failover = await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers.b } })
        assert.equal(failover.status, 200)
        for (let i = 0; i < 2; i++) await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers.b } })
        const reasons = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history.map((h: any) => h.reason)
        assert.deepEqual(reasons.slice(0, 2), ['manual_failover', 'cooldown:consecutive_failures'], 'the third failover started a cooldown, recorded before the failover itself')
      })

      it('answers 404 for an unknown pool and for a provider that is not a member', async () => {
        const { poolId } = await poolWithMembers(t, 'p', ['a'])
        assert.deepEqual((await report(999, { provider_id: 1, success: true })).body, { detail: 'Pool 999 not found' })
        const res = await report(poolId, { provider_id: 999, success: true })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { detail: `Member not found in pool ${poolId}` })
      })

      it('answers 422 for missing or out-of-range fields', async () => {
        const { poolId } = await poolWithMembers(t, 'p', ['a'])
        const res = await report(poolId, { latency_ms: -1, error: 'x'.repeat(501), status_code: 42 })
        assert.equal(res.status, 422)
        assert.deepEqual(res.body.detail.map((d: any) => d.loc.join('.')).sort(),
          ['body.error', 'body.latency_ms', 'body.provider_id', 'body.status_code', 'body.success'])
      })
    })

    describe('cooldowns', () => {
      it('trips at failure_threshold consecutive failures; rotation skips the member', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
        for (let i = 0; i < 2; i++) await report(poolId, { provider_id: providers.a, success: false })
        assert.equal((await member(poolId, providers.a)).health, 'healthy')
        const res = await report(poolId, { provider_id: providers.a, success: false })
        assert.equal(res.body.health, 'cooling_down')
        assert.equal(res.body.cooldown_until, iso(START + 30_000))
        assert.equal(res.body.cooldown_reason, 'consecutive_failures')
        assert.deepEqual(await rotateTimes(t, poolId, 3), [providers.b, providers.b, providers.b])
      })

      it('a success resets the consecutive count, so failures must be consecutive', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a'])
        for (const success of [false, false, true, false, false]) await report(poolId, { provider_id: providers.a, success })
        const m = await member(poolId, providers.a)
        assert.equal(m.health, 'healthy')
        assert.equal(m.consecutive_failures, 2)
      })

      it('probing after the cooldown: a success makes it healthy, a failure doubles the next cooldown up to the cap', async () => {
        await t.close()
        t = await buildTestApp(dialect, { now: () => new Date(clock) })
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'], { failure_threshold: 1, cooldown_seconds: 10, max_cooldown_seconds: 25 })
        await report(poolId, { provider_id: providers.a, success: false })
        clock += 10_000
        assert.equal((await member(poolId, providers.a)).health, 'probing')
        assert.deepEqual(await rotateTimes(t, poolId, 2), [providers.a, providers.b], 'probing members are eligible')
        let res = await report(poolId, { provider_id: providers.a, success: false })
        assert.equal(res.body.cooldown_reason, 'probe_failed')
        assert.equal(res.body.cooldown_until, iso(clock + 20_000))
        clock += 20_000
        res = await report(poolId, { provider_id: providers.a, success: false })
        assert.equal(res.body.cooldown_until, iso(clock + 25_000), 'capped by max_cooldown_seconds')
        clock += 25_000
        res = await report(poolId, { provider_id: providers.a, success: true })
        assert.equal(res.body.health, 'healthy')
        assert.equal(res.body.cooldown_until, null)
        res = await report(poolId, { provider_id: providers.a, success: false })
        assert.equal(res.body.cooldown_until, iso(clock + 10_000), 'the success reset the doubling')
      })

      it('a 429 or a retry_after_s cools down at once, until the given time', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
        let res = await report(poolId, { provider_id: providers.a, success: false, status_code: 429, retry_after_s: 7 })
        assert.deepEqual([res.body.health, res.body.cooldown_reason, res.body.cooldown_until], ['cooling_down', 'rate_limited', iso(START + 7000)])
        res = await report(poolId, { provider_id: providers.b, success: false, status_code: 429 })
        assert.equal(res.body.cooldown_until, iso(START + 30_000), 'without Retry-After: the pool\'s cooldown')
        const { poolId: other, providers: more } = await poolWithMembers(t, 'q', ['c'])
        res = await report(other, { provider_id: more.c, success: true, retry_after_s: 3 })
        assert.equal(res.body.cooldown_reason, 'rate_limited')
      })

      it('a report\'s retry_after_s pauses a member for max_cooldown_seconds at most, as a provider\'s Retry-After does', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'], { cooldown_seconds: 10, max_cooldown_seconds: 120 })
        const res = await report(poolId, { provider_id: providers.a, success: false, status_code: 429, retry_after_s: 604_800 })
        assert.deepEqual([res.body.health, res.body.cooldown_reason, res.body.cooldown_until], ['cooling_down', 'rate_limited', iso(START + 120_000)])
      })

      it('all_down soonest: with every member cooling down, rotate answers the one whose cooldown ends first, degraded', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
        for (let i = 0; i < 3; i++) await report(poolId, { provider_id: providers.a, success: false })
        clock -= 10_000
        for (let i = 0; i < 3; i++) await report(poolId, { provider_id: providers.b, success: false })
        clock += 10_000
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })
        assert.equal(res.status, 200)
        assert.equal(res.body.provider_id, providers.b)
        assert.equal(res.body.degraded, true)
        const normal = await poolWithMembers(t, 'q', ['c'])
        const plain = await t.request({ method: 'POST', url: `/api/pools/${normal.poolId}/rotate` })
        assert.equal(plain.body.degraded, undefined, 'no degraded field on a normal rotation')
      })

      it('all_down fail: answers 404 as before', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a'], { all_down: 'fail' })
        await report(poolId, { provider_id: providers.a, success: false, retry_after_s: 20 })
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { detail: `No available providers in pool ${poolId}` })
      })

      it('a single-member pool is not emptied by its own cooldown', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'solo', ['a'])
        for (let i = 0; i < 3; i++) await report(poolId, { provider_id: providers.a, success: false })
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })
        assert.equal(res.status, 200)
        assert.equal(res.body.degraded, true)
      })

      it('failover counts as a failure report of the failed provider', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'p', ['a', 'b'])
        for (let i = 0; i < 3; i++) {
          await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers.a } })
        }
        const a = await member(poolId, providers.a)
        assert.equal(a.failure_count, 3)
        assert.equal(a.health, 'cooling_down')
        assert.equal(a.cooldown_reason, 'consecutive_failures')
      })
    })

    describe('pool policy', () => {
      const STREAMS = { ws_ping_interval_ms: 30_000, ws_replay: 'first_second', ws_max_streams: 1000, ws_max_streams_per_client: 100, ws_max_message_bytes: 1_048_576, ws_send_buffer_bytes: 4_194_304, ws_idle_timeout_ms: 300_000 }
      it('is set on create and update, and a cap below the first cooldown is refused', async () => {
        const id = await createPool(t, 'pol', { failure_threshold: 5, cooldown_seconds: 60, max_cooldown_seconds: 600, all_down: 'fail', max_attempts: 2, retry_non_idempotent: true })
        let status = (await t.request({ method: 'GET', url: `/api/pools/${id}` })).body
        const proxy = { max_attempts: 2, retry_non_idempotent: true, forward_client_auth: false, forbidden_ttl_seconds: 3600, cache_ttl_seconds: 0, cache_stale_seconds: 0, max_wait_ms: 0, deadline_ms: 30_000, retry_budget_percent: 20, retry_backoff_ms: 0, hedge_after_ms: null, protocol: 'http', finality_depth: 64, cache_unfinalized_ms: 0, head_check_interval_s: 5, max_block_lag: 5, broadcast_writes: false, ...STREAMS }
        assert.deepEqual(status.policy, { failure_threshold: 5, cooldown_seconds: 60, max_cooldown_seconds: 600, all_down: 'fail', ...proxy })
        await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { failure_threshold: 2, all_down: 'soonest', forward_client_auth: true, max_attempts: 4 } })
        status = (await t.request({ method: 'GET', url: `/api/pools/${id}` })).body
        assert.deepEqual(status.policy, { failure_threshold: 2, cooldown_seconds: 60, max_cooldown_seconds: 600, all_down: 'soonest', ...proxy, forward_client_auth: true, max_attempts: 4 })
        const badAttempts = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { max_attempts: 11 } })
        assert.deepEqual(badAttempts.body.detail.map((d: any) => d.loc.join('.')), ['body.max_attempts'])
        const bad = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { max_cooldown_seconds: 10 } })
        assert.equal(bad.status, 422)
        assert.deepEqual(bad.body.detail[0].loc, ['body', 'max_cooldown_seconds'])
        const badCreate = await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'x', category: 'y', cooldown_seconds: 100, max_cooldown_seconds: 50 } })
        assert.equal(badCreate.status, 422)
        const badEnum = await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'x', category: 'y', all_down: 'panic' } })
        assert.equal(badEnum.status, 422)
      })
    })

    describe('quotas', () => {
      it('skips a provider whose window is used up until the window resets, and shows the quota', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'q', ['a', 'b'])
        const set = await t.request({ method: 'PUT', url: `/api/providers/${providers.a}`, payload: { rate_limit: { requests: 1, per: 'minute' } } })
        assert.deepEqual(set.body.rate_limit, { requests: 1, per: 'minute' })
        assert.deepEqual(await rotateTimes(t, poolId, 3), [providers.a, providers.b, providers.b])
        assert.deepEqual((await member(poolId, providers.a)).quota, { used: 1, limit: 1, unit: 'requests', resets_at: '2026-03-01T12:01:00.000Z' })
        clock += 60_000
        assert.deepEqual((await member(poolId, providers.a)).quota, { used: 0, limit: 1, unit: 'requests', resets_at: '2026-03-01T12:02:00.000Z' })
        assert.deepEqual(await rotateTimes(t, poolId, 1), [providers.a])
      })

      it('answers 404 when every member is out of quota (quota is never overridden)', async () => {
        const { poolId, providers } = await poolWithMembers(t, 'q', ['a'])
        await t.request({ method: 'PUT', url: `/api/providers/${providers.a}`, payload: { rate_limit: { requests: 2, per: 'hour' } } })
        await rotateTimes(t, poolId, 2)
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })
        assert.equal(res.status, 404)
      })

      it('counts a provider\'s quota across every pool it serves; DELETE …/rate_limit lifts it', async () => {
        const provider = (await t.request({ method: 'POST', url: '/api/providers', payload: { name: 'shared', rate_limit: { requests: 1, per: 'day' } } })).body.provider_id
        const p1 = await createPool(t, 'one')
        const p2 = await createPool(t, 'two')
        for (const pool of [p1, p2]) await t.request({ method: 'POST', url: `/api/pools/${pool}/members`, payload: { provider_id: provider } })
        assert.equal((await t.request({ method: 'POST', url: `/api/pools/${p1}/rotate` })).status, 200)
        assert.equal((await t.request({ method: 'POST', url: `/api/pools/${p2}/rotate` })).status, 404)
        const lifted = await t.request({ method: 'DELETE', url: `/api/providers/${provider}/rate_limit` })
        assert.equal(lifted.body.rate_limit, null)
        assert.equal((await t.request({ method: 'POST', url: `/api/pools/${p2}/rotate` })).status, 200)
      })
    })

    describe('GET /api/pools/:pool_id/next', () => {
      it('explains the next choice and every member\'s eligibility without changing state', async () => {
        const made = await poolWithMembers(t, 'x', ['ok', 'off', 'cool', 'quota'])
        const poolId = made.poolId
        const providers = made.providers as Record<'ok' | 'off' | 'cool' | 'quota', number>
        await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers.off}`, payload: { enabled: false } })
        await report(poolId, { provider_id: providers.cool, success: false, retry_after_s: 30 })
        await t.request({ method: 'PUT', url: `/api/providers/${providers.quota}`, payload: { rate_limit: { requests: 1, per: 'hour' } } })
        await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers.ok } })
        const before = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
        const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/next` })
        assert.equal(res.status, 200)
        assert.equal(res.body.provider_id, providers.ok)
        assert.equal(res.body.degraded, false)
        assert.deepEqual(res.body.candidates, [providers.ok])
        const byProvider = Object.fromEntries(res.body.members.map((m: any) => [m.provider_id, m]))
        assert.deepEqual([byProvider[providers.ok].eligible, byProvider[providers.ok].reason], [true, null])
        assert.deepEqual([byProvider[providers.off].reason, byProvider[providers.off].until], ['disabled', null])
        assert.deepEqual([byProvider[providers.cool].reason, byProvider[providers.cool].until], ['rate_limited', iso(START + 30_000)], 'a retry_after_s pauses the member')
        assert.deepEqual([byProvider[providers.quota].reason, byProvider[providers.quota].until], ['quota_exhausted', '2026-03-01T13:00:00.000Z'])
        const after = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
        assert.deepEqual(after, before)
        const rotated = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })
        assert.equal(rotated.body.provider_id, res.body.provider_id, 'the rotation does what the explanation said')
      })

      it('says so when nothing is eligible, and answers 404 for an unknown pool', async () => {
        const { poolId } = await poolWithMembers(t, 'x', ['a'])
        await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { enabled: false } })
        const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/next` })
        assert.equal(res.body.provider_id, null)
        assert.equal(res.body.pool_enabled, false)
        assert.match(res.body.explanation, /disabled/)
        assert.deepEqual((await t.request({ method: 'GET', url: '/api/pools/999/next' })).body, { detail: 'Pool 999 not found' })
      })
    })

    it('keeps counts exact under 200 concurrent reports and rotations', async () => {
      const { poolId, providers } = await poolWithMembers(t, 'c', ['a', 'b', 'c', 'd'], { failure_threshold: 1000 })
      const ids = Object.values(providers)
      const requests = Array.from({ length: 200 }, (_, i) => i % 2 === 0
        ? t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })
        : report(poolId, { provider_id: ids[i % 4] as number, success: i % 4 === 1, latency_ms: 10 }))
      const results = await Promise.all(requests)
      assert.ok(results.every((r) => r.status === 200))
      const status = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
      assert.equal(status.members.reduce((s: number, m: any) => s + m.use_count, 0), 100)
      assert.equal(status.members.reduce((s: number, m: any) => s + m.success_count, 0), 50)
      assert.equal(status.members.reduce((s: number, m: any) => s + m.failure_count, 0), 50)
      assert.ok(status.members.every((m: any) => m.use_count === 25))
    })
  })
}
