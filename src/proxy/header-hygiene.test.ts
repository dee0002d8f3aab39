/**
 * Which headers belong to whom on a proxied request and its answer (issue 34, a
 * hostile user's way, items 1, 3 and 4), end to end through the HTTP API on SQLite
 * and PostgreSQL, with the cache in memory and in a real Redis: a provider's
 * `Access-Control-*` never reaches a browser (fresh, HIT, STALE, coalesced, HEAD
 * from a stored GET, nor from an entry an older version stored), whatever
 * CORS_ORIGINS says; a provider's `x-sourcepool-*` never passes for the service's;
 * and the forwarded-host headers a client sends never reach the provider, so the
 * answer built for one client's `X-Forwarded-Host` is never served to the next.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { afterEach, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createCacheStore } from '../cache/create-store.js'
import { EXPOSED_HEADERS } from '../http/cors.js'
import { cacheKey } from '../rules/cache-policy.js'
import { CLIENT_FORWARDING_HEADERS } from '../rules/forwarded-headers.js'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp, type TestDialect } from '../../test/helpers.js'
import { redisRunPrefix, redisSkip, redisUrl } from '../../test/redis.js'
import { json, upstream, type Upstream } from '../../test/upstreams.js'

const runPrefix = redisRunPrefix('header-hygiene')

/** Tests that wait on something they hold fail rather than hang. */
const LIMIT = { timeout: 30_000 }

/** Where the cache keeps its entries in a suite (the Redis one under a prefix of its own per app). */
const storeKinds = [
  { name: 'memory', env: (): Record<string, string> => ({}) },
  { name: 'redis', skip: redisSkip, env: (): Record<string, string> => ({ CACHE_URL: redisUrl as string, CACHE_KEY_PREFIX: `${runPrefix}${randomBytes(4).toString('hex')}:` }) }
] as const

/** `describeOn` for a store too: a skipped test in place of a suite whose store is not configured. */
function describeFor (dialect: TestDialect, kind: typeof storeKinds[number], title: string, fn: () => void): void {
  if ('skip' in kind && kind.skip !== undefined && dialect.skip === undefined) it(`[${dialect.name}] [${kind.name}] ${title}`, { skip: kind.skip }, () => {})
  else describeOn(dialect, `[${kind.name}] ${title}`, fn)
}

/** What a provider sends that only the service may: CORS for any page, credentials mode, and forged x-sourcepool-* headers. */
const FORGED = {
  'access-control-allow-origin': '*',
  'access-control-allow-credentials': 'true',
  'access-control-expose-headers': 'x-account-balance, x-sourcepool-provider',
  'access-control-allow-methods': 'GET, DELETE',
  'access-control-max-age': '86400',
  'x-sourcepool-retry-budget': 'exhausted',
  'x-sourcepool-provider': 'forged',
  'x-sourcepool-attempts': '99',
  'x-sourcepool-debug': 'on'
}

/** The names of `headers` that start with `prefix`. */
const named = (headers: Record<string, unknown>, prefix: string): string[] => Object.keys(headers).filter((name) => name.startsWith(prefix)).sort()

/** The forwarded-host headers a hostile client sends, each with a value naming its site. */
const HOSTILE: Record<string, string> = {
  ...Object.fromEntries([...CLIENT_FORWARDING_HEADERS].map((name) => [name, 'evil.example'])),
  forwarded: 'for=1.2.3.4;host=evil.example;proto=https',
  'x-forwarded-proto': 'https',
  'x-forwarded-port': '8443',
  'x-original-url': '/admin',
  'x-http-method-override': 'DELETE',
  'x-sourcepool-anything': 'evil.example'
}

