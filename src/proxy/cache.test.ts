/**
 * The proxy's response cache (cached-proxy.ts) as a client sees it over HTTP: on
 * SQLite and PostgreSQL, with the cache in memory and in a real Redis (TEST_REDIS_URL;
 * each app's keys under a CACHE_KEY_PREFIX of its own, removed afterwards). One
 * upstream call for many identical requests, TTL and stale windows on the app's
 * clock, what is never stored or shared, HEAD from a stored GET, purge, counters
 * and metrics, two instances sharing one Redis, a Redis that is down, answers
 * too big to keep, and what an adversarial review found: what waiters must not share
 * (another Vary variant, a private answer), ranges and conditions passing through,
 * a custom credential header in the key, event streams, a body that breaks off, a
 * purge racing a MISS, the provider's own Age. Every test counts the calls the
 * upstream really received.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp, type TestDialect } from '../../test/helpers.js'
import { redisRunPrefix, redisSkip, redisUrl } from '../../test/redis.js'
import { json, upstream, type Upstream } from '../../test/upstreams.js'

/** Every Redis key this run writes starts with it (removed when the file ends). */
const runPrefix = redisRunPrefix('cache-http')
/** A prefix of its own for one app (or two that share), so fresh databases' pool ids never meet old entries. */
const freshPrefix = (): string => `${runPrefix}${randomBytes(4).toString('hex')}:`

/** Tests that wait on something they hold fail rather than hang. */
const LIMIT = { timeout: 30_000 }

/** Where the cache keeps its entries in a suite. */
interface StoreKind {
  readonly name: 'memory' | 'redis'
  readonly skip?: string | undefined
  env (): Record<string, string>
}

const storeKinds: StoreKind[] = [
  { name: 'memory', env: () => ({}) },
  { name: 'redis', skip: redisSkip, env: () => ({ CACHE_URL: redisUrl as string, CACHE_KEY_PREFIX: freshPrefix() }) }
]

/** What one request got back, its body as bytes. */
interface Got { status: number, headers: Record<string, unknown>, body: Buffer }

async function send (t: TestApp, method: 'GET' | 'HEAD' | 'POST', url: string, headers: Record<string, string> = {}): Promise<Got> {
  const res = await t.app.inject({ method, url, headers, ...(method === 'POST' ? { payload: 'posted' } : {}) })
  return { status: res.statusCode, headers: res.headers, body: res.rawPayload }
}

const get = async (t: TestApp, url: string, headers: Record<string, string> = {}): Promise<Got> => await send(t, 'GET', url, headers)
const parsed = (got: Got): unknown => JSON.parse(got.body.toString())
const cacheOf = (got: Got): unknown => got.headers['x-sourcepool-cache']

/** The headers of an answer less the ones the proxy adds. */
function upstreamHeaders (headers: Record<string, unknown>): Record<string, unknown> {
  const ours = new Set(['x-sourcepool-cache', 'x-sourcepool-provider', 'x-sourcepool-attempts', 'age', 'x-request-id'])
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !ours.has(name)))
}

/** Resolves once `check` holds (the test's own timeout bounds the wait). */
async function until (check: () => boolean | Promise<boolean>): Promise<void> {
  while (!await check()) await sleep(10)
}

/** A promise the test resolves when it chooses. */
function gate (): { opened: Promise<void>, open: () => void } {
  let open = (): void => {}
  const opened = new Promise<void>((resolve) => { open = resolve })
  return { opened, open }
}

/** A pool with the cache on (TTL 60 s unless `policy` says otherwise) and one member per base URL, named `${name}-${i}`. */
async function cachedPool (t: TestApp, name: string, baseUrls: string[], policy: Record<string, unknown> = {}): Promise<number> {
  const poolId = await createPool(t, name, { cache_ttl_seconds: 60, ...policy })
  for (const [i, url] of baseUrls.entries()) await addMember(t, poolId, await createProvider(t, `${name}-${i}`, { base_url: url }))
  return poolId
}

/** `describeOn` for a store too: a skipped test in place of a suite whose store is not configured. */
function describeFor (dialect: TestDialect, kind: StoreKind, title: string, fn: () => void): void {
  if (kind.skip !== undefined && dialect.skip === undefined) it(`[${dialect.name}] [${kind.name}] ${title}`, { skip: kind.skip }, () => {})
  else describeOn(dialect, `[${kind.name}] ${title}`, fn)
}

/** Open upstreams, closed after each test. */
const upstreams: Upstream[] = []
async function start (behave: Parameters<typeof upstream>[0]): Promise<Upstream> {
  const u = await upstream(behave)
  upstreams.push(u)
  return u
}
afterEach(async () => { for (const u of upstreams.splice(0)) await u.close() })

/**
 * Waits until the app's cache takes and serves entries: a Redis store misses until
 * its first connection is made. Through a pool of its own, so counters stay apart.
 */
async function warm (t: TestApp): Promise<void> {
  const up = await start(json(200, { warm: true }))
  const poolId = await cachedPool(t, 'warm-up', [up.url])
  await until(async () => cacheOf(await get(t, `/api/pools/${poolId}/proxy/warm`)) === 'HIT')
}

