/**
 * Every answer carries our `x-request-id` (issue 26), whichever layer writes it:
 * routes, the 404 of an unknown route, authentication and its limits, body and
 * header limits, timeouts, Node's own refusals, errors, shutdown, and the proxy.
 * The id is the client's when it sent a sane one (1–128 of `[A-Za-z0-9_.:-]`), a
 * fresh UUID otherwise; on a proxied answer it is ours, the provider's own kept as
 * `x-upstream-request-id` and written in the attempt's log line.
 */
import assert from 'node:assert/strict'
import { connect, type AddressInfo } from 'node:net'
import { after, afterEach, before, beforeEach, describe, it } from 'node:test'
import type { InjectOptions } from 'fastify'
import { addMember, createPool, createProvider } from './fixtures.js'
import { buildTestApp, describeOn, dialects, sqlite, type TestApp } from './helpers.js'
import { json, upstream, type Upstream } from './upstreams.js'

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** A sane id, kept and echoed. */
const SANE = 'trace-7.a_b:C'

/** How a request may name itself: a sane id (echoed), none, or ids too long or with spaces (replaced by a UUID). */
const VARIANTS: Array<{ name: string, sent: string | undefined }> = [
  { name: 'a sane client id', sent: SANE },
  { name: 'no client id', sent: undefined },
  { name: 'a 300-character id', sent: 'x'.repeat(300) },
  { name: 'an id with spaces', sent: 'two words' }
]

const withId = (sent: string | undefined): Record<string, string> => sent === undefined ? {} : { 'x-request-id': sent }

/** Asserts the answer's id: the one sent when it was sane, else a fresh UUID. */
function assertAnswerId (got: unknown, sent: string | undefined, what: string): void {
  if (sent === SANE) assert.equal(got, SANE, what)
  else assert.match(String(got), UUID, `${what}: ${String(got)}`)
}

/** A log line, parsed. */
type LogLine = Record<string, any>

/** App dependencies that capture its log lines (info and above) into `lines`. */
const capturing = (lines: LogLine[]) => ({ logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })

const TOKENS = { admin: 'admin-secret-0123456789', read: 'read-secret-0123456789', limited: 'limited-secret-0123456789' }
const AUTH_TOKENS = `ops:admin:${TOKENS.admin},grafana:read:${TOKENS.read}`
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })

for (const dialect of dialects) {
  describeOn(dialect, 'x-request-id on every answer of the API', () => {
    let t: TestApp
    let emptyPool: number
    before(async () => {
      t = await buildTestApp(dialect, {}, { AUTH_TOKENS, AUTH_FAILURE_LIMIT: '5' })
      const created = await t.request({ method: 'POST', url: '/api/pools', headers: bearer(TOKENS.admin), payload: { name: 'empty', category: 'c' } })
      emptyPool = created.body.pool_id
    })
    after(async () => { await t.close() })

    /** Each kind of answer: its status and the request that gets it (from an address of its own, for the failure limit). */
    const kinds: Array<[string, number, () => InjectOptions]> = [
      ['a route', 200, () => ({ method: 'GET', url: '/api/pools', headers: bearer(TOKENS.admin) })],
      ['the open health check', 200, () => ({ method: 'GET', url: '/healthz' })],
      ['an unknown route', 404, () => ({ method: 'GET', url: '/no-such-route', headers: bearer(TOKENS.admin) })],
      ['an unknown route with a body', 404, () => ({ method: 'POST', url: '/no-such-route', headers: { 'content-type': 'application/json' }, payload: '{"a":1}' })],
      ['an unknown record', 404, () => ({ method: 'GET', url: '/api/pools/999999', headers: bearer(TOKENS.admin) })],
      ['a path that is not percent-encoding', 400, () => ({ method: 'GET', url: '/api/pools/%zz', headers: bearer(TOKENS.admin) })],
      ['no token', 401, () => ({ method: 'GET', url: '/api/pools' })],
      ['a token without the scope', 403, () => ({ method: 'POST', url: '/api/pools', headers: bearer(TOKENS.read), payload: { name: 'n', category: 'c' } })],
      ['a body too large', 413, () => ({ method: 'POST', url: '/api/pools', headers: { ...bearer(TOKENS.admin), 'content-type': 'application/json' }, payload: `"${'x'.repeat(1024 * 1024 + 10)}"` })],
      ['a body not JSON', 415, () => ({ method: 'POST', url: '/api/pools', headers: { ...bearer(TOKENS.admin), 'content-type': 'text/plain' }, payload: 'name=x' })],
      ['malformed JSON', 422, () => ({ method: 'POST', url: '/api/pools', headers: { ...bearer(TOKENS.admin), 'content-type': 'application/json' }, payload: '{bad' })],
      ['a body that fails validation', 422, () => ({ method: 'POST', url: '/api/pools', headers: bearer(TOKENS.admin), payload: {} })],
      ['a proxy with no provider', 503, () => ({ method: 'GET', url: `/api/pools/${emptyPool}/proxy/x`, headers: bearer(TOKENS.admin) })]
    ]
    for (const [i, [kind, status, request]] of kinds.entries()) {
      it(`${status} for ${kind}`, async () => {
        for (const { name, sent } of VARIANTS) {
          const options = request()
          const res = await t.app.inject({ ...options, remoteAddress: `10.0.${i}.1`, headers: { ...(options.headers as Record<string, string>), ...withId(sent) } })
          assert.equal(res.statusCode, status, `${name}: ${res.body.slice(0, 200)}`)
          assertAnswerId(res.headers['x-request-id'], sent, name)
        }
      })
    }

    it('429 from the failed-authentication limit', async () => {
      for (let n = 0; n < 5; n++) assert.equal((await t.app.inject({ method: 'GET', url: '/api/pools', remoteAddress: '10.1.0.1' })).statusCode, 401)
      for (const { name, sent } of VARIANTS) {
        const res = await t.app.inject({ method: 'GET', url: '/api/pools', remoteAddress: '10.1.0.1', headers: { ...bearer(TOKENS.admin), ...withId(sent) } })
        assert.equal(res.statusCode, 429, name)
        assertAnswerId(res.headers['x-request-id'], sent, name)
      }
    })

    it('500 for an unexpected failure and 503 from the health check, with the id in the 500 sentence', async () => {
      const broken = await buildTestApp(dialect)
      await broken.database.close()
      try {
        for (const { name, sent } of VARIANTS) {
          const failed = await broken.request({ method: 'GET', url: '/api/pools', headers: withId(sent) })
          assert.equal(failed.status, 500, name)
          assertAnswerId(failed.headers['x-request-id'], sent, name)
          assert.ok(String(failed.body.detail).includes(`request id ${String(failed.headers['x-request-id'])}`), failed.body.detail)
          const health = await broken.request({ method: 'GET', url: '/healthz', headers: withId(sent) })
          assert.equal(health.status, 503, name)
          assertAnswerId(health.headers['x-request-id'], sent, name)
        }
      } finally {
        await broken.app.close()
      }
    })
  })
}

describe('x-request-id on the admin rate limit', () => {
  it('429 from ADMIN_RATE_LIMIT', async () => {
    const t = await buildTestApp(sqlite, {}, { AUTH_TOKENS: `limited:admin:${TOKENS.limited}`, ADMIN_RATE_LIMIT: '1' })
    try {
      assert.equal((await t.request({ method: 'POST', url: '/api/pools', headers: bearer(TOKENS.limited), payload: { name: 'one', category: 'c' } })).status, 200)
      for (const { name, sent } of VARIANTS) {
        const res = await t.request({ method: 'POST', url: '/api/pools', headers: { ...bearer(TOKENS.limited), ...withId(sent) }, payload: { name: 'two', category: 'c' } })
        assert.equal(res.status, 429, name)
        assertAnswerId(res.headers['x-request-id'], sent, name)
      }
    } finally {
      await t.close()
    }
  })
})

/** What a raw connection got: the status, headers (lower-cased names) and body of the one answer. */
interface RawAnswer { status: number, headers: Record<string, string>, body: string }

/** Writes `text` on a new connection and reads until the server closes it (or `waitMs`). */
async function rawExchange (port: number, text: string, waitMs = 5000): Promise<RawAnswer> {
  const socket = connect(port, '127.0.0.1')
  let received = ''
  socket.on('data', (part) => { received += String(part) })
  socket.on('error', () => {})
  socket.write(text)
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, waitMs)
    socket.once('close', () => { clearTimeout(timer); resolve() })
  })
  socket.destroy()
  const [head = '', body = ''] = received.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body }
}

