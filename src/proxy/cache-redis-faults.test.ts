/**
 * The proxy's response cache over a Redis that misbehaves, as a client sees it over
 * real HTTP on one keep-alive connection (SQLite and PostgreSQL, a real Redis:
 * TEST_REDIS_URL). An entry damaged in Redis (cut short, a header that would break
 * the connection's framing, a status no answer has, a field of the wrong type) is a
 * MISS that fetches the answer anew, is logged once without its content, and leaves
 * Redis; the connection goes on serving. A Redis whose answers come 400 ms late, at
 * the start or once while serving, is not reported unreachable (in the log or in
 * /healthz), although a command waits at most 250 ms while serving.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { Agent, request, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, afterEach, beforeEach, it } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import type { CachedAnswer } from '../cache/cache-store.js'
import { encodeAnswer } from '../cache/stored-answer.js'
import { poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp, type TestDialect } from '../../test/helpers.js'
import { redisRunPrefix, redisSkip, redisUrl, startRedisRelay, type RedisRelay } from '../../test/redis.js'
import { upstream, type Upstream } from '../../test/upstreams.js'

const runPrefix = redisRunPrefix('cache-faults')
const LIMIT = { timeout: 30_000 }
/** Hooks that hang fail too. */
const HOOK = { timeout: 20_000 }

/** `describeOn`, or one skipped test in its place without a Redis. */
function describeWithRedis (dialect: TestDialect, title: string, fn: () => void): void {
  if (redisSkip !== undefined && dialect.skip === undefined) it(`[${dialect.name}] ${title}`, { skip: redisSkip }, () => {})
  else describeOn(dialect, title, fn)
}

/** What one request got back. */
interface Got { status: number, headers: IncomingHttpHeaders, body: string, reusedSocket: boolean }

/** A client on one keep-alive connection (while it stays open): each request must answer within 3 s. */
function keepAliveClient (base: () => string): { get: (path: string) => Promise<Got>, close: () => void } {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const get = async (path: string): Promise<Got> => await new Promise((resolve, reject) => {
    const req = request(`${base()}${path}`, { agent, timeout: 3000 }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('error', reject)
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString(), reusedSocket: req.reusedSocket }) })
    })
    req.on('timeout', () => { req.destroy(new Error(`no whole answer to GET ${path} within 3 s`)) })
    req.on('error', reject)
    req.end()
  })
  return { get, close: () => { agent.destroy() } }
}

/** Resolves once `check` holds (the test's own timeout bounds the wait). */
async function until (check: () => boolean | Promise<boolean>): Promise<void> {
  while (!await check()) await sleep(10)
}

/** Upstreams open, closed after each test. */
const opened: Upstream[] = []
afterEach(async () => { for (const up of opened.splice(0)) await up.close() })

/** An upstream answering each GET with the next version of a JSON body of 261 bytes. */
async function versioned (): Promise<Upstream & { body: (version: number) => string }> {
  const body = (version: number): string => JSON.stringify({ version, text: 'x'.repeat(261 - 22 - String(version).length) })
  assert.equal(body(1).length, 261)
  let version = 0
  const up = await upstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(body(++version))
  })
  opened.push(up)
  return { ...up, body }
}

/** A whole entry of `body`, fresh for a minute, as the test writes it. */
function entry (body: string, over: Record<string, unknown> = {}): CachedAnswer {
  const at = Date.now()
  return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(body), provider: 'faults-0', storedAt: at, freshUntil: at + 60_000, staleUntil: at + 60_000, vary: null, ...over } as CachedAnswer
}