for (const dialect of dialects) {
  for (const kind of storeKinds) {
    describeFor(dialect, kind, 'answer headers that are the service\'s alone, and request headers the provider never sees', () => {
      let t: TestApp
      let clock = Date.now()
      const upstreams: Upstream[] = []
      const start = async (behave: (req: IncomingMessage, res: ServerResponse) => void): Promise<Upstream> => {
        const u = await upstream(behave)
        upstreams.push(u)
        return u
      }
      const build = async (env: Record<string, string>): Promise<void> => {
        clock = Date.now()
        t = await buildTestApp(dialect, { now: () => new Date(clock) }, env)
      }
      /** A pool over one provider holding the operator's key, its cache on (TTL 10 s, stale 60 s) unless `policy` says otherwise. */
      const pool = async (name: string, baseUrl: string, policy: Record<string, unknown> = {}): Promise<number> => {
        const poolId = await createPool(t, name, { cache_ttl_seconds: 10, cache_stale_seconds: 60, ...policy })
        await addMember(t, poolId, await createProvider(t, `${name}-p`, { base_url: baseUrl, auth_headers: { 'x-api-key': 'operator-key' } }))
        return poolId
      }
      const send = async (method: 'GET' | 'HEAD', url: string, headers: Record<string, string> = {}) => await t.app.inject({ method, url, headers })
      /** Until the cache serves what it stored (a Redis store misses until its connection is up). */
      const warm = async (url: string, headers: Record<string, string> = {}): Promise<void> => {
        while ((await send('GET', url, headers)).headers['x-sourcepool-cache'] !== 'HIT') await sleep(10)
      }

      afterEach(async () => {
        await t.close()
        for (const u of upstreams.splice(0)) await u.close()
      })

      it('drops a provider\'s Access-Control-* from every answer, fresh, coalesced, HIT, HEAD, STALE and uncached; with CORS_ORIGINS only the service\'s own appear', LIMIT, async () => {
        await build(kind.env())
        let holding = true
        const held: Array<() => void> = []
        const up = await start((req, res) => {
          const answer = (): void => { json(200, { balance: 1200 }, FORGED)(req, res) }
          if (holding) held.push(answer)
          else answer()
        })
        const poolId = await pool('cors', up.url)
        const url = `/api/pools/${poolId}/proxy/account`
        const page = { origin: 'https://evil.example' }
        // Five pages at once: one goes upstream, four wait for its answer.
        const first = Array.from({ length: 5 }, async () => await send('GET', url, page))
        while (held.length === 0) await sleep(5)
        // Not a timing assertion: gives the other four the time to find the first in flight and wait for it.
        await sleep(50)
        holding = false
        for (const answer of held.splice(0)) answer()
        const answers = await Promise.all(first)
        assert.equal(up.seen.length, 1)
        assert.equal(up.seen[0]?.headers['x-api-key'], 'operator-key', 'the answer was paid for with the operator\'s key')
        assert.deepEqual(answers.map((a) => a.headers['x-sourcepool-cache']).sort(), ['HIT', 'HIT', 'HIT', 'HIT', 'MISS'])
        if (kind.name === 'redis') await warm(url, page)
        const hit = await send('GET', url, page)
        const head = await send('HEAD', url, page)
        clock += 11_000
        const stale = await send('GET', url, page)
        const uncached = await send('GET', `/api/pools/${await pool('cors-uncached', up.url, { cache_ttl_seconds: 0 })}/proxy/account`, page)
        const served = [...answers, hit, head, stale, uncached]
        assert.deepEqual(served.slice(5).map((a) => [a.statusCode, a.headers['x-sourcepool-cache']]), [[200, 'HIT'], [200, 'HIT'], [200, 'STALE'], [200, undefined]])
        for (const answer of served) {
          assert.deepEqual(named(answer.headers, 'access-control-'), [], JSON.stringify(answer.headers))
          assert.equal(answer.headers['x-sourcepool-provider'], answer === uncached ? 'cors-uncached-p' : 'cors-p')
        }
        assert.deepEqual(served[0]?.json(), { balance: 1200 }, 'the answer itself comes through')

        // With CORS_ORIGINS: a listed origin reads the answer through the service's CORS headers alone; any other is not let in.
        const dash = 'https://dash.example'
        await t.close()
        await build({ ...kind.env(), CORS_ORIGINS: dash })
        const setUrl = `/api/pools/${await pool('cors-set', up.url)}/proxy/account`
        const fresh = await send('GET', setUrl, { origin: dash })
        if (kind.name === 'redis') await warm(setUrl, { origin: dash })
        const stored = await send('GET', setUrl, { origin: dash })
        assert.deepEqual([fresh.headers['x-sourcepool-cache'], stored.headers['x-sourcepool-cache']], ['MISS', 'HIT'])
        for (const answer of [fresh, stored]) {
          assert.equal(answer.headers['access-control-allow-origin'], dash)
          assert.deepEqual(named(answer.headers, 'access-control-'), ['access-control-allow-origin', 'access-control-expose-headers'])
          assert.deepEqual(String(answer.headers['access-control-expose-headers']).split(/,\s*/), EXPOSED_HEADERS)
        }
        const other = await send('GET', setUrl, { origin: 'https://evil.example' })
        assert.equal(other.statusCode, 200)
        assert.equal(other.headers['access-control-allow-origin'], undefined, 'another origin is not let in: its page cannot read the answer')
        assert.deepEqual(named(other.headers, 'access-control-'), ['access-control-expose-headers'], 'only ours (which lets no page in by itself)')
        assert.deepEqual(String(other.headers['access-control-expose-headers']).split(/,\s*/), EXPOSED_HEADERS)
      })

      it('never passes a provider\'s x-sourcepool-* for the service\'s: fresh and from the cache', LIMIT, async () => {
        await build(kind.env())
        const up = await start(json(200, { ok: true }, FORGED))
        const poolId = await pool('forged', up.url)
        const url = `/api/pools/${poolId}/proxy/x`
        const fresh = await send('GET', url)
        if (kind.name === 'redis') await warm(url)
        const hit = await send('GET', url)
        const uncached = await send('GET', `/api/pools/${await pool('forged-uncached', up.url, { cache_ttl_seconds: 0 })}/proxy/x`)
        for (const [answer, cache, provider, attempts] of [[fresh, 'MISS', 'forged-p', '1'], [hit, 'HIT', 'forged-p', '0'], [uncached, undefined, 'forged-uncached-p', '1']] as const) {
          assert.equal(answer.statusCode, 200)
          const own = cache === undefined ? ['x-sourcepool-attempts', 'x-sourcepool-provider'] : ['x-sourcepool-attempts', 'x-sourcepool-cache', 'x-sourcepool-provider']
          assert.deepEqual(named(answer.headers, 'x-sourcepool-'), own, JSON.stringify(answer.headers))
          assert.deepEqual([answer.headers['x-sourcepool-cache'], answer.headers['x-sourcepool-provider'], answer.headers['x-sourcepool-attempts']], [cache, provider, attempts])
        }
      })

      it('the provider never sees a client\'s forwarded-host headers, so the answer built for them is never served to the next client', LIMIT, async () => {
        await build(kind.env())
        let calls = 0
        // A provider that builds its links from the forwarded headers it is sent, as many frameworks do.
        const up = await start((req, res) => {
          const saw = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name in HOSTILE || name === 'x-forwarded-for'))
          json(200, { calls: ++calls, saw, next: `${String(req.headers['x-forwarded-proto'] ?? 'http')}://${String(req.headers['x-forwarded-host'] ?? 'api.example')}/page/2` })(req, res)
        })
        const poolId = await pool('poison', up.url)
        const url = `/api/pools/${poolId}/proxy/items`
        const hostile = await send('GET', url, HOSTILE)
        const clean = { calls: 1, saw: { 'x-forwarded-proto': 'http', 'x-forwarded-for': '127.0.0.1' }, next: 'http://api.example/page/2' }
        assert.deepEqual([hostile.statusCode, hostile.headers['x-sourcepool-cache'], hostile.json()], [200, 'MISS', clean])
        // With Redis, warming up may go upstream again (a command past its 250 ms under load is a miss):
        // every answer the provider built is then as clean, and none is built after the entry serves.
        if (kind.name === 'redis') await warm(url)
        const fetched = up.seen.length
        const asClean = (body: { calls: number }) => kind.name === 'redis' ? { ...body, calls: 1 } : body
        for (const seen of up.seen.map((one) => one.headers)) {
          for (const name of Object.keys(HOSTILE)) if (name !== 'x-forwarded-proto') assert.equal(seen[name], undefined, name)
          assert.equal(seen['x-forwarded-proto'], 'http', 'ours, not the client\'s')
        }
        const next = await send('GET', url)
        assert.deepEqual([next.statusCode, next.headers['x-sourcepool-cache'], asClean(next.json())], [200, 'HIT', clean])
        // Another client's other values share the entry too: none of them is in the key.
        const other = await send('GET', url, { ...HOSTILE, 'x-forwarded-host': 'other.example', 'x-original-url': '/other' })
        assert.deepEqual([other.headers['x-sourcepool-cache'], asClean(other.json())], ['HIT', clean])
        assert.equal(up.seen.length, fetched)
        if (kind.name === 'memory') assert.equal(fetched, 1)
      })

      it('strips the service\'s own headers on the way out of an entry an older version stored with them', { ...LIMIT, skip: kind.name === 'memory' ? 'only a shared Redis holds entries another version wrote' : false }, async () => {
        const env = kind.env()
        await build(env)
        const up = await start(json(200, { fresh: true }))
        const poolId = await pool('old', up.url)
        await warm(`/api/pools/${poolId}/proxy/warm`)
        const store = createCacheStore({ url: env.CACHE_URL, keyPrefix: env.CACHE_KEY_PREFIX, maxBytes: 1 << 20 })
        try {
          const at = Date.now()
          const headers = { 'content-type': 'application/json', ...FORGED }
          const entry = { status: 200, headers, body: Buffer.from('{"planted":true}'), provider: 'old-p', storedAt: at, freshUntil: at + 3_600_000, staleUntil: at + 3_600_000, vary: null }
          const key = cacheKey('/planted', {}, false)
          while (await store.get(poolId, key) === undefined) {
            await store.set(poolId, key, entry)
            await sleep(10)
          }
        } finally {
          await store.close()
        }
        const hit = await send('GET', `/api/pools/${poolId}/proxy/planted`)
        assert.deepEqual([hit.statusCode, hit.headers['x-sourcepool-cache'], hit.json()], [200, 'HIT', { planted: true }])
        assert.deepEqual(named(hit.headers, 'access-control-'), [])
        assert.deepEqual(named(hit.headers, 'x-sourcepool-'), ['x-sourcepool-attempts', 'x-sourcepool-cache', 'x-sourcepool-provider'])
        assert.equal(hit.headers['x-sourcepool-provider'], 'old-p')
      })
    })
  }
}