describe('x-request-id on the answers written before a request is routed (a listening server)', () => {
  const lines: LogLine[] = []
  let t: TestApp
  let port: number
  before(async () => {
    t = await buildTestApp(sqlite, capturing(lines), { REQUEST_TIMEOUT_MS: '1000', HEADERS_TIMEOUT_MS: '500' })
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as AddressInfo).port
  })
  after(async () => { await t.close() })

  /** The last line logged under `id` for an answer written before routing. */
  const loggedUnder = (id: string | undefined) => lines.filter((line) => line.reqId === id && /answered before routing$/.test(line.msg)).at(-1)

  it('431 for headers too large: a fresh id (no request was read), logged under it', async () => {
    for (const { name, sent } of VARIANTS) {
      const res = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\n${sent === undefined ? '' : `X-Request-Id: ${sent}\r\n`}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`)
      assert.equal(res.status, 431, name)
      assert.deepEqual(JSON.parse(res.body), { detail: 'Request headers are too large' })
      assert.match(res.headers['x-request-id'] ?? '', UUID, name)
      assert.equal(loggedUnder(res.headers['x-request-id'])?.res?.statusCode, 431, name)
    }
  })

  it('408 for headers that stall: a fresh id, logged under it', async () => {
    const res = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${SANE}\r\nX-Slow: `)
    assert.equal(res.status, 408)
    assert.match(res.headers['x-request-id'] ?? '', UUID)
    assert.equal(loggedUnder(res.headers['x-request-id'])?.res?.statusCode, 408)
  })

  it("408 for a body that stalls: the request's own id, as its other log lines have it, and no error logged", async () => {
    for (const { name, sent } of VARIANTS.slice(0, 2)) {
      const res = await rawExchange(port, `POST /api/pools HTTP/1.1\r\nHost: x\r\n${sent === undefined ? '' : `X-Request-Id: ${sent}\r\n`}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a"`)
      assert.equal(res.status, 408, name)
      const id = res.headers['x-request-id']
      assertAnswerId(id, sent, name)
      assert.equal(loggedUnder(id)?.res?.statusCode, 408, name)
      assert.ok(lines.some((line) => line.reqId === id && line.msg === 'incoming request'), name)
      // The request cut off is routine (any client can cause it), never an error line.
      await new Promise((resolve) => setTimeout(resolve, 20))
      assert.deepEqual(lines.filter((line) => line.reqId === id && line.level >= 50), [], name)
    }
  })

  it('400 for malformed HTTP: a fresh id', async () => {
    const res = await rawExchange(port, 'GARBAGE\r\n\r\n')
    assert.equal(res.status, 400)
    assert.deepEqual(JSON.parse(res.body), { detail: 'Malformed request' })
    assert.match(res.headers['x-request-id'] ?? '', UUID)
    assert.equal(loggedUnder(res.headers['x-request-id'])?.res?.statusCode, 400)
  })

  it('400 for an HTTP/1.1 request without Host, and 417 for an Expect other than 100-continue', async () => {
    for (const { name, sent } of VARIANTS) {
      const hostless = await rawExchange(port, `GET /healthz HTTP/1.1\r\n${sent === undefined ? '' : `X-Request-Id: ${sent}\r\n`}\r\n`)
      assert.equal(hostless.status, 400, name)
      assert.deepEqual(JSON.parse(hostless.body), { detail: 'Malformed request: an HTTP/1.1 request needs a Host header' })
      assertAnswerId(hostless.headers['x-request-id'], sent, name)
      const expecting = await rawExchange(port, `GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nExpect: wonders\r\n${sent === undefined ? '' : `X-Request-Id: ${sent}\r\n`}\r\n`)
      assert.equal(expecting.status, 417, name)
      assert.deepEqual(JSON.parse(expecting.body), { detail: 'Expectation failed: only Expect: 100-continue is supported' })
      assertAnswerId(expecting.headers['x-request-id'], sent, name)
      assert.equal(loggedUnder(expecting.headers['x-request-id'])?.res?.statusCode, 417, name)
    }
    // HTTP/1.0 needs no Host.
    assert.equal((await rawExchange(port, 'GET /healthz HTTP/1.0\r\n\r\n')).status, 200)
  })
})