/** The damages an entry in Redis may come back with: what to write in place of the stored `value` of `body`. */
const damages: Array<{ title: string, damage: (value: Buffer, body: string) => Buffer }> = [
  { title: 'cut inside its body (28 of 261 bytes left)', damage: (value, body) => value.subarray(0, value.length - Buffer.byteLength(body) + 28) },
  { title: 'a header name holding CR/LF', damage: (_value, body) => encodeAnswer(entry(body, { headers: { 'content-type': 'application/json', 'x-note\r\nx-injected': 'yes' } })) },
  { title: 'a header value holding CR/LF', damage: (_value, body) => encodeAnswer(entry(body, { headers: { 'x-note': 'one\r\nx-injected: yes' } })) },
  { title: 'a header value holding NUL', damage: (_value, body) => encodeAnswer(entry(body, { headers: { 'x-note': 'one\u0000two' } })) },
  { title: 'a status of 99999', damage: (_value, body) => encodeAnswer(entry(body, { status: 99999 })) },
  { title: 'a status of 101', damage: (_value, body) => encodeAnswer(entry(body, { status: 101 })) },
  { title: 'a status that is a string', damage: (_value, body) => encodeAnswer(entry(body, { status: '200' })) },
  { title: 'a header value that is a number', damage: (_value, body) => encodeAnswer(entry(body, { headers: { 'x-count': 5 } })) },
  { title: 'a Transfer-Encoding header (never stored)', damage: (_value, body) => encodeAnswer(entry(body, { headers: { 'transfer-encoding': 'chunked' } })) },
  { title: 'a Content-Length saying another length', damage: (_value, body) => encodeAnswer(entry(body, { headers: { 'content-length': '9999' } })) },
  { title: 'a time that is not a number', damage: (_value, body) => encodeAnswer(entry(body, { freshUntil: 'later' })) },
  { title: 'a value that is not an entry at all', damage: () => Buffer.from('not an entry') }
]

