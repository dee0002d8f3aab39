/**
 * The providers' own signals, end to end through the HTTP API (issue #27 items 2–4):
 * a provider that says it has no requests left (every header form, and garbage),
 * Retry-After on 429 and 503 as seconds or a date, a 401/402 on our credentials
 * (and on the client's, forwarded), credentials changed ending that cooldown, the
 * same signals in outcome reports, and the bounded wait (max_wait_ms) instead of a
 * 503. Every path that chooses — proxy, rotate, failover, /next — leaves such a
 * member out. Also a 403 saying no requests are left, a late Retry-After that must
 * not shorten a longer cooldown, and answers in flight together making one pause record.
 */
import assert from 'node:assert/strict'
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, it } from 'node:test'
import { addMember, createPool, createProvider, poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, sleep, type TestApp } from '../../test/helpers.js'
import { json, upstream, type Upstream } from '../../test/upstreams.js'

const START = Date.parse('2026-03-01T12:00:00.000Z')
const iso = (ms: number) => new Date(ms).toISOString()

/** Tests that wait on something they hold fail rather than hang. */
const LIMIT = { timeout: 30_000 }

/** Resolves once `check` holds (the test's own timeout bounds the wait). */
async function until (check: () => boolean): Promise<void> {
  while (!check()) await sleep(10)
}

/** A promise the test resolves when it chooses. */
function gate (): { opened: Promise<void>, open: () => void } {
  let open = (): void => {}
  const opened = new Promise<void>((resolve) => { open = resolve })
  return { opened, open }
}

