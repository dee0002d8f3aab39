/**
 * Active health checks end to end, on both databases, against real loopback
 * upstreams that go down and come back on cue. The app's clock is a test clock
 * moved one interval at a time; `healthChecks.checkNow()` runs whatever is due and
 * waits until it is written down, so no test waits on a timer.
 */
import assert from 'node:assert/strict'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { after, afterEach, beforeEach, it } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, createPostgresSchema, describeOn, dialects, postgres, type TestApp } from '../../test/helpers.js'
import { upstream, type Upstream } from '../../test/upstreams.js'
import { buildApp } from '../app.js'
import { loadConfig } from '../config.js'
import { createDb, type DbHandle } from '../db/create-db.js'

for (const dialect of dialects) {
  describeOn(dialect, 'active health checks', () => {
    let t: TestApp
    let clock: Date
    let status: number
    let up: Upstream
    beforeEach(async () => {
      clock = new Date('2026-01-01T00:00:00.000Z')
      status = 200
      up = await upstream((_req: IncomingMessage, res: ServerResponse) => { res.writeHead(status).end('{}') })
      t = await buildTestApp(dialect, { now: () => clock, healthCheckTimer: false })
    })
    afterEach(async () => {
      await t.close()
      await up.close()
    })

    /** Moves the clock `seconds` on and runs the checks then due. */
    async function checkAfter (seconds: number): Promise<void> {
      clock = new Date(clock.getTime() + seconds * 1000)
      await t.app.healthChecks.checkNow()
    }

    /** A pool of a checked provider ('a', on the upstream) and an unchecked one ('b'). */
    async function checkedPool (check: Record<string, unknown> = {}, provider: Record<string, unknown> = {}) {
      const a = await createProvider(t, 'a', { base_url: `${up.url}/v1`, health_check: { path: '/health', ...check }, ...provider })
      const b = await createProvider(t, 'b', { base_url: 'http://127.0.0.1:9' })
      const poolId = await createPool(t, 'p', { cooldown_seconds: 30 })
      await addMember(t, poolId, a)
      await addMember(t, poolId, b)
      return { a, b, poolId }
    }

    async function memberOf (poolId: number, providerId: number) {
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
      return res.body.members.find((m: { provider_id: number }) => m.provider_id === providerId)
    }

    async function reasons (poolId: number): Promise<string[]> {
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
      return res.body.history.map((r: { reason: string }) => r.reason)
    }

    it('fills in the defaults, validates every field and answers 422 field by field', async () => {
      const created = await t.request({ method: 'POST', url: '/api/providers', payload: { name: 'a', base_url: up.url, health_check: { path: '/health' } } })
      assert.equal(created.status, 200)
      assert.deepEqual(created.body.health_check, { path: '/health', interval_s: 10, timeout_ms: 2000, expect_status: ['200-399'], healthy_threshold: 2, unhealthy_threshold: 3 })
      assert.equal(created.body.last_check, null)
      const bad = async (payload: Record<string, unknown>, loc: Array<string | number>) => {
        const res = await t.request({ method: 'POST', url: '/api/providers', payload: { name: 'x', base_url: up.url, ...payload } })
        assert.equal(res.status, 422, JSON.stringify(res.body))
        assert.deepEqual(res.body.detail.map((d: { loc: unknown }) => d.loc), [loc], JSON.stringify(res.body))
      }
      await bad({ health_check: { path: 'health' } }, ['body', 'health_check', 'path'])
      await bad({ health_check: { path: '/a/../../admin' } }, ['body', 'health_check', 'path'])
      await bad({ health_check: { path: '/health#x' } }, ['body', 'health_check', 'path'])
      await bad({ health_check: { path: '/h', expect_status: [200, '399-200'] } }, ['body', 'health_check', 'expect_status', 1])
      await bad({ health_check: { path: '/h', interval_s: 1, timeout_ms: 1500 } }, ['body', 'health_check', 'timeout_ms'])
      await bad({ health_check: { path: '/h', unhealthy_threshold: 0 } }, ['body', 'health_check', 'unhealthy_threshold'])
      await bad({ base_url: null, health_check: { path: '/h' } }, ['body', 'health_check'])
      const listed = await t.request({ method: 'GET', url: '/api/providers' })
      assert.equal(listed.headers['x-total-count'], '1', 'nothing stored by a refused request')
    })

    it('shows a check path\'s non-secret query values to admins only, its credentials to no one, and keeps secrets out of the audit trail', async () => {
      await t.close()
      const admin = { authorization: 'Bearer admin-secret-0123456789' }
      const reader = { authorization: 'Bearer read-secret-0123456789' }
      t = await buildTestApp(dialect, { now: () => clock, healthCheckTimer: false }, { AUTH_TOKENS: 'ops:admin:admin-secret-0123456789,dash:read:read-secret-0123456789' })
      const created = await t.request({ method: 'POST', url: '/api/providers', headers: admin, payload: { name: 'a', base_url: up.url, health_check: { path: '/health?api_key=S3CRET&deep=1' } } })
      assert.equal(created.body.health_check.path, '/health?api_key=***&deep=1')
      const seen = await t.request({ method: 'GET', url: `/api/providers/${created.body.provider_id as number}`, headers: reader })
      assert.equal(seen.body.health_check.path, '/health?api_key=***&deep=***')
      const audit = await t.request({ method: 'GET', url: '/api/audit', headers: admin })
      assert.equal(audit.status, 200)
      assert.ok(!JSON.stringify(audit.body).includes('S3CRET'), JSON.stringify(audit.body))
    })

    it('cools a down provider down from checks alone, names the failing check, and brings it back without a request', async () => {
      const { a, b, poolId } = await checkedPool({ interval_s: 10 })
      status = 503
      await checkAfter(0)
      await checkAfter(10)
      assert.equal((await memberOf(poolId, a)).health, 'healthy', 'two failures: below unhealthy_threshold (3)')
      await checkAfter(10)
      assert.equal(up.seen.length, 3)
      assert.deepEqual(up.seen.map((s) => s.url), ['/v1/health', '/v1/health', '/v1/health'])
      let member = await memberOf(poolId, a)
      assert.equal(member.health, 'cooling_down')
      assert.equal(member.cooldown_reason, 'health_check')
      assert.equal(member.cooldown_until, new Date(clock.getTime() + 30_000).toISOString())
      assert.equal(member.last_check.ok, false)
      assert.equal(member.last_check.status_code, 503)
      assert.equal(member.last_check.error, null)
      assert.equal(member.last_check.at, clock.toISOString())
      assert.equal((await memberOf(poolId, b)).last_check, null, 'an unchecked provider has no last check')
      // The first failure is news (a check_failed record); the third starts the cooldown.
      assert.deepEqual(await reasons(poolId), ['cooldown:health_check', 'check_failed'])
      const first = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history[1]
      assert.equal(first.notes, `Provider ${a} failed its health check (HTTP 503)`)

      const next = await t.request({ method: 'GET', url: `/api/pools/${poolId}/next` })
      assert.equal(next.body.provider_id, b)
      const explained = next.body.members.find((m: { provider_id: number }) => m.provider_id === a)
      assert.equal(explained.reason, 'cooling_down')
      assert.equal(explained.cooldown_reason, 'health_check')
      assert.equal(explained.last_check.status_code, 503)
      assert.match(next.body.explanation, /'a' is cooling down after failing its health check \(HTTP 503\)/)

      // Still failing when the cooldown has run out: the next check starts the next one, twice as long.
      await checkAfter(10)
      await checkAfter(10)
      assert.equal((await memberOf(poolId, a)).health, 'cooling_down')
      await checkAfter(10)
      member = await memberOf(poolId, a)
      assert.equal(member.health, 'cooling_down')
      assert.equal(member.cooldown_until, new Date(clock.getTime() + 60_000).toISOString(), 'doubled')

      // It answers again: back after healthy_threshold (2) passing checks, with no user request.
      status = 200
      await checkAfter(10)
      assert.equal((await memberOf(poolId, a)).health, 'cooling_down', 'one pass is not enough')
      await checkAfter(10)
      member = await memberOf(poolId, a)
      assert.equal(member.health, 'healthy')
      assert.equal(member.cooldown_reason, null)
      assert.equal(member.last_check.ok, true)
      assert.equal(member.last_check.status_code, 200)
      assert.equal(typeof member.latency_ms, 'number', 'passing checks feed the latency average')
      assert.deepEqual(await reasons(poolId), ['recovered', 'cooldown:health_check', 'cooldown:health_check', 'check_failed'])

      const provider = await t.request({ method: 'GET', url: `/api/providers/${a}` })
      assert.equal(provider.body.last_check.ok, true)

      const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
      assert.match(metrics.body, /sourcepool_health_checks_total\{provider="a",result="unexpected_status"\} 6/)
      assert.match(metrics.body, /sourcepool_health_checks_total\{provider="a",result="ok"\} 2/)
      assert.match(metrics.body, /sourcepool_health_check_duration_seconds_count\{result="ok"\} 2/)
      assert.match(metrics.body, /sourcepool_cooldowns_started_total\{reason="health_check"\} 2/)

      // Failing again after passing is news again, once.
      status = 503
      await checkAfter(10)
      await checkAfter(10)
      assert.deepEqual((await reasons(poolId)).slice(0, 2), ['check_failed', 'recovered'])
    })

    it('steers proxied traffic: none to a member its checks cooled down, some again once they pass', async () => {
      const other = await upstream((_req, res) => { res.writeHead(200).end('{}') })
      try {
        const a = await createProvider(t, 'a', { base_url: up.url, health_check: { path: '/health', interval_s: 10, unhealthy_threshold: 1, healthy_threshold: 1 } })
        const b = await createProvider(t, 'b', { base_url: other.url })
        const poolId = await createPool(t, 'p')
        await addMember(t, poolId, a)
        await addMember(t, poolId, b)
        const proxied = async () => {
          for (let i = 0; i < 4; i++) assert.equal((await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/data` })).status, 200)
        }
        await proxied()
        assert.equal(up.seen.filter((s) => s.url === '/data').length, 2, 'round robin over both')
        status = 500
        await checkAfter(0)
        await proxied()
        assert.equal(up.seen.filter((s) => s.url === '/data').length, 2, 'nothing to the member cooling down')
        status = 200
        await checkAfter(10)
        await proxied()
        assert.equal(up.seen.filter((s) => s.url === '/data').length, 4, 'back in the rotation')
      } finally {
        await other.close()
      }
    })

    it('brings back a member cooled down by failed requests after passing checks, but never cuts a rate limit short', async () => {
      const { a, poolId } = await checkedPool({ interval_s: 10, healthy_threshold: 1 })
      await checkAfter(0)
      for (let i = 0; i < 3; i++) {
        assert.equal((await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: a, success: false, error: 'HTTP 500' } })).status, 200)
      }
      assert.equal((await memberOf(poolId, a)).cooldown_reason, 'consecutive_failures')
      await checkAfter(10)
      assert.equal((await memberOf(poolId, a)).health, 'healthy', 'the first passing check since the cooldown started ends it')

      await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: a, success: false, status_code: 429, retry_after_s: 120 } })
      await checkAfter(10)
      await checkAfter(10)
      let member = await memberOf(poolId, a)
      assert.equal(member.health, 'cooling_down')
      assert.equal(member.cooldown_reason, 'rate_limited')
      await checkAfter(100)
      member = await memberOf(poolId, a)
      assert.equal(member.health, 'healthy', 'once the rate limit has run out, a passing check ends the probing')
    })

    it('passes the codes and ranges of expect_status only', async () => {
      const { a, poolId } = await checkedPool({ interval_s: 5, expect_status: [204, '500-502'], unhealthy_threshold: 1 })
      await checkAfter(0)
      let member = await memberOf(poolId, a)
      assert.equal(member.last_check.ok, false, '200 is not expected')
      assert.equal(member.health, 'cooling_down', 'unhealthy_threshold 1')
      status = 501
      await checkAfter(5)
      assert.equal((await memberOf(poolId, a)).last_check.ok, true)
      status = 204
      await checkAfter(5)
      member = await memberOf(poolId, a)
      assert.equal(member.last_check.ok, true)
      assert.equal(member.last_check.status_code, 204)
      assert.equal(member.health, 'healthy')
      status = 503
      await checkAfter(5)
      assert.equal((await memberOf(poolId, a)).last_check.ok, false)
    })

    it('gives up at timeout_ms, and reads at most 64 KiB of an answer that never ends', async () => {
      const silent = await upstream(() => {})
      const endless = await upstream((_req, res) => {
        res.writeHead(200)
        const timer = setInterval(() => res.write(Buffer.alloc(16 * 1024)), 5)
        res.on('close', () => clearInterval(timer))
      })
      try {
        const hangs = await createProvider(t, 'hangs', { base_url: silent.url, health_check: { path: '/h', interval_s: 1, timeout_ms: 300 } })
        const streams = await createProvider(t, 'streams', { base_url: endless.url, health_check: { path: '/h', interval_s: 1, timeout_ms: 1000 } })
        const started = Date.now()
        await checkAfter(0)
        assert.ok(Date.now() - started < 950, 'neither check waited for the other\'s end')
        const hung = (await t.request({ method: 'GET', url: `/api/providers/${hangs}` })).body.last_check
        assert.deepEqual({ ok: hung.ok, status_code: hung.status_code, error: hung.error }, { ok: false, status_code: null, error: 'timeout' })
        assert.ok(hung.latency_ms >= 290 && hung.latency_ms < 900, String(hung.latency_ms))
        const streamed = (await t.request({ method: 'GET', url: `/api/providers/${streams}` })).body.last_check
        assert.equal(streamed.ok, true, JSON.stringify(streamed))
        assert.equal(streamed.status_code, 200)
        const metrics = await t.app.inject({ method: 'GET', url: '/metrics' })
        assert.match(metrics.body, /sourcepool_health_checks_total\{provider="hangs",result="timeout"\} 1/)
      } finally {
        await silent.close()
        await endless.close()
      }
    })

    it('never follows a redirect, sends the credentials and leaves the quota alone', async () => {
      const target = await upstream((_req, res) => { res.writeHead(200).end() })
      try {
        const redirecting = await upstream((_req, res) => { res.writeHead(302, { location: `${target.url}/elsewhere` }).end() })
        try {
          const lenient = await createProvider(t, 'lenient', { base_url: redirecting.url, health_check: { path: '/h' } })
          const strict = await createProvider(t, 'strict', { base_url: redirecting.url, health_check: { path: '/h', expect_status: ['200-299'] } })
          await checkAfter(0)
          assert.equal(target.seen.length, 0, 'the redirect was not followed')
          assert.equal(redirecting.seen.length, 2)
          const last = async (id: number) => (await t.request({ method: 'GET', url: `/api/providers/${id}` })).body.last_check
          assert.deepEqual([(await last(lenient)).status_code, (await last(lenient)).ok], [302, true])
          assert.deepEqual([(await last(strict)).status_code, (await last(strict)).ok], [302, false])
        } finally {
          await redirecting.close()
        }
      } finally {
        await target.close()
      }

      const { a, poolId } = await checkedPool({ interval_s: 10 }, { auth_headers: { 'X-Api-Key': 'K1' }, rate_limit: { requests: 1, per: 'hour' } })
      for (let i = 0; i < 3; i++) await checkAfter(10)
      assert.equal(up.seen.length, 3)
      assert.equal(up.seen[0]?.headers['x-api-key'], 'K1')
      assert.equal(up.seen[0]?.headers['user-agent'], 'sourcepool-health-check')
      assert.deepEqual((await memberOf(poolId, a)).quota.used, 0, 'checks take nothing from the quota')
    })

    it('stops checking a provider whose check is set to null, or that is deleted; the same check sent again changes nothing', async () => {
      const { a } = await checkedPool({ interval_s: 10, unhealthy_threshold: 5 })
      status = 503
      await checkAfter(0)
      await checkAfter(10)
      const again = await t.request({ method: 'PUT', url: `/api/providers/${a}`, payload: { health_check: { path: '/health', interval_s: 10, unhealthy_threshold: 5 } } })
      assert.equal(again.status, 200)
      await checkAfter(10)
      assert.equal(up.seen.length, 3, 'the same check keeps its schedule')
      const changed = await t.request({ method: 'PUT', url: `/api/providers/${a}`, payload: { health_check: { path: '/health', interval_s: 20, unhealthy_threshold: 5 } } })
      assert.equal(changed.body.health_check.interval_s, 20)
      await checkAfter(0)
      assert.equal(up.seen.length, 4, 'a changed check is due at once')

      const off = await t.request({ method: 'PUT', url: `/api/providers/${a}`, payload: { health_check: null } })
      assert.equal(off.status, 200)
      assert.equal(off.body.health_check, null)
      assert.equal(off.body.last_check, null)
      await checkAfter(60)
      assert.equal(up.seen.length, 4)

      const other = await createProvider(t, 'other', { base_url: up.url, health_check: { path: '/other', interval_s: 10 } })
      await checkAfter(10)
      assert.equal(up.seen.length, 5)
      assert.equal((await t.request({ method: 'DELETE', url: `/api/providers/${other}` })).status, 200)
      await checkAfter(60)
      assert.equal(up.seen.length, 5)
    })

    it('drops a result whose check was changed or turned off while it ran', async () => {
      let release = (): void => {}
      const held = await upstream((_req, res) => { release = () => { res.writeHead(503).end() } })
      try {
        const id = await createProvider(t, 'held', { base_url: held.url, health_check: { path: '/h', interval_s: 10, unhealthy_threshold: 1 } })
        const pool = await createPool(t, 'p')
        await addMember(t, pool, id)
        for (const change of [{ path: '/h', interval_s: 20, unhealthy_threshold: 1 }, null]) {
          clock = new Date(clock.getTime() + 20_000)
          const running = t.app.healthChecks.checkNow()
          while (held.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
          assert.equal((await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload: { health_check: change } })).status, 200)
          release()
          await running
          held.seen.length = 0
          const provider = (await t.request({ method: 'GET', url: `/api/providers/${id}` })).body
          assert.equal(provider.last_check, null, JSON.stringify(provider.last_check))
          assert.equal((await memberOf(pool, id)).health, 'healthy', 'the failure of the old check counted for nothing')
        }
      } finally {
        await held.close()
      }
    })

    it('checks many providers of one host at once (no cap per origin), and never makes shutdown wait for a check', async () => {
      const slow = await upstream((_req, res) => { setTimeout(() => res.writeHead(200).end(), 200) })
      const silent = await upstream(() => {})
      const warnings: Error[] = []
      const onWarning = (warning: Error): void => { warnings.push(warning) }
      process.on('warning', onWarning)
      try {
        const ids: number[] = []
        // Twelve at once, 200 ms each: in waves of four (a per-origin cap) the third would pass 500 ms.
        for (let i = 0; i < 12; i++) ids.push(await createProvider(t, `s${i}`, { base_url: slow.url, health_check: { path: '/h', timeout_ms: 500 } }))
        await checkAfter(0)
        // More than ten at once pile no listener each on one signal (Node warns past ten, on the next tick).
        await new Promise((resolve) => setImmediate(resolve))
        assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message), [])
        for (const id of ids) {
          const last = (await t.request({ method: 'GET', url: `/api/providers/${id}` })).body.last_check
          assert.equal(last.ok, true, JSON.stringify(last))
        }
        const hangs = await createProvider(t, 'hangs', { base_url: silent.url, health_check: { path: '/h', interval_s: 60, timeout_ms: 30_000 } })
        clock = new Date(clock.getTime() + 1000)
        const running = t.app.healthChecks.checkNow()
        while (silent.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5))
        const started = Date.now()
        await t.app.healthChecks.close()
        await running
        assert.ok(Date.now() - started < 1000, `close took ${Date.now() - started} ms`)
        assert.equal((await t.request({ method: 'GET', url: `/api/providers/${hangs}` })).body.last_check, null, 'a check cut short says nothing')
      } finally {
        process.off('warning', onWarning)
        await slow.close()
        await silent.close()
      }
    })

    it('runs at most HEALTH_CHECK_CONCURRENCY checks at once, and every due one in the end', async () => {
      await t.close()
      t = await buildTestApp(dialect, { now: () => clock, healthCheckTimer: false }, { HEALTH_CHECK_CONCURRENCY: '2' })
      let open = 0
      let most = 0
      const slow = await upstream((_req, res) => {
        open++
        most = Math.max(most, open)
        setTimeout(() => { open--; res.writeHead(200).end() }, 50)
      })
      try {
        for (let i = 0; i < 6; i++) await createProvider(t, `p${i}`, { base_url: slow.url, health_check: { path: `/h${i}` } })
        await checkAfter(0)
        assert.equal(slow.seen.length, 6)
        assert.equal(most, 2)
      } finally {
        await slow.close()
      }
    })
  })
}

describeOn(postgres, 'health check leases between instances', () => {
  const closers: Array<() => Promise<void>> = []
  after(async () => { for (const close of closers.reverse()) await close() })

  it('hands each due check to one instance when two claim at the same moment', async () => {
    let clock = new Date('2026-01-01T00:00:00.000Z')
    const up = await upstream((_req, res) => { res.writeHead(200).end() })
    closers.push(up.close)
    const schema = await createPostgresSchema()
    closers.push(schema.drop)
    const config = loadConfig({ DATABASE_URL: schema.url, LOG_LEVEL: 'silent' })
    const apps: FastifyInstance[] = []
    for (let i = 0; i < 2; i++) {
      const database: DbHandle = await createDb(config.databaseUrl)
      closers.push(async () => { await database.close() })
      const app = await buildApp(config, { logger: false, database, now: () => clock, healthCheckTimer: false })
      closers.push(async () => { await app.close() })
      apps.push(app)
    }
    const [one, two] = apps as [FastifyInstance, FastifyInstance]
    for (let i = 0; i < 20; i++) {
      const res = await one.inject({ method: 'POST', url: '/api/providers', payload: { name: `p${i}`, base_url: up.url, health_check: { path: `/h${i}`, interval_s: 10 } } })
      assert.equal(res.statusCode, 200, res.body)
    }
    for (let round = 0; round < 3; round++) {
      await Promise.all([one.healthChecks.checkNow(), two.healthChecks.checkNow()])
      assert.equal(up.seen.length, 20 * (round + 1), `round ${round}`)
      clock = new Date(clock.getTime() + 10_000)
    }
    const perPath = new Map<string, number>()
    for (const seen of up.seen) perPath.set(seen.url, (perPath.get(seen.url) ?? 0) + 1)
    assert.deepEqual([...new Set(perPath.values())], [3])
  })
})