for (const dialect of dialects) {
  describeOn(dialect, 'x-request-id on proxied answers: ours wins, the provider\'s kept as x-upstream-request-id', () => {
    const lines: LogLine[] = []
    let t: TestApp
    const upstreams: Upstream[] = []
    const start = async (behave: Parameters<typeof upstream>[0]) => {
      const u = await upstream(behave)
      upstreams.push(u)
      return u
    }
    let n = 0
    /** A pool with one member per base URL, in order. */
    const pool = async (baseUrls: string[], providerExtra: Record<string, unknown> = {}) => {
      const poolId = await createPool(t, `p${++n}`)
      for (const [i, baseUrl] of baseUrls.entries()) await addMember(t, poolId, await createProvider(t, `p${n}-${i}`, { base_url: baseUrl, ...providerExtra }))
      return poolId
    }
    const attemptLines = (id: unknown) => lines.filter((line) => line.msg === 'proxy attempt' && line.reqId === id)
    beforeEach(async () => {
      lines.length = 0
      t = await buildTestApp(dialect, capturing(lines))
    })
    afterEach(async () => {
      await t.close()
      for (const u of upstreams.splice(0)) await u.close()
    })

    it('sends our id upstream, answers with it, and keeps and logs the provider\'s', async () => {
      const up = await start(json(200, { ok: true }, { 'x-request-id': 'provider-abc' }))
      const poolId = await pool([up.url])
      for (const { name, sent } of VARIANTS) {
        const res = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/x`, headers: withId(sent) })
        assert.equal(res.statusCode, 200, name)
        const ours = res.headers['x-request-id']
        assertAnswerId(ours, sent, name)
        assert.equal(res.headers['x-upstream-request-id'], 'provider-abc', name)
        assert.equal(up.seen.at(-1)?.headers['x-request-id'], ours, name)
        const logged = attemptLines(ours)
        assert.equal(logged.length, 1, name)
        assert.deepEqual([logged[0]?.upstreamRequestId, logged[0]?.statusCode, logged[0]?.outcome, logged[0]?.attempt], ['provider-abc', 200, 'success', 1], name)
      }
    })

    it('sends the same id on every attempt of a failover, and logs each attempt with its provider\'s id', async () => {
      const failing = await start(json(503, {}, { 'x-request-id': 'provider-a' }))
      const working = await start(json(200, { ok: true }, { 'x-request-id': 'provider-b' }))
      const poolId = await pool([failing.url, working.url])
      const res = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/x`, headers: withId(SANE) })
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['x-sourcepool-attempts'], '2')
      assert.equal(res.headers['x-request-id'], SANE)
      assert.equal(res.headers['x-upstream-request-id'], 'provider-b')
      assert.deepEqual([failing.seen[0]?.headers['x-request-id'], working.seen[0]?.headers['x-request-id']], [SANE, SANE])
      assert.deepEqual(attemptLines(SANE).map((line) => [line.attempt, line.outcome, line.upstreamRequestId]), [[1, 'http_503', 'provider-a'], [2, 'success', 'provider-b']])
    })

    it('has no x-upstream-request-id when the provider sent no id, and never passes on one the provider named so', async () => {
      const quiet = await start(json(200, {}, { 'x-upstream-request-id': 'spoofed' }))
      const poolId = await pool([quiet.url])
      const res = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/x` })
      assert.match(String(res.headers['x-request-id']), UUID)
      assert.equal(res.headers['x-upstream-request-id'], undefined)
      const logged = attemptLines(res.headers['x-request-id'])
      assert.equal(logged.length, 1)
      assert.equal('upstreamRequestId' in (logged[0] ?? {}), false)
    })

    it('keeps both ids on a streamed answer, an answer without a body, a 502 and a timeout', async () => {
      const streaming = await start((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'x-request-id': 'provider-stream' })
        res.write('first ')
        setTimeout(() => { res.end('second') }, 50)
      })
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = t.app.server.address() as AddressInfo
      const streamPool = await pool([streaming.url])
      const streamed = await fetch(`http://127.0.0.1:${port}/api/pools/${streamPool}/proxy/s`, { headers: withId(SANE) })
      assert.equal(streamed.headers.get('transfer-encoding'), 'chunked')
      assert.equal(streamed.headers.get('x-request-id'), SANE)
      assert.equal(streamed.headers.get('x-upstream-request-id'), 'provider-stream')
      assert.equal(await streamed.text(), 'first second')

      const head = await t.app.inject({ method: 'HEAD', url: `/api/pools/${streamPool}/proxy/s`, headers: withId(SANE) })
      assert.deepEqual([head.statusCode, head.headers['x-request-id'], head.headers['x-upstream-request-id']], [200, SANE, 'provider-stream'])

      const broken = await start(json(500, {}, { 'x-request-id': 'provider-500' }))
      const failed = await t.app.inject({ method: 'GET', url: `/api/pools/${await pool([broken.url])}/proxy/x`, headers: withId(SANE) })
      assert.deepEqual([failed.statusCode, failed.headers['x-request-id']], [502, SANE])
      assert.equal(attemptLines(SANE).at(-1)?.upstreamRequestId, 'provider-500')

      const hanging = await start(() => {})
      const slow = await t.app.inject({ method: 'GET', url: `/api/pools/${await pool([hanging.url], { timeout_ms: 100 })}/proxy/x` })
      assert.equal(slow.statusCode, 502)
      assert.match(String(slow.headers['x-request-id']), UUID)
      assert.equal(attemptLines(slow.headers['x-request-id']).at(-1)?.outcome, 'timeout')
    })
  })
}
