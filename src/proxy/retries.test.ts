/**
 * The proxy's retry policy end to end through the HTTP API (issue 28 items 3–6):
 * the deadline across attempts (504 with the attempts, a client header that
 * shortens it and cannot lengthen it), the retry budget (bounded upstream attempts
 * while every member fails, the upstream's own answer with
 * `x-sourcepool-retry-budget: exhausted`, refilled after the window), the backoff
 * between attempts, and hedging (a fast member wins against a slow one, whose
 * attempt is closed upstream and counted as no failure; the history says `hedge`).
 * The pool fields on create, update and in the status record are checked here too.
 */
import assert from 'node:assert/strict'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterEach, beforeEach, it } from 'node:test'
import { createPool, poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, sleep, type TestApp } from '../../test/helpers.js'
import { json, upstream, type Upstream } from '../../test/upstreams.js'

const LIMIT = { timeout: 60_000 }

/** Resolves once `check` holds (the test's own timeout bounds the wait). */
async function until (check: () => boolean): Promise<void> {
  while (!check()) await sleep(10)
}

for (const dialect of dialects) {
  describeOn(dialect, 'the proxy retry policy: deadline, budget, backoff, hedging', () => {
    let t: TestApp
    let clock: number
    let draw: number
    const upstreams: Upstream[] = []
    const start = async (behave: Parameters<typeof upstream>[0]) => {
      const u = await upstream(behave)
      upstreams.push(u)
      return u
    }
    /** A pool with one member per base URL, in order (the first has the highest priority for `priority`). */
    const pool = async (name: string, baseUrls: string[], poolExtra: Record<string, unknown> = {}, providerExtra: Record<string, unknown> = {}) =>
      await poolOfUrls(t, name, baseUrls, poolExtra, providerExtra, true)
    const get = async (poolId: number, headers: Record<string, string> = {}) =>
      await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/x`, headers })
    const status = async (poolId: number) => {
      await t.app.runtime.flush()
      return (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
    }
    /** An upstream that answers 200 after `ms`, or never when the request is closed first. */
    const slow = (ms: number, closed: { count: number } = { count: 0 }) => (req: IncomingMessage, res: ServerResponse) => {
      const timer = setTimeout(() => { json(200, { slow: true })(req, res) }, ms)
      res.on('close', () => { if (!res.writableFinished) { clearTimeout(timer); closed.count++ } })
    }

    beforeEach(async () => {
      clock = Date.parse('2026-03-01T12:00:00.000Z')
      draw = 0.5
      t = await buildTestApp(dialect, { now: () => new Date(clock), random: () => draw })
    })
    afterEach(async () => {
      await t.close()
      for (const u of upstreams.splice(0)) await u.close()
    })

    it('takes the policy fields on create and update, shows them in the status record, and refuses values out of range', LIMIT, async () => {
      const plain = await createPool(t, 'defaults')
      const policy = (await t.request({ method: 'GET', url: `/api/pools/${plain}` })).body.policy
      assert.deepEqual([policy.deadline_ms, policy.retry_budget_percent, policy.retry_backoff_ms, policy.hedge_after_ms], [30_000, 20, 0, null])
      const set = await t.request({ method: 'PUT', url: `/api/pools/${plain}`, payload: { deadline_ms: 2500, retry_budget_percent: 50, retry_backoff_ms: 40, hedge_after_ms: 300 } })
      assert.equal(set.status, 200)
      const body = (await t.request({ method: 'GET', url: `/api/pools/${plain}` })).body
      assert.deepEqual([body.policy.deadline_ms, body.policy.retry_budget_percent, body.policy.retry_backoff_ms, body.policy.hedge_after_ms], [2500, 50, 40, 300])
      assert.deepEqual(body.retries, { made: 0, hedges: 0, budget_exhausted: 0 })
      // 0 turns hedging off again.
      await t.request({ method: 'PUT', url: `/api/pools/${plain}`, payload: { hedge_after_ms: 0 } })
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${plain}` })).body.policy.hedge_after_ms, null)
      for (const [field, value] of [['deadline_ms', 99], ['deadline_ms', 600_001], ['retry_budget_percent', 101], ['retry_backoff_ms', 10_001], ['hedge_after_ms', 60_001], ['retry_budget_percent', -1]] as const) {
        const refused = await t.request({ method: 'POST', url: '/api/pools', payload: { name: `bad-${field}-${value}`, category: 'x', [field]: value } })
        assert.equal(refused.status, 422, `${field} ${value}`)
        assert.equal(refused.body.detail[0].loc.at(-1), field)
      }
    })

    it('answers 504 at the deadline across three slow members, listing the attempts made', LIMIT, async () => {
      const members = [await start(slow(5_000)), await start(slow(5_000)), await start(slow(5_000))]
      const { poolId, providers } = await pool('deadline', members.map((m) => m.url), { deadline_ms: 1_000, max_attempts: 3 }, { timeout_ms: 400 })
      const sent = performance.now()
      const res = await get(poolId)
      const took = performance.now() - sent
      assert.equal(res.statusCode, 504)
      assert.ok(took >= 900 && took <= 1_400, `took ${Math.round(took)} ms`)
      const body = res.json()
      assert.equal(body.detail, `Deadline of 1000 ms exceeded for pool ${poolId}`)
      assert.deepEqual(body.attempts.map((a: any) => [a.provider_id, a.error]), providers.map((id) => [id, 'timeout']))
    })

    it('lets a client shorten the deadline with x-sourcepool-deadline-ms but never lengthen it; a malformed one is a 400', LIMIT, async () => {
      const one = await start(slow(3_000))
      const { poolId } = await pool('header', [one.url], { deadline_ms: 1_500, max_attempts: 1 })
      let sent = performance.now()
      const short = await get(poolId, { 'x-sourcepool-deadline-ms': '300' })
      let took = performance.now() - sent
      assert.equal(short.statusCode, 504)
      assert.equal(short.json().detail, `Deadline of 300 ms exceeded for pool ${poolId}`)
      assert.ok(took >= 250 && took <= 700, `took ${Math.round(took)} ms`)
      // The header never goes upstream.
      assert.equal(one.seen[0]?.headers['x-sourcepool-deadline-ms'], undefined)
      sent = performance.now()
      const long = await get(poolId, { 'x-sourcepool-deadline-ms': '60000' })
      took = performance.now() - sent
      assert.equal(long.statusCode, 504)
      assert.equal(long.json().detail, `Deadline of 1500 ms exceeded for pool ${poolId}`)
      assert.ok(took >= 1_400 && took <= 2_000, `took ${Math.round(took)} ms`)
      for (const bad of ['soon', '-5', '0', '1.5', '600001']) {
        const res = await get(poolId, { 'x-sourcepool-deadline-ms': bad })
        assert.equal(res.statusCode, 400, bad)
        assert.equal(res.json().detail, 'x-sourcepool-deadline-ms must be a whole number of milliseconds from 1 to 600000')
      }
      // A deadline the client cut short says nothing about the provider.
      const member = (await status(poolId)).members[0]
      assert.deepEqual([member.failure_count, member.health], [1, 'healthy'])
    })

    it('never cuts an answer that has started streaming, even past a short deadline; a POST cut by the deadline is a 504 too', LIMIT, async () => {
      const streaming = await start((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.write('first;')
        setTimeout(() => { res.end('second') }, 700)
      })
      const { poolId } = await pool('stream', [streaming.url], { deadline_ms: 400 })
      const res = await get(poolId, { 'x-sourcepool-deadline-ms': '300' })
      assert.deepEqual([res.statusCode, res.body], [200, 'first;second'])
      const hanging = await start(slow(3_000))
      const posted = await pool('post', [hanging.url], { deadline_ms: 300 })
      const post = await t.app.inject({ method: 'POST', url: `/api/pools/${posted.poolId}/proxy/x`, payload: { a: 1 } })
      assert.equal(post.statusCode, 504)
      assert.equal(post.json().detail, `Deadline of 300 ms exceeded for pool ${posted.poolId}`)
    })

    it('counts only requests that reached a provider as first attempts: a run of 503s does not inflate the budget', LIMIT, async () => {
      const a = await start(json(500, { error: 'down' }))
      const b = await start(json(500, { error: 'down' }))
      const { poolId } = await pool('inflate', [a.url, b.url], { max_attempts: 2, failure_threshold: 1000 })
      await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { enabled: false } })
      for (let i = 0; i < 60; i++) assert.equal((await get(poolId)).statusCode, 503)
      await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { enabled: true } })
      for (let i = 0; i < 10; i++) await get(poolId)
      // 10 first attempts: the floor's 3 retries, not 20 % of 70.
      assert.equal(a.seen.length + b.seen.length, 13)
    })

    it('does not wait a backoff when no member is left to retry, nor one that would reach the deadline', LIMIT, async () => {
      const only = await start(json(500, { error: 'down' }))
      const single = await pool('single', [only.url], { retry_backoff_ms: 5_000, failure_threshold: 1000 })
      draw = 0.9999
      let sent = performance.now()
      assert.equal((await get(single.poolId)).statusCode, 502)
      assert.ok(performance.now() - sent < 1_000, `took ${Math.round(performance.now() - sent)} ms`)
      const a = await start(json(500, { error: 'down' }))
      const b = await start(json(200, { ok: true }))
      const pair = await pool('pair', [a.url, b.url], { retry_backoff_ms: 5_000, deadline_ms: 1_000, failure_threshold: 1000 })
      sent = performance.now()
      const res = await get(pair.poolId)
      assert.equal(res.statusCode, 502)
      assert.ok(performance.now() - sent < 500, `took ${Math.round(performance.now() - sent)} ms`)
      assert.equal(b.seen.length, 0)
    })

    it("keeps one client's deadline its own on a cached pool: a waiter without one gets the shared answer, not the leader's 504", LIMIT, async () => {
      const up = await start(slow(800))
      const { poolId } = await pool('coalesce', [up.url], { cache_ttl_seconds: 60 })
      const [short, plain] = await Promise.all([
        get(poolId, { 'x-sourcepool-deadline-ms': '200' }),
        sleep(50).then(async () => await get(poolId))
      ])
      assert.equal(short.statusCode, 504)
      assert.equal(short.json().detail, `Deadline of 200 ms exceeded for pool ${poolId}`)
      assert.deepEqual([plain.statusCode, plain.json()], [200, { slow: true }])
      assert.equal(up.seen.length, 1)
      assert.equal(up.seen[0]?.headers['x-sourcepool-deadline-ms'], undefined)
      // A malformed header is refused on a cache HIT too.
      assert.equal((await get(poolId, { 'x-sourcepool-deadline-ms': 'soon' })).statusCode, 400)
    })

    it("gives a cached pool's waiters the provider's own answer when their leader found the budget spent, with one upstream call", LIMIT, async () => {
      let delayMs = 0
      const failing = (req: IncomingMessage, res: ServerResponse) => { setTimeout(() => { json(500, { error: 'down' })(req, res) }, delayMs) }
      const a = await start(failing)
      const b = await start(failing)
      const { poolId } = await pool('spent', [a.url, b.url], { max_attempts: 2, retry_budget_percent: 20, failure_threshold: 1000, cache_ttl_seconds: 60 })
      // Spend the budget (its floor of 3 retries) one request at a time.
      for (let i = 0; i < 20 && (await get(poolId)).headers['x-sourcepool-retry-budget'] !== 'exhausted'; i++);
      delayMs = 300
      const before = a.seen.length + b.seen.length
      const answers = await Promise.all(Array.from({ length: 5 }, async (_, i) => await sleep(i * 20).then(async () => await get(poolId))))
      assert.equal(a.seen.length + b.seen.length - before, 1, 'one upstream call for the five')
      for (const res of answers) {
        assert.deepEqual([res.statusCode, res.json(), res.headers['x-sourcepool-retry-budget'], res.headers['x-sourcepool-cache']], [500, { error: 'down' }, 'exhausted', 'MISS'])
        assert.ok(String(res.headers['x-sourcepool-provider']).startsWith('spent-'))
      }
      assert.equal(new Set(answers.map((res) => res.headers['x-request-id'])).size, 5, 'each answer carries its own request id')
      // Not stored: the next request goes upstream again.
      delayMs = 0
      await get(poolId)
      assert.equal(a.seen.length + b.seen.length - before, 2)
    })

    it('bounds retries by the budget while every member fails, passes the last answer through marked exhausted, and refills after the window', LIMIT, async () => {
      const failing = () => json(500, { error: 'down' })
      const a = await start(failing())
      const b = await start(failing())
      // A high failure threshold keeps both members eligible, so every request fails its first attempt.
      const { poolId } = await pool('budget', [a.url, b.url], { max_attempts: 2, retry_budget_percent: 20, failure_threshold: 1000 })
      const calls = () => a.seen.length + b.seen.length
      let exhausted = 0
      for (let i = 0; i < 200; i++) {
        const res = await get(poolId)
        if (res.headers['x-sourcepool-retry-budget'] === 'exhausted') {
          exhausted++
          assert.equal(res.statusCode, 500)
          assert.deepEqual(res.json(), { error: 'down' })
          assert.equal(res.headers['x-sourcepool-attempts'], '1')
        } else {
          assert.equal(res.statusCode, 502)
        }
      }
      assert.ok(calls() <= 200 + Math.max(3, 0.2 * 200) + 3, `${calls()} upstream attempts`)
      assert.ok(calls() >= 200 + 3, `${calls()} upstream attempts: the floor allows 3 retries`)
      assert.ok(exhausted >= 200 - 43, `${exhausted} requests found the budget spent`)
      const counted = (await status(poolId)).retries
      assert.deepEqual([counted.made, counted.budget_exhausted], [calls() - 200, exhausted])
      const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
      assert.match(metrics, new RegExp(`sourcepool_retry_budget_exhausted_total\\{pool_id="${poolId}"\\} ${exhausted}`))
      assert.match(metrics, new RegExp(`sourcepool_proxy_retries_total\\{pool_id="${poolId}",kind="failover"\\} ${calls() - 200}`))

      // After the window the budget is back: the next failing request fails over again.
      clock += 11_000
      const before = calls()
      const res = await get(poolId)
      assert.deepEqual([res.statusCode, res.headers['x-sourcepool-retry-budget'], calls() - before], [502, undefined, 2])
    })

    it('waits a full-jitter backoff before each retry, within [0, base × 2^(n−2)]', LIMIT, async () => {
      const arrivals: number[] = []
      const failing = (req: IncomingMessage, res: ServerResponse) => { arrivals.push(performance.now()); json(503, { error: 'busy' })(req, res) }
      const members = [await start(failing), await start(failing), await start(failing)]
      const { poolId } = await pool('backoff', members.map((m) => m.url), { max_attempts: 3, retry_backoff_ms: 200, failure_threshold: 1000 })
      // The jitter drawn at its top: 200 ms before the second attempt, 400 before the third.
      draw = 0.9999
      assert.equal((await get(poolId)).statusCode, 502)
      assert.equal(arrivals.length, 3)
      const gaps = [(arrivals[1] as number) - (arrivals[0] as number), (arrivals[2] as number) - (arrivals[1] as number)]
      assert.ok(gaps[0] as number >= 190 && (gaps[0] as number) < 350, `first gap ${gaps.map(Math.round).join(', ')}`)
      assert.ok(gaps[1] as number >= 390 && (gaps[1] as number) < 600, `second gap ${gaps.map(Math.round).join(', ')}`)
      // At the bottom of the jitter: no wait at all (a window later, the budget's floor back).
      clock += 11_000
      draw = 0
      arrivals.length = 0
      assert.equal((await get(poolId)).statusCode, 502)
      assert.ok((arrivals[2] as number) - (arrivals[0] as number) < 150, `gaps ${Math.round((arrivals[2] as number) - (arrivals[0] as number))} ms`)
    })

    it('hedges a slow first attempt: the fast member wins, the slow attempt is closed upstream and is no failure; the history says hedge', LIMIT, async () => {
      const closed = { count: 0 }
      const slowOne = await start(slow(2_000, closed))
      const fast = await start(json(200, { fast: true }))
      const { poolId, providers } = await pool('hedge', [slowOne.url, fast.url], { rotation_strategy: 'priority', hedge_after_ms: 150 })
      const sent = performance.now()
      const res = await get(poolId)
      const took = performance.now() - sent
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), { fast: true })
      assert.equal(res.headers['x-sourcepool-provider'], 'hedge-1')
      assert.equal(res.headers['x-sourcepool-attempts'], '2')
      assert.ok(took >= 140 && took < 1_000, `took ${Math.round(took)} ms`)
      await until(() => closed.count === 1)
      assert.equal(slowOne.seen.length, 1)
      const body = await status(poolId)
      const slowMember = body.members.find((m: any) => m.provider_id === providers[0])
      assert.deepEqual([slowMember.failure_count, slowMember.success_count, slowMember.health], [0, 0, 'healthy'])
      assert.deepEqual([body.retries.made, body.retries.hedges], [1, 1])
      const history = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history?limit=10` })).body.history as any[]
      const hedge = history.find((h) => h.reason === 'hedge')
      assert.ok(hedge !== undefined, JSON.stringify(history))
      assert.deepEqual([hedge.from_provider, hedge.to_provider], ['hedge-0', 'hedge-1'])
      assert.match(hedge.notes, new RegExp(`^Hedge from slow provider ${providers[0] as number} \\(no answer after 150 ms\\)$`))
    })

    it('sends no hedge for a request that may not be repeated, nor when the first attempt answers in time', LIMIT, async () => {
      const slowOne = await start(slow(400))
      const fast = await start(json(200, { fast: true }))
      const { poolId } = await pool('nohedge', [slowOne.url, fast.url], { rotation_strategy: 'priority', hedge_after_ms: 100 })
      const post = await t.app.inject({ method: 'POST', url: `/api/pools/${poolId}/proxy/x`, payload: { a: 1 } })
      assert.deepEqual([post.statusCode, post.headers['x-sourcepool-attempts'], fast.seen.length], [200, '1', 0])
      await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { hedge_after_ms: 2_000 } })
      const res = await get(poolId)
      assert.deepEqual([res.statusCode, res.headers['x-sourcepool-attempts'], fast.seen.length], [200, '1', 0])
    })
  })
}