for (const dialect of dialects) {
  describeOn(dialect, "providers' rate-limit and credential signals", () => {
    let t: TestApp
    let clock: number
    const upstreams: Upstream[] = []
    const start = async (behave: Parameters<typeof upstream>[0]) => {
      const u = await upstream(behave)
      upstreams.push(u)
      return u
    }
    /** A round-robin pool with one member per base URL, in order. */
    const pool = async (name: string, baseUrls: string[], poolExtra: Record<string, unknown> = {}, providerExtra: Record<string, unknown> = {}) =>
      await poolOfUrls(t, name, baseUrls, poolExtra, providerExtra)
    const get = async (poolId: number, path = '/x', extra: { method?: 'GET' | 'POST', headers?: Record<string, string> } = {}) =>
      await t.app.inject({ method: extra.method ?? 'GET', url: `/api/pools/${poolId}/proxy${path}`, headers: extra.headers })
    const next = async (poolId: number) => {
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/next` })
      assert.equal(res.status, 200)
      return new Map<number, { eligible: boolean, reason: string | null, until: string | null }>(res.body.members.map((m: any) => [m.provider_id, m]))
    }
    const member = async (poolId: number, providerId: number) => {
      await t.app.runtime.flush()
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
      return res.body.members.find((m: any) => m.provider_id === providerId)
    }
    const history = async (poolId: number) => {
      await t.app.runtime.flush()
      return (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history?limit=50` })).body.history as any[]
    }

    beforeEach(async () => {
      clock = START
      t = await buildTestApp(dialect, { now: () => new Date(clock), healthCheckTimer: false })
    })
    afterEach(async () => {
      await t.close()
      for (const u of upstreams.splice(0)) await u.close()
    })

    it('a success saying no requests are left passes through, and the member is out until the reset: not a failure, one rate_limited record', async () => {
      const spent = await start(json(200, { last: true }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60' }))
      const other = await start(json(200, { other: true }))
      const { poolId, providers } = await pool('spent', [spent.url, other.url])
      const first = await get(poolId)
      assert.equal(first.statusCode, 200)
      assert.deepEqual(first.json(), { last: true })
      assert.equal(first.headers['x-ratelimit-remaining'], '0', 'the answer itself passes through as it is')
      const out = (await next(poolId)).get(providers[0] as number)
      assert.deepEqual([out?.eligible, out?.reason, out?.until], [false, 'rate_limited', iso(START + 60_000)])
      // Every later request goes to the other member, however many.
      for (let i = 0; i < 4; i++) assert.equal((await get(poolId)).json().other, true)
      assert.equal(spent.seen.length, 1)
      const record = await member(poolId, providers[0] as number)
      assert.deepEqual([record.cooldown_reason, record.cooldown_until, record.failure_count, record.success_count, record.consecutive_failures],
        ['rate_limited', iso(START + 60_000), 0, 1, 0])
      assert.deepEqual([record.eligible, record.ineligible_reason, record.eligible_again_at], [false, 'rate_limited', iso(START + 60_000)])
      const records = (await history(poolId)).filter((h) => h.reason === 'rate_limited')
      assert.equal(records.length, 1)
      assert.equal(records[0].notes, `Provider ${providers[0] as number} has no requests left until ${iso(START + 60_000)} (its x-ratelimit-remaining)`)
      // Rotate and failover (the control plane) leave it out too.
      const rotated = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })
      assert.equal(rotated.body.provider_id, providers[1])
      const failover = await t.request({ method: 'POST', url: `/api/pools/${poolId}/failover`, payload: { failed_provider_id: providers[1] } })
      assert.equal(failover.status, 404, 'no alternative: the rate-limited member is not offered')
      // After the reset it is chosen again.
      clock += 61_000
      assert.equal((await next(poolId)).get(providers[0] as number)?.eligible, true)
    })

    it('reads every form of the reset: RateLimit-*, a Unix time, the RateLimit structured field; garbage is ignored and huge values capped', async () => {
      const forms: Array<[Record<string, string>, number | null]> = [
        [{ 'ratelimit-remaining': '0', 'ratelimit-reset': '30' }, 30],
        [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(START / 1000 + 45) }, 45],
        [{ ratelimit: '"default";r=0;t=20' }, 20],
        [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': 'soon' }, null],
        [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '-5' }, null],
        [{ 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '30' }, null],
        [{ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '999999' }, 120]
      ]
      for (const [i, [headers, seconds]] of forms.entries()) {
        const up = await start(json(200, { i }, headers))
        const { poolId, providers } = await pool(`form${i}`, [up.url], { max_cooldown_seconds: 120, cooldown_seconds: 10 })
        const res = await get(poolId)
        assert.equal(res.statusCode, 200, JSON.stringify(headers))
        const out = (await next(poolId)).get(providers[0] as number)
        if (seconds === null) assert.equal(out?.eligible, true, JSON.stringify(headers))
        else assert.deepEqual([out?.reason, out?.until], ['rate_limited', iso(START + seconds * 1000)], JSON.stringify(headers))
      }
    })

    it('Retry-After on a 429 or a 503, in seconds or as an HTTP date, cools the member down that long and the request moves on', async () => {
      const dated = await start(json(429, { detail: 'slow down' }, { 'retry-after': new Date(START + 90_000).toUTCString() }))
      const busy = await start(json(503, { detail: 'busy' }, { 'retry-after': '40' }))
      const fine = await start(json(200, { ok: true }))
      const { poolId, providers } = await pool('after', [dated.url, busy.url, fine.url], { max_attempts: 3 })
      const res = await get(poolId)
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['x-sourcepool-attempts'], '3')
      const members = await next(poolId)
      assert.deepEqual([members.get(providers[0] as number)?.reason, members.get(providers[0] as number)?.until], ['rate_limited', iso(START + 90_000)])
      assert.deepEqual([members.get(providers[1] as number)?.reason, members.get(providers[1] as number)?.until], ['rate_limited', iso(START + 40_000)])
    })

    it('a 401 or 402 on our credentials on the health check path takes the member out for max_cooldown_seconds; each moves on, even for a POST', async () => {
      const revoked = await start(json(401, { detail: 'bad key' }))
      const broke = await start(json(402, { detail: 'no credit' }))
      const fine = await start(json(200, { ok: true }))
      for (const [i, up, status] of [[0, revoked, 401], [1, broke, 402]] as const) {
        // By priority: every request meets the refusing member first, then the fine one.
        const { poolId, providers } = await poolOfUrls(t, `keys${i}`, [up.url, fine.url], { rotation_strategy: 'priority', max_attempts: 3, max_cooldown_seconds: 900 }, { auth_headers: { 'x-api-key': 'k1' }, health_check: { path: '/x', interval_s: 86_400 } }, true)
        const res = await get(poolId, '/orders', { method: 'POST' })
        assert.equal(res.statusCode, 200, 'the provider did nothing: a POST moves on too')
        assert.deepEqual(res.json(), { ok: true })
        // A path refused is not yet our key: the health check's path is.
        assert.equal((await member(poolId, providers[0] as number)).cooldown_reason, null)
        assert.equal((await get(poolId)).statusCode, 200)
        const m = await member(poolId, providers[0] as number)
        assert.deepEqual([m.health, m.cooldown_reason, m.cooldown_until, m.failure_count], ['cooling_down', 'credentials_rejected', iso(START + 900_000), 1])
        assert.equal((await next(poolId)).get(providers[0] as number)?.reason, 'cooling_down')
        const record = (await history(poolId)).find((h) => h.reason === 'cooldown:credentials_rejected' && h.from_provider === `keys${i}-0`)
        assert.equal(record?.notes, `Provider ${providers[0] as number} cooling down until ${iso(START + 900_000)} after: proxy: credentials_rejected (HTTP ${status})`)
      }
      // A request that two members reject is the request's doing: the second answer goes back; each refuses that resource alone.
      const twice = await pool('twice', [revoked.url, broke.url, fine.url], { max_attempts: 3 }, { auth_headers: { 'x-api-key': 'k1' } })
      const own = await get(twice.poolId, '/premium')
      assert.equal(own.statusCode, 402)
      assert.deepEqual(own.json(), { detail: 'no credit' })
      assert.equal((await next(twice.poolId)).get(twice.providers[0] as number)?.eligible, true, 'one resource refused: not our key')
      assert.equal((await next(twice.poolId)).get(twice.providers[1] as number)?.eligible, true, 'not taken out for the request')
      const premium = await t.request({ method: 'GET', url: `/api/pools/${twice.poolId}/next?resource=/premium` })
      assert.deepEqual(premium.body.members.map((m: any) => m.refuses_resource), [true, true, false])
      // Not offered even when everything else is down (all_down soonest).
      const alone = await pool('alone', [revoked.url], { all_down: 'soonest' }, { auth_headers: { 'x-api-key': 'k1' }, health_check: { path: '/x', interval_s: 86_400 } })
      assert.equal((await get(alone.poolId, '/w')).statusCode, 502, 'refused on /w alone')
      const failed = await get(alone.poolId)
      assert.equal(failed.statusCode, 502, 'the only member failed')
      assert.equal(failed.json().attempts[0].status_code, 401)
      const after = await get(alone.poolId)
      assert.equal(after.statusCode, 503)
      assert.deepEqual(after.json(), { detail: `No available providers in pool ${alone.poolId}` })
      const rotate = await t.request({ method: 'POST', url: `/api/pools/${alone.poolId}/rotate` })
      assert.equal(rotate.status, 404)
    })

    it("new auth_headers end the cooldown at once; a 401 with the client's own credentials is the client's: passed through, no penalty", async () => {
      const revoked = await start(json(401, { detail: 'bad key' }))
      const { poolId, providers } = await pool('renew', [revoked.url], {}, { auth_headers: { 'x-api-key': 'old' }, health_check: { path: '/y', interval_s: 86_400 } })
      // Refused on a path: not yet the key; on the health check's path: our key.
      await get(poolId, '/x')
      assert.equal((await next(poolId)).get(providers[0] as number)?.eligible, true, 'one path refused: not yet the key')
      await get(poolId, '/y')
      assert.equal((await next(poolId)).get(providers[0] as number)?.eligible, false)
      const same = await t.request({ method: 'PUT', url: `/api/providers/${providers[0] as number}`, payload: { description: 'only the text' } })
      assert.equal(same.status, 200)
      assert.equal((await next(poolId)).get(providers[0] as number)?.eligible, false, 'no new credentials: still out')
      const renewed = await t.request({ method: 'PUT', url: `/api/providers/${providers[0] as number}`, payload: { auth_headers: { 'x-api-key': 'new' } } })
      assert.equal(renewed.status, 200)
      assert.equal((await next(poolId)).get(providers[0] as number)?.eligible, true)
      assert.equal((await member(poolId, providers[0] as number)).cooldown_until, null)
      assert.deepEqual((await t.request({ method: 'GET', url: `/api/providers/${providers[0] as number}/refusals` })).body.refusals, [], 'the old key\'s refusal of /x went with it')

      const theirs = await pool('theirs', [revoked.url], { forward_client_auth: true })
      const res = await get(theirs.poolId, '/x', { headers: { 'x-provider-authorization': 'Bearer client-key' } })
      assert.equal(res.statusCode, 401)
      assert.deepEqual(res.json(), { detail: 'bad key' })
      const m = await member(theirs.poolId, theirs.providers[0] as number)
      assert.deepEqual([m.health, m.failure_count, m.success_count], ['healthy', 0, 1])
    })

    it('reports carry the same signals: a 401 on the health check path rejects our credentials, rate-limit headers pause without a failure', async () => {
      const { poolId, providers } = await pool('reports', ['http://127.0.0.1:9', 'http://127.0.0.1:9'], { max_cooldown_seconds: 600 }, { health_check: { path: '/prices', interval_s: 86_400 } })
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers[0], success: false, status_code: 401, path: '/orders' } })
      let res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers[0], success: false, status_code: 401, path: '/prices' } })
      assert.equal(res.status, 200)
      assert.deepEqual([res.body.health, res.body.cooldown_reason, res.body.cooldown_until], ['cooling_down', 'credentials_rejected', iso(START + 600_000)])
      res = await t.request({
        method: 'POST',
        url: `/api/pools/${poolId}/report`,
        payload: { provider_id: providers[1], success: true, status_code: 200, headers: { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '25' } }
      })
      assert.equal(res.status, 200)
      assert.deepEqual([res.body.cooldown_reason, res.body.cooldown_until, res.body.failure_count, res.body.success_count], ['rate_limited', iso(START + 25_000), 0, 1])
      const bad = await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers[1], success: true, headers: { 'x-a': 'b'.repeat(2000) } } })
      assert.equal(bad.status, 422)
    })

    it('a paid-only path both keys are refused on (401) is refused for that path alone: the client gets the 401, every other path keeps working, nobody is taken out', async () => {
      // Two providers, each with its own key: 401 on the paid-only path, 200 elsewhere.
      const paidOnly = (name: string) => (req: IncomingMessage, res: ServerResponse) => {
        if ((req.url ?? '').startsWith('/premium')) json(401, { detail: `${name}: not in your plan` })(req, res)
        else json(200, { served_by: name })(req, res)
      }
      const ups = [await start(paidOnly('a')), await start(paidOnly('b'))]
      const poolId = await createPool(t, 'paid', { rotation_strategy: 'round_robin' })
      const providers: number[] = []
      for (const [i, up] of ups.entries()) {
        providers.push(await createProvider(t, `paid-${i}`, { base_url: up.url, auth_headers: { 'x-api-key': `key-${i}` } }))
        await addMember(t, poolId, providers[i] as number)
      }
      const [a, b] = providers as [number, number]
      const paid = await get(poolId, '/premium/report?year=2026')
      assert.equal(paid.statusCode, 401, 'the client gets the provider\'s own answer')
      assert.deepEqual(paid.json(), { detail: 'b: not in your plan' })
      assert.equal(paid.headers['x-sourcepool-attempts'], '2')
      // Both now refuse /premium/report (that path exactly): asked again, the client hears so at once, and no provider is asked.
      for (let i = 0; i < 2; i++) {
        const again = await get(poolId, '/premium/report?year=2026')
        assert.equal(again.statusCode, 502)
        assert.deepEqual(again.json().refusals.map((r: any) => [r.provider_id, r.resource, r.expires_at]).sort(),
          [[a, '/premium/report', iso(START + 300_000)], [b, '/premium/report', iso(START + 300_000)]].sort(), 'for max_cooldown_seconds at most')
      }
      assert.deepEqual(ups.map((u) => u.seen.length), [1, 1])
      // Every other path of the pool keeps working, through both members.
      const served = []
      for (let i = 0; i < 4; i++) {
        const res = await get(poolId, `/quotes?page=${i}`)
        assert.equal(res.statusCode, 200)
        served.push(res.json().served_by)
      }
      assert.deepEqual(served.sort(), ['a', 'a', 'b', 'b'])
      for (const id of providers) {
        const out = (await next(poolId)).get(id)
        assert.deepEqual([out?.eligible, out?.reason], [true, null])
        const m = await member(poolId, id)
        assert.deepEqual([m.health, m.cooldown_reason, m.failure_count, m.consecutive_failures], ['healthy', null, 0, 0])
        const refusals = await t.request({ method: 'GET', url: `/api/providers/${id}/refusals` })
        assert.deepEqual(refusals.body.refusals.map((r: any) => r.resource), ['/premium/report'])
      }
      const records = await history(poolId)
      assert.equal(records.filter((h) => h.reason === 'cooldown:credentials_rejected').length, 0)
      assert.deepEqual(records.filter((h) => h.reason === 'refusal:/premium/report').map((h) => h.notes).sort(),
        [a, b].map((id) => `Provider ${id} refuses /premium/report (HTTP 401) until ${iso(START + 300_000)}`).sort())
      // New credentials for one: its refusals of our old key go with them.
      assert.equal((await t.request({ method: 'PUT', url: `/api/providers/${a}`, payload: { auth_headers: { 'x-api-key': 'premium-key' } } })).status, 200)
      assert.deepEqual((await t.request({ method: 'GET', url: `/api/providers/${a}/refusals` })).body.refusals, [])
      // Once the refusal has run out, the path is tried again.
      clock += 301_000
      assert.equal((await get(poolId, '/premium/report?year=2026')).statusCode, 401)
      assert.deepEqual(ups.map((u) => u.seen.length), [4, 4])
    })

    it('no sequence of paid-only paths takes a member out: /premium, /enterprise, /gold refused by both keys, /quotes still served by both; a key revoked later is found on /quotes', async () => {
      const paid = ['/premium', '/enterprise', '/gold']
      const revoked = new Set<string>()
      const paidOnly = (name: string) => (req: IncomingMessage, res: ServerResponse) => {
        const path = (req.url ?? '').split('?')[0] as string
        if (revoked.has(name) || paid.some((p) => path.startsWith(p))) json(401, { detail: `${name}: not in your plan` })(req, res)
        else json(200, { served_by: name })(req, res)
      }
      const ups = [await start(paidOnly('a')), await start(paidOnly('b'))]
      const { poolId, providers } = await poolOfUrls(t, 'review', ups.map((u) => u.url), { rotation_strategy: 'round_robin', max_attempts: 3 }, { auth_headers: { 'x-api-key': 'k' } }, true)
      for (let round = 0; round < 3; round++) {
        for (const path of [...paid, ...paid.map((p) => `${p}/x?n=${round}`)]) assert.notEqual((await get(poolId, path)).statusCode, 200, path)
      }
      const quotes = async (n: number) => {
        const served = []
        for (let i = 0; i < n; i++) {
          const res = await get(poolId, '/quotes')
          assert.equal(res.statusCode, 200)
          served.push(res.json().served_by)
        }
        return served.sort()
      }
      assert.deepEqual(await quotes(4), ['a', 'a', 'b', 'b'])
      for (const id of providers) {
        const m = await member(poolId, id)
        assert.deepEqual([m.health, m.cooldown_reason], ['healthy', null])
      }
      assert.deepEqual((await history(poolId)).filter((h) => h.reason.startsWith('cooldown:')), [])
      // /quotes answered 2xx with a's key: a 401 there now is the key revoked; the request moves on to b.
      revoked.add('a')
      assert.deepEqual(await quotes(3), ['b', 'b', 'b'])
      const a = await member(poolId, providers[0] as number)
      assert.deepEqual([a.health, a.cooldown_reason, a.cooldown_until], ['cooling_down', 'credentials_rejected', iso(START + 300_000)])
      assert.equal((await member(poolId, providers[1] as number)).cooldown_reason, null)
    })

    it('a 401 on /v1/paid refuses that path alone, not /v1: /v1/quotes keeps working on both members', async () => {
      const versioned = (name: string) => (req: IncomingMessage, res: ServerResponse) => {
        if ((req.url ?? '').startsWith('/v1/paid')) json(401, { detail: `${name}: not in your plan` })(req, res)
        else json(200, { served_by: name })(req, res)
      }
      const ups = [await start(versioned('a')), await start(versioned('b'))]
      const { poolId, providers } = await poolOfUrls(t, 'prefix', ups.map((u) => u.url), { rotation_strategy: 'round_robin' }, { auth_headers: { 'x-api-key': 'k' } }, true)
      for (let i = 0; i < 3; i++) assert.notEqual((await get(poolId, '/v1/paid')).statusCode, 200)
      const served = []
      for (let i = 0; i < 4; i++) {
        const res = await get(poolId, `/v1/quotes?page=${i}`)
        assert.deepEqual([res.statusCode, res.headers['x-sourcepool-attempts']], [200, '1'])
        served.push(res.json().served_by)
      }
      assert.deepEqual(served.sort(), ['a', 'a', 'b', 'b'])
      for (const id of providers) {
        assert.deepEqual((await t.request({ method: 'GET', url: `/api/providers/${id}/refusals` })).body.refusals.map((r: any) => r.resource), ['/v1/paid'])
        assert.equal((await member(poolId, id)).cooldown_reason, null)
      }
    })

    it('our key refused is still found out on a target that answered 2xx before or on the health check target; refusals of other paths are no evidence', async () => {
      const revoked = await start(json(401, { detail: 'bad key' }))
      const fine = await start(json(200, { ok: true }))
      const key = { auth_headers: { 'x-api-key': 'k1' } }
      // Refused on path after path: each refuses that path alone, the request moves on, the member stays in.
      const paths = await poolOfUrls(t, 'paths', [revoked.url, fine.url], { rotation_strategy: 'priority' }, key, true)
      const id = paths.providers[0] as number
      for (const path of ['/a', '/b', '/a/c', '/d?x=1']) {
        const res = await get(paths.poolId, path)
        assert.deepEqual([res.statusCode, res.headers['x-sourcepool-attempts'], res.json()], [200, '2', { ok: true }], path)
        const m = await member(paths.poolId, id)
        assert.deepEqual([m.health, m.cooldown_reason], ['healthy', null], path)
      }
      const refused = await t.request({ method: 'GET', url: `/api/providers/${id}/refusals` })
      assert.deepEqual(refused.body.refusals.map((r: any) => [r.resource, r.expires_at]), ['/a', '/a/c', '/b', '/d'].map((r) => [r, iso(START + 300_000)]))
      assert.equal((await get(paths.poolId, '/a')).headers['x-sourcepool-attempts'], '1', 'a refused path is not asked again')
      assert.deepEqual((await history(paths.poolId)).map((h) => h.reason).filter((r) => r.startsWith('cooldown:')), [])

      // A target that answered 2xx with this key before: a 401 on it now is the key, at once; on a target never served, it is not.
      let revokedNow = false
      const flipping = (req: IncomingMessage, res: ServerResponse) => { json(revokedNow ? 401 : 200, { ok: !revokedNow })(req, res) }
      const served = await poolOfUrls(t, 'served', [(await start(flipping)).url], {}, key)
      const unseen = await poolOfUrls(t, 'unseen', [(await start(flipping)).url], {}, key)
      for (const pool of [served, unseen]) assert.equal((await get(pool.poolId, '/prices?symbol=ACME')).statusCode, 200)
      revokedNow = true
      assert.equal((await get(served.poolId, '/prices?symbol=ACME')).statusCode, 502)
      assert.equal((await get(unseen.poolId, '/prices?symbol=OTHER')).statusCode, 502)
      assert.equal((await member(served.poolId, served.providers[0] as number)).cooldown_reason, 'credentials_rejected')
      assert.equal((await member(unseen.poolId, unseen.providers[0] as number)).cooldown_reason, null, 'never served: a refusal of /prices alone')

      // The health check's target: asked by the service itself, a 401 there is the key; with a query of the client's own, it is not.
      const check = { ...key, health_check: { path: '/status?deep=1', interval_s: 86_400 } }
      const steered = await poolOfUrls(t, 'steered', [revoked.url], {}, check)
      assert.equal((await get(steered.poolId, '/status?api_key=mine')).statusCode, 502)
      assert.equal((await member(steered.poolId, steered.providers[0] as number)).cooldown_reason, null, 'not the check\'s target')
      const checked = await poolOfUrls(t, 'checked', [revoked.url], {}, check)
      assert.equal((await get(checked.poolId, '/status?deep=1')).statusCode, 502)
      assert.equal((await member(checked.poolId, checked.providers[0] as number)).cooldown_reason, 'credentials_rejected')
    })

    it('reports are judged by the same rule: with its path, a 401 refuses that path alone; on the health check path our key is rejected; without a path, a plain failure', async () => {
      const { poolId, providers } = await pool('judged', ['http://127.0.0.1:9', 'http://127.0.0.1:9'], { max_cooldown_seconds: 600 }, { health_check: { path: '/status', interval_s: 86_400 } })
      const [a, b] = providers as [number, number]
      const report = async (payload: Record<string, unknown>) => await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { success: false, status_code: 401, ...payload } })
      let res = await report({ provider_id: a, path: '/premium/x?y=1' })
      assert.equal(res.status, 200)
      assert.deepEqual([res.body.health, res.body.cooldown_reason, res.body.consecutive_failures, res.body.failure_count, res.body.last_error], ['healthy', null, 0, 1, 'HTTP 401'])
      const refusals = await t.request({ method: 'GET', url: `/api/providers/${a}/refusals` })
      assert.deepEqual(refusals.body.refusals.map((r: any) => [r.resource, r.expires_at]), [['/premium/x', iso(START + 600_000)]])
      const explained = await t.request({ method: 'GET', url: `/api/pools/${poolId}/next?resource=/premium/x` })
      assert.deepEqual(explained.body.members.map((m: any) => [m.provider_id, m.refuses_resource]), [[a, true], [b, false]])
      // Another path refused is no evidence of our key: still a refusal of that path alone.
      res = await report({ provider_id: a, path: '/prices' })
      assert.deepEqual([res.body.health, res.body.cooldown_reason, res.body.consecutive_failures], ['healthy', null, 0])
      res = await report({ provider_id: a, path: '/status' })
      assert.deepEqual([res.body.health, res.body.cooldown_reason, res.body.cooldown_until], ['cooling_down', 'credentials_rejected', iso(START + 600_000)])
      res = await report({ provider_id: b })
      assert.deepEqual([res.body.health, res.body.cooldown_reason, res.body.consecutive_failures, res.body.failure_count], ['healthy', null, 1, 1])
      const reasons = (await history(poolId)).map((h) => h.reason)
      assert.deepEqual(reasons.filter((r) => r !== 'scheduled').sort(), ['cooldown:credentials_rejected', 'refusal:/premium/x', 'refusal:/prices'])
      assert.equal((await report({ provider_id: b, path: 'x'.repeat(2049) })).status, 422)
    })

    it('a 403 saying no requests are left (remaining 0, a reset) pauses the member as rate_limited and the request moves on', async () => {
      const reset = String(START / 1000 + 240)
      const limited = await start(json(403, { message: 'API rate limit exceeded' }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }))
      const fine = await start(json(200, { ok: true }))
      const { poolId, providers } = await pool('gh', [limited.url, fine.url], { max_attempts: 2 })
      const res = await get(poolId, '/repos/a')
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), { ok: true })
      assert.equal(res.headers['x-sourcepool-attempts'], '2')
      const out = (await next(poolId)).get(providers[0] as number)
      assert.deepEqual([out?.eligible, out?.reason, out?.until], [false, 'rate_limited', iso(START + 240_000)])
      for (const path of ['/users/b', '/orgs/c']) assert.deepEqual((await get(poolId, path)).json(), { ok: true })
      assert.equal(limited.seen.length, 1, 'not asked again before its reset')
      assert.equal(fine.seen.length, 3)
      // A 403 without such a signal is still the provider refusing that resource, not a pause of the member.
      const refusing = await start(json(403, { message: 'forbidden' }))
      const plain = await pool('refuses', [refusing.url])
      const refused = await get(plain.poolId, '/despesas')
      assert.equal(refused.statusCode, 502)
      assert.deepEqual(refused.json().attempts.map((a: any) => a.status_code), [403])
      const still = (await next(plain.poolId)).get(plain.providers[0] as number)
      assert.deepEqual([still?.eligible, still?.reason, still?.until], [true, null, null])
    })

    it('a late 429 with Retry-After: 1 never shortens a credentials_rejected cooldown running until +300 s', LIMIT, async () => {
      const held = gate()
      let n = 0
      const up = await start((req, res) => {
        // The first request is answered last (429, Retry-After: 1); the second at once (401: our key revoked meanwhile).
        if (++n === 1) held.opened.then(() => { json(429, { detail: 'slow down' }, { 'retry-after': '1' })(req, res) }, () => {})
        else json(401, { detail: 'bad key' })(req, res)
      })
      const { poolId, providers } = await pool('late', [up.url], { max_cooldown_seconds: 300 }, { auth_headers: { 'x-api-key': 'k1' }, health_check: { path: '/b', interval_s: 86_400 } })
      const id = providers[0] as number
      const slow = get(poolId, '/a')
      await until(() => up.seen.length === 1)
      // Our key refused on /z (that path alone), then on /b, the health check's path: the key.
      assert.equal((await get(poolId, '/z')).statusCode, 502)
      const rejected = await get(poolId, '/b')
      assert.equal(rejected.statusCode, 502)
      assert.equal(rejected.json().attempts[0].status_code, 401)
      const during = (await next(poolId)).get(id)
      assert.deepEqual([during?.eligible, during?.reason, during?.until], [false, 'cooling_down', iso(START + 300_000)])

      held.open()
      const late = await slow
      assert.equal(late.statusCode, 502)
      assert.equal(late.json().attempts[0].status_code, 429)
      const after = (await next(poolId)).get(id)
      assert.deepEqual([after?.eligible, after?.reason, after?.until], [false, 'cooling_down', iso(START + 300_000)])
      const m = await member(poolId, id)
      assert.deepEqual([m.health, m.cooldown_reason, m.cooldown_until], ['cooling_down', 'credentials_rejected', iso(START + 300_000)])

      // Past the 429's second, the member is still out: nothing goes to it.
      clock += 2_000
      assert.equal((await next(poolId)).get(id)?.eligible, false)
      const refused = await get(poolId, '/c')
      assert.equal(refused.statusCode, 503)
      assert.deepEqual(refused.json(), { detail: `No available providers in pool ${poolId}` })
      assert.equal(up.seen.length, 3)
    })

    it('20 answers in flight together saying remaining 0 with the same reset write exactly one rate_limited record', LIMIT, async () => {
      const held: Array<() => void> = []
      const up = await start((req, res) => {
        held.push(() => { json(200, { ok: true }, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '60' })(req, res) })
      })
      const { poolId, providers } = await pool('burst', [up.url])
      let done = 0
      const all = Array.from({ length: 20 }, async () => await get(poolId).finally(() => { done++ }))
      await until(() => held.length === 20)
      // Answered one after another as the app's clock moves on (10 ms apart), as answers in flight together come back.
      for (const [i, answer] of held.entries()) {
        answer()
        await until(() => done === i + 1)
        clock += 10
      }
      for (const res of await Promise.all(all)) {
        assert.equal(res.statusCode, 200)
        assert.deepEqual(res.json(), { ok: true })
      }
      assert.equal(up.seen.length, 20)
      const records = (await history(poolId)).filter((h) => h.reason === 'rate_limited')
      assert.equal(records.length, 1, JSON.stringify(records))
      assert.equal(records[0].notes, `Provider ${providers[0] as number} has no requests left until ${iso(START + 60_000)} (its x-ratelimit-remaining)`)
      const out = (await next(poolId)).get(providers[0] as number)
      assert.deepEqual([out?.eligible, out?.reason, out?.until], [false, 'rate_limited', iso(START + 60_000)])
      const m = await member(poolId, providers[0] as number)
      assert.deepEqual([m.failure_count, m.success_count], [0, 20])
    })
  })

  describeOn(dialect, 'max_wait_ms: a bounded wait instead of an instant 503', () => {
    let t: TestApp
    const upstreams: Upstream[] = []
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => {
      await t.close()
      for (const u of upstreams.splice(0)) await u.close()
    })

    /** A one-member pool whose provider answered a 429 with Retry-After: 1 (so it is out for about a second). */
    const pausedPool = async (name: string, maxWaitMs: number) => {
      let calls = 0
      const up = await upstream((_req, res) => {
        calls++
        if (calls === 1) json(429, { detail: 'wait' }, { 'retry-after': '1' })(_req, res)
        else json(200, { served: calls })(_req, res)
      })
      upstreams.push(up)
      const poolId = await createPool(t, name, { max_wait_ms: maxWaitMs })
      await addMember(t, poolId, await createProvider(t, `${name}-p`, { base_url: up.url }))
      assert.equal((await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/x` })).statusCode, 502, 'its only member failed (429)')
      return { poolId, up }
    }

    it('without it the request is a 503 at once; with it the request waits for the member and is served', async () => {
      const plain = await pausedPool('plain', 0)
      const refused = await t.app.inject({ method: 'GET', url: `/api/pools/${plain.poolId}/proxy/x` })
      assert.equal(refused.statusCode, 503)
      assert.deepEqual(refused.json(), { detail: `No available providers in pool ${plain.poolId}` })

      const waiting = await pausedPool('waiting', 5000)
      const served = await t.app.inject({ method: 'GET', url: `/api/pools/${waiting.poolId}/proxy/x` })
      assert.equal(served.statusCode, 200)
      assert.deepEqual(served.json(), { served: 2 })
    })

    it('a client that leaves while waiting is released: nothing goes upstream for it', async () => {
      const { poolId, up } = await pausedPool('leaves', 5000)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = t.app.server.address() as AddressInfo
      const req = httpRequest({ host: '127.0.0.1', port, path: `/api/pools/${poolId}/proxy/x`, method: 'GET' })
      req.on('error', () => {})
      req.end()
      await sleep(200)
      req.destroy()
      // Past the member's return: had the wait not ended with the client, it would have gone upstream now.
      await sleep(1500)
      assert.equal(up.seen.length, 1, 'only the first (429) request reached the provider')
    })
  })
}