for (const dialect of dialects) {
  for (const kind of storeKinds) {
    describeFor(dialect, kind, 'the proxy response cache', () => {
      let t: TestApp
      let clock: number
      /** A fresh app on the test clock (or, with `realClock`, on the machine's). */
      const build = async (env: Record<string, string> = {}, realClock = false) => {
        t = await buildTestApp(dialect, realClock ? {} : { now: () => new Date(clock) }, { ...kind.env(), ...env })
        if (kind.name === 'redis') await warm(t)
      }
      beforeEach(async () => {
        clock = Date.now()
        await build()
      })
      afterEach(async () => { await t.close() })

      it('makes ONE upstream request for 100 concurrent identical GETs, gives all the same bytes, then HITs with the upstream headers exactly', LIMIT, async () => {
        const body = JSON.stringify({ symbol: 'ACME', price: 42.5 })
        const up = await start((_req, res) => {
          setTimeout(() => {
            res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', etag: '"p42"', 'x-quote-source': 'exchange-7' })
            res.end(body)
          }, 200)
        })
        const poolId = await cachedPool(t, 'quotes', [up.url])
        const url = `/api/pools/${poolId}/proxy/quote?symbol=ACME&fields=price`
        const all = await Promise.all(Array.from({ length: 100 }, async () => await get(t, url)))
        assert.equal(up.seen.length, 1)
        for (const res of all) {
          assert.equal(res.status, 200)
          assert.deepEqual(res.body, Buffer.from(body))
        }
        const labels = all.map(cacheOf)
        assert.deepEqual([labels.filter((l) => l === 'MISS').length, labels.filter((l) => l === 'HIT').length], [1, 99], labels.join())
        const miss = all.find((res) => cacheOf(res) === 'MISS') as Got
        assert.equal(miss.headers['x-sourcepool-attempts'], '1')
        assert.equal(miss.headers['x-sourcepool-provider'], 'quotes-0')

        clock += 5_000
        const later = await get(t, url)
        assert.equal(later.status, 200)
        assert.equal(cacheOf(later), 'HIT')
        assert.equal(later.headers.age, '5')
        assert.equal(later.headers['x-sourcepool-provider'], 'quotes-0')
        assert.equal(later.headers['x-sourcepool-attempts'], '0')
        assert.equal(later.headers['content-type'], 'application/json; charset=utf-8')
        assert.equal(later.headers.etag, '"p42"')
        assert.equal(later.headers['x-quote-source'], 'exchange-7')
        assert.deepEqual(later.body, Buffer.from(body))
        assert.deepEqual(upstreamHeaders(later.headers), upstreamHeaders(miss.headers))
        assert.equal(up.seen.length, 1)
      })

      it('serves an entry until its TTL ends on the app clock, then goes upstream again (MISS)', async () => {
        let n = 0
        const up = await start((req, res) => { json(200, { n: ++n })(req, res) })
        const poolId = await cachedPool(t, 'ttl', [up.url], { cache_ttl_seconds: 30 })
        const url = `/api/pools/${poolId}/proxy/rates`
        const first = await get(t, url)
        assert.deepEqual([first.status, cacheOf(first), parsed(first)], [200, 'MISS', { n: 1 }])
        clock += 29_999
        const hit = await get(t, url)
        assert.deepEqual([hit.status, cacheOf(hit), hit.headers.age, parsed(hit)], [200, 'HIT', '29', { n: 1 }])
        clock += 1
        const expired = await get(t, url)
        assert.deepEqual([expired.status, cacheOf(expired), parsed(expired)], [200, 'MISS', { n: 2 }])
        assert.equal(up.seen.length, 2)
        const again = await get(t, url)
        assert.deepEqual([again.status, cacheOf(again), parsed(again)], [200, 'HIT', { n: 2 }])
        assert.equal(up.seen.length, 2)
      })

      it("keeps time by the app's clock, not the machine's: an app whose clock is an hour behind still stores and serves", async () => {
        clock = Date.now() - 3_600_000
        const up = await start(json(200, { ok: true }))
        const poolId = await cachedPool(t, 'behind', [up.url])
        const url = `/api/pools/${poolId}/proxy/x`
        assert.equal(cacheOf(await get(t, url)), 'MISS')
        const second = await get(t, url)
        assert.deepEqual([second.status, cacheOf(second), parsed(second)], [200, 'HIT', { ok: true }])
        assert.equal(up.seen.length, 1)
      })

      it('stale-while-revalidate: after the TTL answers STALE at once while exactly ONE background refresh runs, then HITs with the new body', LIMIT, async () => {
        let version = 1
        const refresh = gate()
        let holding = false
        const up = await start((req, res) => {
          const v = version
          const wait = holding ? refresh.opened : Promise.resolve()
          wait.then(() => { json(200, { v })(req, res) }, () => {})
        })
        const poolId = await cachedPool(t, 'swr', [up.url], { cache_ttl_seconds: 30, cache_stale_seconds: 60 })
        const url = `/api/pools/${poolId}/proxy/book?depth=5`
        assert.equal(cacheOf(await get(t, url)), 'MISS')

        version = 2
        holding = true
        clock += 31_000
        // The refresh is held at the upstream: these are answered without it.
        const stale = await Promise.all(Array.from({ length: 10 }, async () => await get(t, url)))
        for (const res of stale) assert.deepEqual([res.status, cacheOf(res), res.headers.age, parsed(res)], [200, 'STALE', '31', { v: 1 }])
        await until(() => up.seen.length === 2)
        const during = await get(t, url)
        assert.deepEqual([cacheOf(during), parsed(during)], ['STALE', { v: 1 }])
        assert.equal(up.seen.length, 2)

        refresh.open()
        await until(async () => cacheOf(await get(t, url)) === 'HIT')
        const fresh = await get(t, url)
        assert.deepEqual([fresh.status, cacheOf(fresh), fresh.headers.age, parsed(fresh)], [200, 'HIT', '0', { v: 2 }])
        assert.equal(up.seen.length, 2)
        assert.equal(up.seen[1]?.method, 'GET')
        assert.equal(up.seen[1]?.url, '/book?depth=5')
      })

      it('stale-if-error: within the stale window, with every member answering 500, a no-cache request and plain GETs get STALE, not 502', LIMIT, async () => {
        let failing = false
        const behave = (req: IncomingMessage, res: ServerResponse) => { json(failing ? 500 : 200, failing ? { error: 'down' } : { v: 1 })(req, res) }
        const a = await start(behave)
        const b = await start(behave)
        const calls = () => a.seen.length + b.seen.length
        const poolId = await cachedPool(t, 'sie', [a.url, b.url], { cache_ttl_seconds: 30, cache_stale_seconds: 60 })
        const url = `/api/pools/${poolId}/proxy/feed`
        assert.equal(cacheOf(await get(t, url)), 'MISS')

        failing = true
        clock += 31_000
        // Asked anew, every member fails: the entry within its stale window answers.
        const anew = await get(t, url, { 'cache-control': 'no-cache' })
        assert.deepEqual([anew.status, cacheOf(anew), anew.headers.age, parsed(anew)], [200, 'STALE', '31', { v: 1 }])
        assert.equal(calls(), 3)

        const plain = await get(t, url)
        assert.deepEqual([plain.status, cacheOf(plain), parsed(plain)], [200, 'STALE', { v: 1 }])
        // Its background refresh fails too; the entry is kept, not replaced by the failure.
        await until(() => calls() >= 4)
        const again = await get(t, url)
        assert.deepEqual([again.status, cacheOf(again), parsed(again)], [200, 'STALE', { v: 1 }])

        // Without an entry the same failure is the client's: a 502/503, or (the pool's retry
        // budget spent by the failovers above, issue 28) the provider's own 500 as it came.
        const cold = await get(t, `/api/pools/${poolId}/proxy/other`, { 'cache-control': 'no-cache' })
        const exhausted = cold.status === 500 && cold.headers['x-sourcepool-retry-budget'] === 'exhausted'
        assert.ok(cold.status === 502 || cold.status === 503 || exhausted, String(cold.status))
      })

      it('stale-if-error: a no-cache request that meets a failing background refresh in flight still gets STALE, not 502', LIMIT, async () => {
        const refresh = gate()
        let failing = false
        const up = await start((req, res) => {
          const status = failing ? 500 : 200
          const wait = failing ? refresh.opened : Promise.resolve()
          wait.then(() => { json(status, status === 200 ? { v: 1 } : { error: 'down' })(req, res) }, () => {})
        })
        const poolId = await cachedPool(t, 'sie-wait', [up.url], { cache_ttl_seconds: 30, cache_stale_seconds: 60 })
        const url = `/api/pools/${poolId}/proxy/feed`
        assert.equal(cacheOf(await get(t, url)), 'MISS')

        failing = true
        clock += 31_000
        assert.equal(cacheOf(await get(t, url)), 'STALE')
        await until(() => up.seen.length === 2)
        const anew = get(t, url, { 'cache-control': 'no-cache' })
        // Not a timing assertion: gives the no-cache request the time to find the refresh in flight.
        await sleep(100)
        refresh.open()
        const res = await anew
        assert.deepEqual([res.status, cacheOf(res), parsed(res)], [200, 'STALE', { v: 1 }])
      })

      it("gives the leader's failure to the requests that waited for it: one upstream call, every one a 502, nothing stored", LIMIT, async () => {
        const up = await start((req, res) => { setTimeout(() => { json(500, { error: 'down' })(req, res) }, 200) })
        const poolId = await cachedPool(t, 'fails', [up.url])
        const all = await Promise.all(Array.from({ length: 20 }, async () => await get(t, `/api/pools/${poolId}/proxy/x`)))
        assert.equal(up.seen.length, 1)
        for (const res of all) {
          assert.equal(res.status, 502)
          assert.equal((parsed(res) as { detail: string }).detail, `All providers failed for pool ${poolId}`)
        }
      })

      it('a leader whose client leaves while it waits for a member (max_wait_ms) does not fail the requests waiting for it', LIMIT, async () => {
        // Real time: the member's rate-limit pause must end while the requests wait.
        await t.close()
        await build({}, true)
        let first = true
        const up = await start((req, res) => {
          if (first) json(429, { error: 'slow down' }, { 'retry-after': '2' })(req, res)
          else json(200, { ok: true })(req, res)
          first = false
        })
        const poolId = await cachedPool(t, 'left', [up.url], { max_wait_ms: 10_000 })
        assert.equal((await get(t, `/api/pools/${poolId}/proxy/paused`)).status, 502)
        await t.app.listen({ port: 0, host: '127.0.0.1' })
        const { port } = t.app.server.address() as AddressInfo
        // The leader waits for the member to come back; then its client leaves.
        const leader = httpRequest({ host: '127.0.0.1', port, path: `/api/pools/${poolId}/proxy/x`, method: 'GET' })
        leader.on('error', () => {})
        leader.end()
        // Not timing assertions: the leader and then the waiter are given the time to start waiting.
        await sleep(200)
        const waiter = get(t, `/api/pools/${poolId}/proxy/x`)
        await sleep(200)
        leader.destroy()
        const res = await waiter
        assert.deepEqual([res.status, parsed(res)], [200, { ok: true }])
        assert.equal(up.seen.length, 2)
      })

      it('keys by Accept as sent and honours the stored answer\'s Vary: different representations are never mixed', async () => {
        const up = await start((req, res) => {
          json(200, { accept: req.headers.accept ?? null, lang: req.headers['accept-language'] ?? null }, { vary: 'Accept-Language' })(req, res)
        })
        const poolId = await cachedPool(t, 'keys', [up.url])
        const url = `/api/pools/${poolId}/proxy/report`
        const asked = async (headers: Record<string, string>) => {
          const res = await get(t, url, headers)
          return [res.status, cacheOf(res), parsed(res)]
        }
        assert.deepEqual(await asked({ accept: 'application/json', 'accept-language': 'de' }), [200, 'MISS', { accept: 'application/json', lang: 'de' }])
        assert.deepEqual(await asked({ accept: 'text/csv', 'accept-language': 'de' }), [200, 'MISS', { accept: 'text/csv', lang: 'de' }])
        assert.deepEqual(await asked({ accept: 'application/json', 'accept-language': 'de' }), [200, 'HIT', { accept: 'application/json', lang: 'de' }])
        assert.deepEqual(await asked({ accept: 'application/json', 'accept-language': 'en' }), [200, 'MISS', { accept: 'application/json', lang: 'en' }])
        assert.deepEqual(await asked({ accept: 'application/json', 'accept-language': 'en' }), [200, 'HIT', { accept: 'application/json', lang: 'en' }])
        assert.equal(up.seen.length, 3)
      })

      it('does not store answers marked no-store or private (BYPASS, each goes upstream); a max-age shorter than the pool TTL wins', async () => {
        const directives: Record<string, string> = { '/no-store': 'no-store', '/private': 'private, max-age=600', '/short': 'max-age=1' }
        const up = await start((req, res) => {
          const cc = directives[req.url ?? '']
          json(200, { path: req.url }, cc === undefined ? {} : { 'cache-control': cc })(req, res)
        })
        const poolId = await cachedPool(t, 'cc', [up.url])
        const base = `/api/pools/${poolId}/proxy`
        for (const path of ['/no-store', '/private']) {
          for (let i = 0; i < 2; i++) {
            const res = await get(t, `${base}${path}`)
            assert.deepEqual([res.status, cacheOf(res), res.headers['cache-control'], parsed(res)], [200, 'BYPASS', directives[path], { path }])
          }
        }
        assert.equal(up.seen.length, 4)

        assert.equal(cacheOf(await get(t, `${base}/long`)), 'MISS')
        assert.equal(cacheOf(await get(t, `${base}/short`)), 'MISS')
        assert.equal(cacheOf(await get(t, `${base}/short`)), 'HIT')
        clock += 1_000
        const short = await get(t, `${base}/short`)
        assert.deepEqual([short.status, cacheOf(short), parsed(short)], [200, 'MISS', { path: '/short' }])
        const long = await get(t, `${base}/long`)
        assert.deepEqual([long.status, cacheOf(long), long.headers.age, parsed(long)], [200, 'HIT', '1', { path: '/long' }])
        assert.equal(up.seen.length, 7)
      })

      it('with forward_client_auth, callers with different X-Provider-Authorization never share an entry, even at once; the same caller twice HITs', LIMIT, async () => {
        const up = await start((req, res) => { setTimeout(() => { json(200, { for: req.headers.authorization ?? null })(req, res) }, 100) })
        const poolId = await cachedPool(t, 'creds', [up.url], { forward_client_auth: true })
        const url = `/api/pools/${poolId}/proxy/account`
        const alice = { 'x-provider-authorization': 'Bearer alice-key' }
        const bob = { 'x-provider-authorization': 'Bearer bob-key' }
        const [a, b] = await Promise.all([get(t, url, alice), get(t, url, bob)])
        assert.deepEqual([a?.status, cacheOf(a as Got), parsed(a as Got)], [200, 'MISS', { for: 'Bearer alice-key' }])
        assert.deepEqual([b?.status, cacheOf(b as Got), parsed(b as Got)], [200, 'MISS', { for: 'Bearer bob-key' }])
        assert.equal(up.seen.length, 2)

        const a2 = await get(t, url, alice)
        assert.deepEqual([a2.status, cacheOf(a2), parsed(a2)], [200, 'HIT', { for: 'Bearer alice-key' }])
        const b2 = await get(t, url, bob)
        assert.deepEqual([b2.status, cacheOf(b2), parsed(b2)], [200, 'HIT', { for: 'Bearer bob-key' }])
        const nobody = await get(t, url)
        assert.deepEqual([nobody.status, cacheOf(nobody), parsed(nobody)], [200, 'MISS', { for: null }])
        assert.equal(up.seen.length, 3)
      })

      it("answers a HEAD from a stored GET (no upstream call, no body, the GET body's content-length, HIT); a HEAD first goes upstream as a GET", async () => {
        const body = 'x'.repeat(1234)
        const up = await start((req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain', etag: '"h1"' })
          res.end(req.method === 'HEAD' ? undefined : body)
        })
        const poolId = await cachedPool(t, 'head', [up.url])
        const base = `/api/pools/${poolId}/proxy`
        const stored = await get(t, `${base}/doc`)
        assert.deepEqual([stored.status, cacheOf(stored), stored.body.toString()], [200, 'MISS', body])
        const head = await send(t, 'HEAD', `${base}/doc`)
        assert.deepEqual([head.status, cacheOf(head), head.body.length], [200, 'HIT', 0])
        assert.equal(head.headers['content-length'], '1234')
        assert.equal(head.headers.etag, '"h1"')
        assert.equal(up.seen.length, 1)

        const cold = await send(t, 'HEAD', `${base}/cold`)
        assert.deepEqual([cold.status, cold.body.length, cold.headers['content-length']], [200, 0, '1234'])
        assert.equal(up.seen[1]?.method, 'GET')
        const afterwards = await get(t, `${base}/cold`)
        assert.deepEqual([afterwards.status, cacheOf(afterwards), afterwards.body.toString()], [200, 'HIT', body])
        assert.equal(up.seen.length, 2)
      })

      it("DELETE /api/pools/{id}/cache empties that pool's entries only (then MISS); 404 for an unknown pool", async () => {
        let n = 0
        const up = await start((req, res) => { json(200, { n: ++n })(req, res) })
        const a = await cachedPool(t, 'purge-a', [up.url])
        const b = await cachedPool(t, 'purge-b', [up.url])
        for (const url of [`/api/pools/${a}/proxy/x`, `/api/pools/${a}/proxy/y`, `/api/pools/${b}/proxy/x`]) assert.equal(cacheOf(await get(t, url)), 'MISS')

        const purged = await t.request({ method: 'DELETE', url: `/api/pools/${a}/cache` })
        assert.equal(purged.status, 200)
        assert.deepEqual(Object.keys(purged.body).sort(), ['message', 'pool_id', 'purged'])
        assert.deepEqual([purged.body.pool_id, purged.body.purged], [a, 2])
        assert.match(purged.body.message, /\b2\b/)

        const refetched = await get(t, `/api/pools/${a}/proxy/x`)
        assert.deepEqual([refetched.status, cacheOf(refetched), parsed(refetched)], [200, 'MISS', { n: 4 }])
        const untouched = await get(t, `/api/pools/${b}/proxy/x`)
        assert.deepEqual([untouched.status, cacheOf(untouched), parsed(untouched)], [200, 'HIT', { n: 3 }])
        assert.equal(up.seen.length, 4)
        assert.equal((await t.request({ method: 'DELETE', url: `/api/pools/${a}/cache` })).body.purged, 1)

        const unknown = await t.request({ method: 'DELETE', url: '/api/pools/999/cache' })
        assert.deepEqual([unknown.status, unknown.body], [404, { detail: 'Pool 999 not found' }])
      })

      it('a pool without a cache says nothing of one and goes upstream every time; a POST on a cached pool is BYPASS and stores nothing', async () => {
        const up = await start((req, res) => { json(200, { method: req.method })(req, res) })
        const plain = await cachedPool(t, 'plain', [up.url], { cache_ttl_seconds: 0 })
        for (let i = 0; i < 2; i++) {
          const res = await get(t, `/api/pools/${plain}/proxy/x`)
          assert.deepEqual([res.status, parsed(res)], [200, { method: 'GET' }])
          assert.equal(res.headers['x-sourcepool-cache'], undefined)
          assert.equal(res.headers.age, undefined)
        }
        assert.equal(up.seen.length, 2)

        const cached = await cachedPool(t, 'posted', [up.url])
        const posted = await send(t, 'POST', `/api/pools/${cached}/proxy/x`, { 'content-type': 'text/plain' })
        assert.deepEqual([posted.status, cacheOf(posted), parsed(posted)], [200, 'BYPASS', { method: 'POST' }])
        assert.deepEqual([up.seen[2]?.method, up.seen[2]?.body], ['POST', 'posted'])
        const afterwards = await get(t, `/api/pools/${cached}/proxy/x`)
        assert.deepEqual([afterwards.status, cacheOf(afterwards), parsed(afterwards)], [200, 'MISS', { method: 'GET' }])
        assert.equal(up.seen.length, 4)
      })

      it('counts hits, misses, stale answers and entries in the status record, and each result in /metrics', async () => {
        const up = await start(json(200, { ok: true }))
        const poolId = await cachedPool(t, 'counted', [up.url], { cache_ttl_seconds: 30, cache_stale_seconds: 60 })
        const base = `/api/pools/${poolId}/proxy`
        assert.equal(cacheOf(await get(t, `${base}/a`)), 'MISS')
        assert.equal(cacheOf(await get(t, `${base}/a`)), 'HIT')
        assert.equal(cacheOf(await get(t, `${base}/a`)), 'HIT')
        assert.equal(cacheOf(await get(t, `${base}/b`)), 'MISS')
        clock += 31_000
        assert.equal(cacheOf(await get(t, `${base}/b`)), 'STALE')
        await until(() => up.seen.length === 3)

        // Entries are recounted in the background after each store: flushed as last counted.
        let status: Awaited<ReturnType<TestApp['request']>> | undefined
        await until(async () => {
          await t.app.runtime.flush()
          status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
          return status.body.cache?.entries === 2
        })
        assert.equal(status?.status, 200)
        assert.deepEqual(status?.body.cache, { ttl_seconds: 30, stale_seconds: 60, hits: 2, misses: 2, stale: 1, entries: 2, hit_ratio: 0.6 })

        const metrics = (await t.app.inject({ method: 'GET', url: '/metrics' })).body
        assert.match(metrics, new RegExp(`^sourcepool_cache_requests_total\\{pool_id="${poolId}",result="HIT"\\} 2$`, 'm'))
        assert.match(metrics, new RegExp(`^sourcepool_cache_requests_total\\{pool_id="${poolId}",result="MISS"\\} 2$`, 'm'))
        assert.match(metrics, new RegExp(`^sourcepool_cache_requests_total\\{pool_id="${poolId}",result="STALE"\\} 1$`, 'm'))
      })

      it('streams an answer bigger than CACHE_MAX_ENTRY_BYTES through whole, to concurrent callers too, and stores none; one of exactly that size is stored', LIMIT, async () => {
        await t.close()
        await build({ CACHE_MAX_ENTRY_BYTES: '1000' })
        const big = randomBytes(256 * 1024)
        const exact = randomBytes(1000)
        const up = await start((req, res) => {
          setTimeout(() => {
            res.writeHead(200, { 'content-type': 'application/octet-stream' })
            res.end(req.url === '/big' ? big : exact)
          }, 100)
        })
        const poolId = await cachedPool(t, 'big', [up.url])
        const base = `/api/pools/${poolId}/proxy`
        const all = await Promise.all(Array.from({ length: 3 }, async () => await get(t, `${base}/big`)))
        for (const res of all) {
          assert.equal(res.status, 200)
          assert.equal(cacheOf(res), 'BYPASS')
          assert.ok(res.body.equals(big), `${res.body.length} bytes`)
        }
        assert.equal(up.seen.length, 3)
        const next = await get(t, `${base}/big`)
        assert.deepEqual([next.status, cacheOf(next), next.body.equals(big)], [200, 'BYPASS', true])
        assert.equal(up.seen.length, 4)

        assert.equal(cacheOf(await get(t, `${base}/exact`)), 'MISS')
        const kept = await get(t, `${base}/exact`)
        assert.deepEqual([kept.status, cacheOf(kept), kept.body.equals(exact)], [200, 'HIT', true])
        assert.equal(up.seen.length, 5)
      })

      it("a waiter whose Accept-Language differs from its leader's, on an answer saying Vary: Accept-Language, gets its own answer, not the leader's", LIMIT, async () => {
        const held = gate()
        const up = await start((req, res) => {
          held.opened.then(() => {
            res.writeHead(200, { 'content-type': 'text/plain', vary: 'Accept-Language' })
            res.end(`lang=${String(req.headers['accept-language'])}`)
          }, () => {})
        })
        const poolId = await cachedPool(t, 'vary-wait', [up.url])
        const url = `/api/pools/${poolId}/proxy/greeting`
        const en = get(t, url, { 'accept-language': 'en' })
        await until(() => up.seen.length === 1)
        const fr = get(t, url, { 'accept-language': 'fr' })
        // Not a timing assertion: gives the second request the time to find the first in flight and wait for it.
        await sleep(100)
        held.open()
        const [leader, waiter] = await Promise.all([en, fr])
        assert.deepEqual([leader.status, cacheOf(leader), leader.body.toString()], [200, 'MISS', 'lang=en'])
        assert.deepEqual([waiter.status, cacheOf(waiter), waiter.body.toString()], [200, 'BYPASS', 'lang=fr'])
        assert.equal(up.seen.length, 2)
        assert.equal(up.seen[1]?.headers['accept-language'], 'fr')
        // The leader's answer was stored for its own variant.
        const again = await get(t, url, { 'accept-language': 'en' })
        assert.deepEqual([again.status, cacheOf(again), again.body.toString()], [200, 'HIT', 'lang=en'])
        assert.equal(up.seen.length, 2)
      })

      it('an answer with Cache-Control: private and a Set-Cookie goes to its own caller only: concurrent waiters each get their own', LIMIT, async () => {
        const held = gate()
        let n = 0
        const up = await start((_req, res) => {
          const mine = ++n
          held.opened.then(() => {
            res.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'private', 'set-cookie': `csrf=${mine}; HttpOnly` })
            res.end(`token ${mine}`)
          }, () => {})
        })
        const poolId = await cachedPool(t, 'private-wait', [up.url])
        const url = `/api/pools/${poolId}/proxy/session`
        const all = Promise.all(Array.from({ length: 3 }, async () => await get(t, url)))
        await until(() => up.seen.length === 1)
        // Not a timing assertion: gives the other two the time to find the first in flight and wait for it.
        await sleep(100)
        held.open()
        const got = await all
        assert.equal(up.seen.length, 3)
        for (const res of got) {
          assert.equal(res.status, 200)
          assert.equal(cacheOf(res), 'BYPASS')
          const token = /^token (\d)$/.exec(res.body.toString())?.[1]
          assert.ok(token !== undefined, res.body.toString())
          assert.deepEqual(res.headers['set-cookie'], `csrf=${token}; HttpOnly`, 'its own cookie with its own body')
        }
        assert.deepEqual(got.map((res) => res.body.toString()).sort(), ['token 1', 'token 2', 'token 3'])
        // Nothing stored either.
        const later = await get(t, url)
        assert.deepEqual([later.status, cacheOf(later), later.body.toString()], [200, 'BYPASS', 'token 4'])
      })

      it('a Range request and an If-None-Match request pass through as BYPASS; a plain GET beside them never gets their 206 or 304', LIMIT, async () => {
        const full = 'abcdefghijklmnopqrstuvwxyz'
        let held = gate()
        const up = await start((req, res) => {
          held.opened.then(() => {
            const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '')
            if (range !== null) {
              res.writeHead(206, { 'content-type': 'text/plain', 'content-range': `bytes ${range[1]}-${range[2]}/26`, etag: '"v1"' })
              res.end(full.slice(Number(range[1]), Number(range[2]) + 1))
            } else if (req.headers['if-none-match'] === '"v1"') {
              res.writeHead(304, { etag: '"v1"' })
              res.end()
            } else {
              res.writeHead(200, { 'content-type': 'text/plain', etag: '"v1"' })
              res.end(full)
            }
          }, () => {})
        })
        const poolId = await cachedPool(t, 'partial', [up.url])
        for (const [path, own, status, body] of [
          ['/file', { range: 'bytes=0-2' }, 206, 'abc'],
          ['/doc', { 'if-none-match': '"v1"' }, 304, '']
        ] as const) {
          const url = `/api/pools/${poolId}/proxy${path}`
          const calls = up.seen.length
          held = gate()
          const special = get(t, url, own)
          await until(() => up.seen.length === calls + 1)
          const plain = get(t, url)
          // Not a timing assertion: gives the plain GET the time to meet the first in flight.
          await sleep(100)
          held.open()
          const [theirs, mine] = await Promise.all([special, plain])
          assert.deepEqual([theirs.status, cacheOf(theirs), theirs.body.toString()], [status, 'BYPASS', body], path)
          assert.deepEqual([mine.status, cacheOf(mine), mine.body.toString()], [200, 'MISS', full], path)
          assert.equal(up.seen.length, calls + 2, path)
          // With the full answer stored, the special request still goes upstream for its own answer.
          const again = await get(t, url, own)
          assert.deepEqual([again.status, cacheOf(again), again.body.toString()], [status, 'BYPASS', body], path)
          assert.equal(up.seen.at(-1)?.headers[Object.keys(own)[0] as string], Object.values(own)[0], path)
          const hit = await get(t, url)
          assert.deepEqual([hit.status, cacheOf(hit), hit.body.toString()], [200, 'HIT', full], path)
          assert.equal(up.seen.length, calls + 3, path)
        }
      })

      it('a custom X-Api-Key header splits entries, with forward_client_auth and without: one caller never gets the other\'s answer', async () => {
        const up = await start((req, res) => { json(200, { account: req.headers['x-api-key'] ?? null })(req, res) })
        for (const forward of [true, false]) {
          const poolId = await cachedPool(t, `api-key-${String(forward)}`, [up.url], { forward_client_auth: forward })
          const url = `/api/pools/${poolId}/proxy/me`
          const calls = up.seen.length
          const asked = async (headers: Record<string, string>) => {
            const res = await get(t, url, headers)
            return [res.status, cacheOf(res), parsed(res)]
          }
          assert.deepEqual(await asked({ 'x-api-key': 'alice-secret' }), [200, 'MISS', { account: 'alice-secret' }], String(forward))
          assert.deepEqual(await asked({ 'x-api-key': 'bob-secret' }), [200, 'MISS', { account: 'bob-secret' }], String(forward))
          assert.deepEqual(await asked({}), [200, 'MISS', { account: null }], String(forward))
          assert.deepEqual(await asked({ 'x-api-key': 'alice-secret' }), [200, 'HIT', { account: 'alice-secret' }], String(forward))
          assert.deepEqual(await asked({ 'x-api-key': 'bob-secret' }), [200, 'HIT', { account: 'bob-secret' }], String(forward))
          assert.equal(up.seen.length, calls + 3, String(forward))
        }
      })

      it('an event stream that keeps sending reaches its client through a cached pool as it comes (BYPASS), and is let go when the client leaves', LIMIT, async (context) => {
        let closed = 0
        const up = await start((req, res) => {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
          let n = 0
          res.write(`data: ${n++}\n\n`)
          const timer = setInterval(() => { res.write(`data: ${n++}\n\n`) }, 50)
          res.on('close', () => { clearInterval(timer); closed++ })
        })
        const poolId = await cachedPool(t, 'events', [up.url])
        await t.app.listen({ port: 0, host: '127.0.0.1' })
        const { port } = t.app.server.address() as AddressInfo
        // A stream that never reaches its client would hold the app open: timed out, the test lets both ends go.
        const clients: Array<{ destroy: () => void }> = []
        context.signal.addEventListener('abort', () => { for (const req of clients) req.destroy(); up.close().catch(() => {}) }, { once: true })
        /** Opens the stream and resolves with its status, headers and first bytes, while the stream goes on. */
        const open = async () => await new Promise<{ res: IncomingMessage, first: string, leave: () => void }>((resolve, reject) => {
          const req = httpRequest({ host: '127.0.0.1', port, path: `/api/pools/${poolId}/proxy/events`, headers: { accept: 'text/event-stream' } }, (res) => {
            res.once('data', (chunk: Buffer) => { resolve({ res, first: chunk.toString(), leave: () => { req.destroy() } }) })
            res.on('error', () => {})
          })
          req.on('error', reject)
          req.end()
          clients.push(req)
        })
        for (let i = 1; i <= 2; i++) {
          const stream = await open()
          assert.equal(stream.res.statusCode, 200)
          assert.equal(stream.res.headers['x-sourcepool-cache'], 'BYPASS')
          assert.equal(stream.res.headers['content-type'], 'text/event-stream')
          assert.match(stream.first, /^data: 0\n\n/)
          assert.equal(stream.res.complete, false, 'the stream has not ended')
          stream.leave()
          // The provider's stream is let go with the client.
          await until(() => closed === i)
          assert.equal(up.seen.length, i, 'nothing stored: each client its own stream')
        }
      })

      it('a body that breaks off after the headers is a failure: within the stale window a no-cache request gets STALE, not a 500', LIMIT, async () => {
        const whole = 'x'.repeat(100)
        let broken = false
        const up = await start((_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' })
          if (!broken) res.end(whole)
          else res.write('partial', () => { res.socket?.destroy() })
        })
        const poolId = await cachedPool(t, 'broken', [up.url], { cache_ttl_seconds: 10, cache_stale_seconds: 600 })
        const url = `/api/pools/${poolId}/proxy/data`
        const first = await get(t, url)
        assert.deepEqual([first.status, cacheOf(first), first.body.toString()], [200, 'MISS', whole])

        broken = true
        clock += 11_000
        const anew = await get(t, url, { 'cache-control': 'no-cache' })
        assert.deepEqual([anew.status, cacheOf(anew), anew.headers.age, anew.body.toString()], [200, 'STALE', '11', whole])
        assert.equal(up.seen.length, 2)
        // The broken answer replaced nothing: the entry still answers.
        const plain = await get(t, url)
        assert.deepEqual([plain.status, cacheOf(plain), plain.body.toString()], [200, 'STALE', whole])
        // Without an entry the broken body is a failure of the provider's: 502, not 500.
        const cold = await get(t, `/api/pools/${poolId}/proxy/cold`)
        assert.equal(cold.status, 502)
        assert.equal((parsed(cold) as { detail: string }).detail, `All providers failed for pool ${poolId}`)
      })

      it('an answer fetched before a purge is not stored after it: the next GET is a MISS, not a HIT of the old answer', LIMIT, async () => {
        const held = gate()
        let version = 1
        const up = await start((req, res) => {
          const mine = version
          held.opened.then(() => { json(200, { v: mine })(req, res) }, () => {})
        })
        const poolId = await cachedPool(t, 'purge-flight', [up.url])
        const url = `/api/pools/${poolId}/proxy/rates`
        const inFlight = get(t, url)
        await until(() => up.seen.length === 1)
        version = 2
        const purged = await t.request({ method: 'DELETE', url: `/api/pools/${poolId}/cache` })
        assert.deepEqual([purged.status, purged.body.purged], [200, 0])
        held.open()
        const before = await inFlight
        assert.deepEqual([before.status, cacheOf(before), parsed(before)], [200, 'BYPASS', { v: 1 }])
        const after = await get(t, url)
        assert.deepEqual([after.status, cacheOf(after), parsed(after)], [200, 'MISS', { v: 2 }])
        assert.equal(up.seen.length, 2)
        const hit = await get(t, url)
        assert.deepEqual([hit.status, cacheOf(hit), parsed(hit)], [200, 'HIT', { v: 2 }])
        assert.equal(up.seen.length, 2)
      })

      it("counts the provider's own Age: max-age 60 with Age 50 is a MISS saying age 50, a HIT 5 s later says 55, and it expires 10 s after it came", async () => {
        let n = 0
        const up = await start((req, res) => { json(200, { n: ++n }, { 'cache-control': 'max-age=60', age: '50' })(req, res) })
        const poolId = await cachedPool(t, 'aged', [up.url])
        const url = `/api/pools/${poolId}/proxy/aged`
        const miss = await get(t, url)
        assert.deepEqual([miss.status, cacheOf(miss), miss.headers.age, parsed(miss)], [200, 'MISS', '50', { n: 1 }])
        clock += 5_000
        const hit = await get(t, url)
        assert.deepEqual([hit.status, cacheOf(hit), hit.headers.age, parsed(hit)], [200, 'HIT', '55', { n: 1 }])
        assert.equal(hit.headers['cache-control'], 'max-age=60')
        assert.equal(up.seen.length, 1)
        clock += 5_000
        const expired = await get(t, url)
        assert.deepEqual([expired.status, cacheOf(expired), expired.headers.age, parsed(expired)], [200, 'MISS', '50', { n: 2 }])
        assert.equal(up.seen.length, 2)
      })
    })
  }

  describeOn(dialect, 'the proxy response cache in Redis, shared and unreachable', () => {
    const apps: TestApp[] = []
    const open = async (env: Record<string, string>): Promise<TestApp> => {
      const t = await buildTestApp(dialect, {}, env)
      apps.push(t)
      return t
    }
    afterEach(async () => { for (const t of apps.splice(0)) await t.close() })

    it('shares entries between two instances on one Redis: a MISS in one is a HIT in the other', { ...LIMIT, skip: redisSkip }, async () => {
      const env = { CACHE_URL: redisUrl as string, CACHE_KEY_PREFIX: freshPrefix() }
      const one = await open(env)
      const two = await open(env)
      await warm(one)
      await warm(two)
      const up = await start(json(200, { shared: true }, { etag: '"s1"' }))
      const idOne = await cachedPool(one, 'shared', [up.url])
      const idTwo = await cachedPool(two, 'shared', [up.url])
      assert.equal(idOne, idTwo)
      const first = await get(one, `/api/pools/${idOne}/proxy/x?y=1`)
      assert.deepEqual([first.status, cacheOf(first), parsed(first)], [200, 'MISS', { shared: true }])
      const second = await get(two, `/api/pools/${idTwo}/proxy/x?y=1`)
      assert.deepEqual([second.status, cacheOf(second), parsed(second)], [200, 'HIT', { shared: true }])
      assert.equal(second.headers.etag, '"s1"')
      assert.equal(second.headers['x-sourcepool-provider'], 'shared-0')
      assert.equal(up.seen.length, 1)
    })

    it('keeps its Redis keys under CACHE_KEY_PREFIX', { ...LIMIT, skip: redisSkip }, async () => {
      const prefix = freshPrefix()
      const t = await open({ CACHE_URL: redisUrl as string, CACHE_KEY_PREFIX: prefix })
      await warm(t)
      const redis = new Redis(redisUrl as string)
      try {
        assert.notEqual((await redis.keys(`${prefix}*`)).length, 0)
      } finally {
        await redis.quit()
      }
    })

    it('serves every request when Redis is unreachable, and /healthz answers 200 with a detail naming the cache', LIMIT, async () => {
      const t = await open({ CACHE_URL: 'redis://127.0.0.1:1' })
      const up = await start(json(200, { served: true }))
      const poolId = await cachedPool(t, 'no-redis', [up.url])
      for (let i = 0; i < 2; i++) {
        const res = await get(t, `/api/pools/${poolId}/proxy/x`)
        assert.deepEqual([res.status, parsed(res)], [200, { served: true }])
        assert.ok(cacheOf(res) === 'MISS' || cacheOf(res) === 'BYPASS', String(cacheOf(res)))
      }
      assert.equal(up.seen.length, 2)
      await until(async () => (await t.request({ method: 'GET', url: '/healthz' })).body?.detail !== undefined)
      const health = await t.request({ method: 'GET', url: '/healthz' })
      assert.equal(health.status, 200)
      assert.equal(health.body.status, 'ok')
      assert.match(health.body.detail, /cache/i)
      assert.match(health.body.detail, /Redis at redis:\/\/127\.0\.0\.1:1/)
    })
  })
}