for (const dialect of dialects) {
  describeWithRedis(dialect, 'the proxy cache: an entry damaged in Redis', () => {
    let t: TestApp
    let base = ''
    let lines: Array<Record<string, any>> = []
    let client: ReturnType<typeof keepAliveClient>
    const redis = redisUrl === undefined ? undefined : new Redis(redisUrl)
    after(async () => { await redis?.quit() })
    /** A prefix of each test's own: each test's fresh database numbers its pools from 1 again. */
    let prefix = ''
    beforeEach(async () => {
      lines = []
      prefix = `${runPrefix}${randomBytes(4).toString('hex')}:`
      t = await buildTestApp(dialect, { logger: { level: 'warn', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } }, { CACHE_URL: redisUrl as string, CACHE_KEY_PREFIX: prefix })
      await t.app.listen({ host: '127.0.0.1', port: 0 })
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
      client = keepAliveClient(() => base)
    }, HOOK)
    afterEach(async () => {
      client.close()
      await t.close()
    }, HOOK)

    /** A cached pool over a versioned upstream whose first answer is stored in Redis: the pool, its path, the entry's key. */
    async function stored (name: string): Promise<{ up: Awaited<ReturnType<typeof versioned>>, poolId: number, path: string, key: string }> {
      const up = await versioned()
      const { poolId } = await poolOfUrls(t, name, [up.url], { cache_ttl_seconds: 60 })
      const path = `/api/pools/${poolId}/proxy/report?year=2024`
      // Until the store's first connection is made, lookups miss and nothing is stored.
      await until(async () => (await client.get(path)).headers['x-sourcepool-cache'] === 'HIT')
      const keys = await (redis as Redis).keys(`${prefix}${poolId}:*`)
      assert.equal(keys.length, 1)
      return { up, poolId, path, key: keys[0] as string }
    }

    it('serves an entry written whole as a HIT (what the damaged ones are held against)', LIMIT, async () => {
      const { up, path, key } = await stored('whole')
      await (redis as Redis).set(key, encodeAnswer(entry('{"written":"by the test"}')), 'KEEPTTL')
      const got = await client.get(path)
      assert.deepEqual([got.status, got.headers['x-sourcepool-cache'], got.body], [200, 'HIT', '{"written":"by the test"}'])
      assert.equal(lines.length, 0, JSON.stringify(lines))
      assert.equal(up.seen.length > 0, true)
    })

    for (const { title, damage } of damages) {
      it(`an entry with ${title} is a MISS with the fresh answer, logged once without its content, and gone from Redis; the connection serves on`, LIMIT, async () => {
        const { up, poolId, path, key } = await stored(`damaged-${damages.findIndex((d) => d.title === title)}`)
        const value = await (redis as Redis).getBuffer(key) as Buffer
        const damaged = damage(value, up.body(up.seen.length))
        await (redis as Redis).set(key, damaged, 'KEEPTTL')
        lines.length = 0

        const fresh = up.body(up.seen.length + 1)
        const got = await client.get(path)
        assert.deepEqual([got.status, got.headers['x-sourcepool-cache'], got.body], [200, 'MISS', fresh])
        assert.equal(got.headers['content-length'], '261')
        assert.equal(got.reusedSocket, true, 'asked on the kept connection')
        // The damaged value is gone: the fresh answer took its place, and is served from it.
        assert.equal(damaged.equals(await (redis as Redis).getBuffer(key) ?? Buffer.alloc(0)), false)
        const next = await client.get(path)
        assert.deepEqual([next.status, next.headers['x-sourcepool-cache'], next.body, next.reusedSocket], [200, 'HIT', fresh, true])

        const logged = lines.filter((line) => /damaged/.test(String(line.msg)))
        assert.equal(logged.length, 1, JSON.stringify(lines))
        assert.equal(logged[0]?.level, 40)
        const message = String(logged[0]?.msg)
        assert.match(message, new RegExp(`pool ${poolId}\\b`))
        assert.ok(message.includes(key.slice(key.lastIndexOf(':') + 1)), `the key hash in: ${message}`)
        for (const content of ['x-note', 'x-injected', 'version', 'xxxx', 'chunked', '9999', 'later', 'not an entry']) assert.ok(!message.includes(content), `no content (${content}) in: ${message}`)
      })
    }
  })

  describeWithRedis(dialect, 'the proxy cache: a Redis that answers late', () => {
    let t: TestApp | undefined
    let relay: RedisRelay | undefined
    let lines: Array<Record<string, any>> = []
    afterEach(async () => {
      await t?.close()
      await relay?.close()
    }, HOOK)
    const open = async (held: boolean): Promise<TestApp> => {
      lines = []
      relay = await startRedisRelay(held)
      const prefix = `${runPrefix}${randomBytes(4).toString('hex')}:`
      t = await buildTestApp(dialect, { logger: { level: 'warn', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } }, { CACHE_URL: relay.url, CACHE_KEY_PREFIX: prefix })
      return t
    }
    const get = async (app: TestApp, url: string) => await app.app.inject({ method: 'GET', url })
    const unreachable = () => lines.filter((line) => /unreachable/.test(String(line.msg)))

    it('does not report a Redis that answers 400 ms late at the start unreachable, and /healthz shows the cache healthy once it answers', LIMIT, async () => {
      const app = await open(true)
      const released = sleep(400).then(() => { relay?.release() })
      const up = await versioned()
      const { poolId } = await poolOfUrls(app, 'late-start', [up.url], { cache_ttl_seconds: 60 })
      // Served meanwhile, without the cache.
      assert.equal((await get(app, `/api/pools/${poolId}/proxy/a`)).statusCode, 200)
      await released
      await until(async () => (await get(app, `/api/pools/${poolId}/proxy/a`)).headers['x-sourcepool-cache'] === 'HIT')
      const health = await app.request({ method: 'GET', url: '/healthz' })
      assert.deepEqual([health.status, health.body], [200, { status: 'ok' }])
      assert.deepEqual(unreachable(), [])
    })

    it('takes one answer 400 ms late while serving as a MISS, not an outage: nothing logged, /healthz without a detail', LIMIT, async () => {
      const app = await open(false)
      const up = await versioned()
      const { poolId } = await poolOfUrls(app, 'late-once', [up.url], { cache_ttl_seconds: 60 })
      await until(async () => (await get(app, `/api/pools/${poolId}/proxy/a`)).headers['x-sourcepool-cache'] === 'HIT')
      relay?.hold()
      const released = sleep(400).then(() => { relay?.release() })
      const slow = await get(app, `/api/pools/${poolId}/proxy/a`)
      assert.deepEqual([slow.statusCode, slow.headers['x-sourcepool-cache']], [200, 'MISS'])
      assert.deepEqual((await app.request({ method: 'GET', url: '/healthz' })).body, { status: 'ok' })
      await released
      await until(async () => (await get(app, `/api/pools/${poolId}/proxy/a`)).headers['x-sourcepool-cache'] === 'HIT')
      assert.deepEqual((await app.request({ method: 'GET', url: '/healthz' })).body, { status: 'ok' })
      assert.deepEqual(unreachable(), [])
    })
  })
}
