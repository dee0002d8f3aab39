import assert from 'node:assert/strict'
import { request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, it } from 'node:test'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { json, refusingUrl, upstream, type Upstream } from '../../test/upstreams.js'

/** What a raw request got back. */
interface RawAnswer { status: number, headers: IncomingMessage['headers'], body: string }

/**
 * A request whose target is sent byte for byte as given; with `expect100`, the body
 * waits for the server's `100 Continue`, as curl does for bodies over 1 KiB.
 */
function rawRequest (port: number, options: { method: string, path: string, headers?: Record<string, string>, body?: string, expect100?: boolean }): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body)
    const headers: Record<string, string> = { ...options.headers }
    if (body !== undefined) headers['content-length'] = String(body.length)
    if (options.expect100 === true) headers.expect = '100-continue'
    const req = httpRequest({ host: '127.0.0.1', port, path: options.path, method: options.method, headers }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString() }))
    })
    req.on('error', reject)
    if (options.expect100 === true) {
      req.on('continue', () => req.end(body))
    } else {
      req.end(body)
    }
  })
}

/** A GET whose path is sent byte for byte as given. */
function rawGet (port: number, path: string): Promise<{ status: number, body: string }> {
  return new Promise((resolve, reject) => {
    httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString() }))
    }).on('error', reject).end()
  })
}

for (const dialect of dialects) {
  describeOn(dialect, '/api/pools/:pool_id/proxy/*', () => {
    let t: TestApp
    const upstreams: Upstream[] = []
    const start = async (behave: Parameters<typeof upstream>[0]) => {
      const u = await upstream(behave)
      upstreams.push(u)
      return u
    }
    /** A pool with one member per base URL (in order), round robin. */
    const pool = async (name: string, baseUrls: Array<string | null>, poolExtra: Record<string, unknown> = {}, providerExtra: Record<string, unknown> = {}) => {
      const poolId = await createPool(t, name, poolExtra)
      const providers: number[] = []
      for (const [i, baseUrl] of baseUrls.entries()) {
        const id = await createProvider(t, `${name}-${i}`, { ...(baseUrl === null ? {} : { base_url: baseUrl }), ...providerExtra })
        await addMember(t, poolId, id)
        providers.push(id)
      }
      return { poolId, providers }
    }
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => {
      await t.close()
      for (const u of upstreams.splice(0)) await u.close()
    })

    it('forwards method, path, query, body and headers, and returns the answer as is', async () => {
      const up = await start(json(201, { ok: true }, { 'x-upstream': 'yes', etag: '"v1"' }))
      const { poolId } = await pool('fwd', [`${up.url}/base/`])
      const res = await t.app.inject({
        method: 'PUT',
        url: `/api/pools/${poolId}/proxy/contratos/7?codigoOrgao=26000&x=%2F`,
        headers: { 'content-type': 'text/plain', 'x-client': 'c1', authorization: 'Bearer client', cookie: 'a=b', connection: 'keep-alive, x-drop', 'x-drop': '1', 'x-forwarded-for': '10.0.0.1' },
        payload: 'raw body'
      })
      assert.equal(res.statusCode, 201)
      assert.deepEqual(JSON.parse(res.body), { ok: true })
      assert.equal(res.headers['x-upstream'], 'yes')
      assert.equal(res.headers.etag, '"v1"')
      assert.equal(res.headers['x-sourcepool-provider'], 'fwd-0')
      assert.equal(res.headers['x-sourcepool-attempts'], '1')
      const [seen] = up.seen
      assert.equal(seen?.method, 'PUT')
      assert.equal(seen?.url, '/base/contratos/7?codigoOrgao=26000&x=%2F')
      assert.equal(seen?.body, 'raw body')
      assert.equal(seen?.headers['content-type'], 'text/plain')
      assert.equal(seen?.headers['x-client'], 'c1')
      assert.equal(seen?.headers.authorization, undefined)
      assert.equal(seen?.headers.cookie, undefined)
      assert.equal(seen?.headers['x-drop'], undefined)
      assert.equal(seen?.headers['x-forwarded-for'], '10.0.0.1, 127.0.0.1')
      assert.equal(seen?.headers['x-forwarded-proto'], 'http')
      assert.equal(seen?.headers.host, up.url.slice('http://'.length))
    })

    it("never forwards the client's Authorization; with forward_client_auth, X-Provider-Authorization goes up as Authorization, and Cookie as it is", async () => {
      const up = await start(json(200, {}))
      const sent = { authorization: 'Bearer sourcepool-token', 'x-provider-authorization': 'Basic cHJvdmlkZXI=', cookie: 'a=b' }
      const forwarding = await pool('creds', [up.url], { forward_client_auth: true })
      assert.equal((await t.app.inject({ method: 'GET', url: `/api/pools/${forwarding.poolId}/proxy/x`, headers: sent })).statusCode, 200)
      assert.equal(up.seen[0]?.headers.authorization, 'Basic cHJvdmlkZXI=')
      assert.equal(up.seen[0]?.headers['x-provider-authorization'], undefined)
      assert.equal(up.seen[0]?.headers.cookie, 'a=b')
      // Without X-Provider-Authorization nothing goes up as Authorization, not even with forward_client_auth.
      await t.app.inject({ method: 'GET', url: `/api/pools/${forwarding.poolId}/proxy/x`, headers: { authorization: 'Bearer sourcepool-token' } })
      assert.equal(up.seen[1]?.headers.authorization, undefined)
      // Without forward_client_auth none of the three goes.
      const plain = await pool('no-creds', [up.url])
      await t.app.inject({ method: 'GET', url: `/api/pools/${plain.poolId}/proxy/x`, headers: sent })
      assert.deepEqual([up.seen[2]?.headers.authorization, up.seen[2]?.headers['x-provider-authorization'], up.seen[2]?.headers.cookie], [undefined, undefined, undefined])
    })

    it('keeps the sourcepool token of an authenticated client here, even with forward_client_auth', async () => {
      await t.close()
      const secret = 'client-secret-0123456789'
      t = await buildTestApp(dialect, {}, { AUTH_TOKENS: `ops:admin:admin-secret-0123456789,app:client:${secret}` })
      const up = await start(json(200, { ok: true }))
      const admin = { authorization: 'Bearer admin-secret-0123456789' }
      const id = (await t.request({ method: 'POST', url: '/api/providers', headers: admin, payload: { name: 'p', base_url: up.url } })).body.provider_id
      const poolId = (await t.request({ method: 'POST', url: '/api/pools', headers: admin, payload: { name: 'tok', category: 'c', forward_client_auth: true } })).body.pool_id
      assert.equal((await t.request({ method: 'POST', url: `/api/pools/${poolId}/members`, headers: admin, payload: { provider_id: id } })).status, 200)
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/x`, headers: { authorization: `Bearer ${secret}` } })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, { ok: true })
      assert.equal(up.seen[0]?.headers.authorization, undefined)
      assert.doesNotMatch(JSON.stringify(up.seen[0]?.headers), /client-secret/)
    })

    it('forwards a body sent with Expect: 100-continue, without the Expect header, as a success of the provider', async () => {
      const up = await start((_req, res, body) => json(200, { length: body.length })(_req, res))
      const { poolId } = await pool('expect', [up.url])
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = t.app.server.address() as AddressInfo
      const body = 'x'.repeat(2048)
      const res = await rawRequest(port, { method: 'POST', path: `/api/pools/${poolId}/proxy/upload`, headers: { 'content-type': 'application/octet-stream' }, body, expect100: true })
      assert.equal(res.status, 200, res.body)
      assert.deepEqual(JSON.parse(res.body), { length: 2048 })
      assert.equal(up.seen.length, 1)
      assert.equal(up.seen[0]?.body, body)
      assert.equal(up.seen[0]?.headers.expect, undefined)
      const [member] = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members
      assert.deepEqual([member.health, member.success_count, member.failure_count], ['healthy', 1, 0])
    })

    it('ends the request with 500 for an error of its own, never counting it against the provider', async () => {
      const up = await start(json(200, {}))
      const { poolId, providers } = await pool('ours', [up.url, up.url])
      // A credential header stored before validation that the upstream client refuses (UND_ERR_INVALID_ARG).
      await t.database.db.updateTable('providers').set({ auth_headers: JSON.stringify({ 'x-api-key': 'a\r\nb' }) }).where('id', '=', providers[0] as number).execute()
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/x`, headers: { 'x-request-id': 'ours-1' } })
      assert.equal(res.status, 500)
      assert.deepEqual(res.body, { detail: 'Failed to proxy the request: an unexpected internal error occurred; the server log has details under request id ours-1' })
      assert.equal(up.seen.length, 0)
      const members = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members
      assert.deepEqual(members.map((m: any) => [m.health, m.failure_count, m.consecutive_failures]), [['healthy', 0, 0], ['healthy', 0, 0]])
    })

    it('forwards an absolute-form request target by its path and query', async () => {
      const up = await start(json(200, { ok: true }))
      const { poolId } = await pool('absolute', [`${up.url}/base`])
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = t.app.server.address() as AddressInfo
      const res = await rawRequest(port, { method: 'GET', path: `http://127.0.0.1:${port}/api/pools/${poolId}/proxy/a/b?x=1` })
      assert.equal(res.status, 200, res.body)
      assert.deepEqual(JSON.parse(res.body), { ok: true })
      assert.equal(up.seen[0]?.url, '/base/a/b?x=1')
    })

    it('relays answers without a body (304, 204, any answer to HEAD) without one, keeping their headers', async () => {
      const up = await start((req, res) => {
        if (req.method === 'HEAD') res.writeHead(200, { 'content-length': '12', 'content-type': 'text/plain', etag: '"h"' })
        else if (req.url === '/not-modified') res.writeHead(304, { 'content-length': '12', etag: '"v1"' })
        else res.writeHead(204, { 'x-deleted': 'yes' })
        res.end()
      })
      const { poolId } = await pool('bodiless', [up.url])
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = t.app.server.address() as AddressInfo
      const notModified = await rawRequest(port, { method: 'GET', path: `/api/pools/${poolId}/proxy/not-modified`, headers: { 'if-none-match': '"v1"' } })
      assert.deepEqual([notModified.status, notModified.body, notModified.headers.etag, notModified.headers['content-length']], [304, '', '"v1"', '12'])
      const head = await rawRequest(port, { method: 'HEAD', path: `/api/pools/${poolId}/proxy/file` })
      assert.deepEqual([head.status, head.body, head.headers.etag, head.headers['content-length'], head.headers['content-type']], [200, '', '"h"', '12', 'text/plain'])
      const deleted = await rawRequest(port, { method: 'DELETE', path: `/api/pools/${poolId}/proxy/item` })
      assert.deepEqual([deleted.status, deleted.body, deleted.headers['x-deleted']], [204, '', 'yes'])
      assert.equal(up.seen.length, 3)
    })

    it("sends the base URL's query parameters first, then the client's", async () => {
      const up = await start(json(200, {}))
      const { poolId } = await pool('query', [`${up.url}/v1?api_key=K1&lang=pt`])
      await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/contratos?ano=2024&x=%2F` })
      await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/orgaos` })
      assert.deepEqual(up.seen.map((s) => s.url), ['/v1/contratos?api_key=K1&lang=pt&ano=2024&x=%2F', '/v1/orgaos?api_key=K1&lang=pt'])
    })

    it('refuses userinfo in base_url (422 pointing to auth_headers), and still forwards a stored one as Basic auth', async () => {
      const up = await start(json(200, {}))
      for (const [method, url] of [['POST', '/api/providers'], ['PUT', `/api/providers/${await createProvider(t, 'plain')}`]] as const) {
        const refused = await t.request({ method, url, payload: { name: `userinfo-${method}`, base_url: 'https://user:hunter2@api.example.com/v1' } })
        assert.equal(refused.status, 422, method)
        assert.deepEqual(refused.body, {
          detail: [{
            type: 'value_error',
            loc: ['body', 'base_url'],
            msg: 'Value error, base_url may not carry credentials (user:password@); put them in auth_headers, e.g. {"authorization": "Basic <base64 of user:password>"}',
            input: 'https://user:***@api.example.com/v1',
            ctx: { error: {} },
            url: 'https://errors.pydantic.dev/2.5/v/value_error'
          }]
        })
      }
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 1)
      assert.equal((await t.request({ method: 'GET', url: '/api/audit?action=provider.create' })).body.records.length, 1)
      // Rows stored before the rule: the userinfo goes up as Basic auth (never in the URL), unless auth_headers set authorization.
      const { poolId, providers } = await pool('legacy', [up.url, up.url])
      const withUserinfo = up.url.replace('http://', 'http://us%20er:p%40ss@')
      for (const id of providers) await t.database.db.updateTable('providers').set({ base_url: withUserinfo }).where('id', '=', id).execute()
      await t.request({ method: 'PUT', url: `/api/providers/${providers[1]}`, payload: { auth_headers: { Authorization: 'Bearer from-auth-headers' } } })
      await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/a` })
      await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/b` })
      assert.deepEqual(up.seen.map((s) => [s.url, s.headers.authorization]), [
        ['/a', `Basic ${Buffer.from('us er:p@ss').toString('base64')}`],
        ['/b', 'Bearer from-auth-headers']
      ])
    })

    it('refuses TRACE with 405 and Allow before any provider is asked, and never forwards CONNECT', async () => {
      const up = await start((req, res) => {
        res.writeHead(200, { 'content-type': 'message/http' })
        res.end(JSON.stringify(req.headers))
      })
      const { poolId } = await pool('trace', [up.url], {}, { auth_headers: { 'x-api-key': 'secret-value-123' } })
      const injected = await t.app.inject({ method: 'TRACE', url: `/api/pools/${poolId}/proxy/x` })
      assert.equal(injected.statusCode, 405)
      assert.equal(injected.headers.allow, 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS')
      assert.deepEqual(JSON.parse(injected.body), { detail: 'Method TRACE is not allowed through the proxy' })
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = t.app.server.address() as AddressInfo
      const traced = await rawRequest(port, { method: 'TRACE', path: `/api/pools/${poolId}/proxy/x` })
      assert.equal(traced.status, 405)
      assert.deepEqual(JSON.parse(traced.body), { detail: 'Method TRACE is not allowed through the proxy' })
      // CONNECT never reaches the route: Fastify routes no CONNECT, and Node closes a CONNECT connection no one handles.
      const connect = await t.app.inject({ method: 'CONNECT', url: `/api/pools/${poolId}/proxy/x` })
      assert.deepEqual([connect.statusCode, JSON.parse(connect.body)], [404, { detail: 'Not Found' }])
      await assert.rejects(rawRequest(port, { method: 'CONNECT', path: `/api/pools/${poolId}/proxy/x` }), /socket hang up/)
      assert.equal(up.seen.length, 0)
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.total, 0)
    })

    it('fails over within the request, never re-picking a member, and answers from the one that works', async () => {
      const failing = await start(json(503, { down: true }))
      const working = await start(json(200, { from: 'working' }))
      const { poolId, providers } = await pool('order', [failing.url, await refusingUrl(), working.url])
      const res = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/orgaos` })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(JSON.parse(res.body), { from: 'working' })
      assert.equal(res.headers['x-sourcepool-attempts'], '3')
      assert.equal(res.headers['x-sourcepool-provider'], 'order-2')
      assert.equal(failing.seen.length, 1)
      assert.equal(working.seen.length, 1)
      // History: each failover and why (the first choice of a request is no event).
      const history = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history.reverse()
      assert.deepEqual(history.map((h: any) => [h.from_provider, h.to_provider, h.reason]), [
        ['order-0', 'order-1', 'proxy:http_503'],
        ['order-1', 'order-2', 'proxy:connect_error']
      ])
      const status = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
      const byProvider = new Map(status.members.map((m: any) => [m.provider_id, m]))
      assert.deepEqual(providers.map((id) => [(byProvider.get(id) as any).failure_count, (byProvider.get(id) as any).success_count]), [[1, 0], [1, 0], [0, 1]])
    })

    it('answers 502 listing every attempt when all fail, trying at most max_attempts providers', async () => {
      const a = await start(json(500, {}))
      const b = await start((_req, res) => { res.writeHead(429, { 'retry-after': '120' }); res.end() })
      const c = await start(json(200, {}))
      const { poolId, providers } = await pool('all-fail', [a.url, b.url, c.url], { max_attempts: 2 })
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/despesas` })
      assert.equal(res.status, 502)
      assert.equal(res.body.detail, `All providers failed for pool ${poolId}`)
      assert.deepEqual(res.body.attempts.map((x: any) => ({ ...x, latency_ms: typeof x.latency_ms })), [
        { provider_id: providers[0], provider_name: 'all-fail-0', status_code: 500, latency_ms: 'number' },
        { provider_id: providers[1], provider_name: 'all-fail-1', status_code: 429, latency_ms: 'number' }
      ])
      assert.equal(c.seen.length, 0)
      const history = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history
      // Proxied traffic records what a person looks for: the failover, and the cooldown the 429 started.
      assert.deepEqual(history.map((h: any) => h.reason), ['cooldown:rate_limited', 'proxy:http_500'])
      // The 429 with Retry-After cooled its member down at once.
      const member = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members.find((m: any) => m.provider_id === providers[1])
      assert.deepEqual([member.health, member.cooldown_reason], ['cooling_down', 'rate_limited'])
    })

    it('gives up on a provider that does not answer within its timeout', async () => {
      const hanging = await start(() => {})
      const working = await start(json(200, { ok: 1 }))
      const { poolId } = await pool('slow', [hanging.url, working.url], {}, { timeout_ms: 200 })
      const res = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/x` })
      assert.equal(res.statusCode, 200)
      assert.equal(res.headers['x-sourcepool-attempts'], '2')
      const history = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history
      assert.equal(history[0].reason, 'proxy:timeout')
      const slowMember = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members[0]
      assert.deepEqual([slowMember.failure_count, slowMember.consecutive_failures, slowMember.success_count], [1, 1, 0])
      const alone = await pool('slow-alone', [hanging.url], {}, { timeout_ms: 200 })
      const failed = await t.request({ method: 'GET', url: `/api/pools/${alone.poolId}/proxy/x` })
      assert.equal(failed.status, 502)
      assert.equal(failed.body.attempts[0].error, 'timeout')
      assert.ok(failed.body.attempts[0].latency_ms >= 190, String(failed.body.attempts[0].latency_ms))
    })

    it('retries a POST only with an Idempotency-Key or when the pool allows it, sending the body each time', async () => {
      const failing = await start(json(502, {}))
      const working = await start(json(200, { stored: true }))
      const plain = await pool('post', [failing.url, working.url])
      const once = await t.request({ method: 'POST', url: `/api/pools/${plain.poolId}/proxy/items`, payload: { n: 1 } })
      assert.equal(once.status, 502)
      assert.equal(once.body.attempts.length, 1)
      assert.equal(working.seen.length, 0)

      const keyed = await pool('post-key', [failing.url, working.url])
      const retried = await t.request({ method: 'POST', url: `/api/pools/${keyed.poolId}/proxy/items`, payload: { n: 2 }, headers: { 'idempotency-key': 'k-1' } })
      assert.equal(retried.status, 200)
      assert.equal(working.seen.at(-1)?.body, '{"n":2}')
      assert.equal(failing.seen.at(-1)?.body, '{"n":2}')

      const allowed = await pool('post-allowed', [failing.url, working.url], { retry_non_idempotent: true })
      assert.equal((await t.request({ method: 'POST', url: `/api/pools/${allowed.poolId}/proxy/items`, payload: { n: 3 } })).status, 200)
      const patched = await pool('patch', [failing.url, working.url])
      assert.equal((await t.request({ method: 'PATCH', url: `/api/pools/${patched.poolId}/proxy/items`, payload: { n: 4 } })).status, 502)
      const deleted = await pool('delete', [failing.url, working.url])
      assert.equal((await t.request({ method: 'DELETE', url: `/api/pools/${deleted.poolId}/proxy/items/4` })).status, 200)
    })

    it('answers 503 with Retry-After when nothing is eligible, and 404 for an unknown pool', async () => {
      const limited = await start((_req, res) => { res.writeHead(429, { 'retry-after': '90' }); res.end() })
      const { poolId } = await pool('none', [limited.url, null], { all_down: 'fail' })
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/x` })).status, 502)
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/x` })
      assert.equal(res.status, 503)
      assert.deepEqual(res.body, { detail: `No available providers in pool ${poolId}` })
      const retryAfter = Number(res.headers['retry-after'])
      assert.ok(retryAfter > 80 && retryAfter <= 90, String(retryAfter))
      // A member without a base URL is never chosen, and gives no Retry-After.
      const noUrl = await pool('no-url', [null])
      const bare = await t.request({ method: 'GET', url: `/api/pools/${noUrl.poolId}/proxy/x` })
      assert.equal(bare.status, 503)
      assert.equal(bare.headers['retry-after'], undefined)
      const unknown = await t.request({ method: 'GET', url: '/api/pools/999/proxy/x' })
      assert.equal(unknown.status, 404)
      assert.deepEqual(unknown.body, { detail: 'Pool 999 not found' })
    })

    it("never leaves the provider's origin", async () => {
      const up = await start(json(200, {}))
      const { poolId } = await pool('origin', [`${up.url}/api`])
      const same = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy//evil.example/x` })
      assert.equal(same.statusCode, 200)
      assert.equal(up.seen[0]?.url, '/api//evil.example/x')
      assert.equal(up.seen[0]?.headers.host, up.url.slice('http://'.length))
      // Over a real socket, so the paths arrive exactly as written (no client normalises them).
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = t.app.server.address() as AddressInfo
      for (const path of ['/..%2f..%2fadmin', '/%2e%2e/admin', '/a/../../admin', '/a/%5c..%5cadmin', '/./x', '/%zz']) {
        const res = await rawGet(port, `/api/pools/${poolId}/proxy${path}`)
        assert.equal(res.status, 400, path)
        assert.match(JSON.parse(res.body).detail, /[Pp]ath/, `${path}: ${res.body}`)
      }
      assert.equal(up.seen.length, 1)
    })

    it('refuses a body over 10 MiB with 413', async () => {
      const up = await start(json(200, {}))
      const { poolId } = await pool('big', [up.url])
      const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/proxy/x`, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.alloc(10 * 1024 * 1024 + 1) })
      assert.equal(res.status, 413)
      assert.equal(up.seen.length, 0)
    })

    it('adds the provider credentials to every forwarded request, and never returns their values', async () => {
      const up = await start(json(200, {}))
      const id = await createProvider(t, 'keyed', { base_url: up.url, auth_headers: { 'X-Api-Key': 'secret-value-123', 'chave-api-dados': 'k2' } })
      const poolId = await createPool(t, 'keyed-pool')
      await addMember(t, poolId, id)
      await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/orgaos`, headers: { 'x-api-key': 'from-the-client' } })
      assert.equal(up.seen[0]?.headers['x-api-key'], 'secret-value-123')
      assert.equal(up.seen[0]?.headers['chave-api-dados'], 'k2')
      const shown = (await t.request({ method: 'GET', url: `/api/providers/${id}` })).body
      assert.deepEqual(shown.auth_headers, { 'x-api-key': '***', 'chave-api-dados': '***' })
      for (const res of [
        await t.request({ method: 'GET', url: '/api/providers' }),
        await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload: { description: 'd' } }),
        await t.request({ method: 'GET', url: '/api/audit' })
      ]) assert.doesNotMatch(JSON.stringify(res.body), /secret-value-123/)
      // {} removes them; a reserved name is refused.
      await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload: { auth_headers: {} } })
      assert.equal((await t.request({ method: 'GET', url: `/api/providers/${id}` })).body.auth_headers, null)
      const reserved = await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload: { auth_headers: { Host: 'evil.example' } } })
      assert.equal(reserved.status, 422)
      // The name is what is refused: pydantic's `[key]` under it, the name as input, never the value.
      assert.deepEqual(reserved.body.detail[0].loc, ['body', 'auth_headers', 'Host', '[key]'])
      assert.equal(reserved.body.detail[0].input, 'Host')
      const badName = await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload: { auth_headers: { 'bad name': 'x' } } })
      assert.equal(badName.status, 422)
    })

    it('streams the answer: the first bytes reach the client before the provider has finished', async () => {
      let finished = false
      let release: () => void = () => {}
      const up = await start((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.write('first part;')
        new Promise<void>((resolve) => { release = resolve }).then(() => { res.end('last part'); finished = true }, () => {})
      })
      const { poolId } = await pool('stream', [up.url])
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = t.app.server.address() as AddressInfo
      const chunks: string[] = []
      await new Promise<void>((resolve, reject) => {
        httpRequest(`http://127.0.0.1:${port}/api/pools/${poolId}/proxy/big`, (res) => {
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            if (chunks.length === 0) {
              assert.equal(finished, false, 'the first bytes came only after the provider finished')
              release()
            }
            chunks.push(chunk)
          })
          res.on('end', resolve)
          res.on('error', reject)
        }).on('error', reject).end()
      })
      assert.equal(chunks.join(''), 'first part;last part')
    })

    it('logs a client that hangs up before a streamed answer starts at info, not as a warning with a stack', async () => {
      const lines: Array<{ level: number, msg: string }> = []
      await t.close()
      t = await buildTestApp(dialect, { logger: { level: 'info', stream: { write: (line: string) => { lines.push(JSON.parse(line)) } } } })
      let headersSent: () => void = () => {}
      const sent = new Promise<void>((resolve) => { headersSent = resolve })
      let release: () => void = () => {}
      const upstreamDone = new Promise<void>((resolve) => { release = resolve })
      // Headers at once, the body never: the answer is handed to the client's response, not started.
      const up = await start((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' })
        res.flushHeaders()
        res.on('close', release)
        headersSent()
      })
      const { poolId } = await pool('hang-up', [up.url])
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = t.app.server.address() as AddressInfo
      const req = httpRequest(`http://127.0.0.1:${port}/api/pools/${poolId}/proxy/big`)
      req.on('error', () => {})
      req.end()
      await sent
      await new Promise((resolve) => setTimeout(resolve, 100))
      req.destroy()
      // The service ends its upstream call too once the client is gone.
      await upstreamDone
      await new Promise((resolve) => setTimeout(resolve, 50))
      assert.deepEqual(lines.filter((l) => l.level >= 40).map((l) => l.msg), [])
      assert.ok(lines.some((l) => l.level === 30 && l.msg === 'client closed the connection during a streamed answer'), JSON.stringify(lines.map((l) => l.msg)))
    })
  })
}

/** The portal of the spec: some resources work, others answer 403. */
const PORTAL_BLOCKED = new Set(['/despesas', '/fornecedores', '/emendas-parlamentares', '/beneficios', '/salarios'])

for (const dialect of dialects) {
  describeOn(dialect, 'per-resource refusals', () => {
    let t: TestApp
    let clock = Date.parse('2026-11-22T10:00:00.000Z')
    const upstreams: Upstream[] = []
    beforeEach(async () => {
      clock = Date.parse('2026-11-22T10:00:00.000Z')
      t = await buildTestApp(dialect, { now: () => new Date(clock) })
    })
    afterEach(async () => {
      await t.close()
      for (const u of upstreams.splice(0)) await u.close()
    })

    /** A pool of the blocking portal and a mirror that serves everything (round robin, portal first). */
    async function portalAndMirror (poolExtra: Record<string, unknown> = {}) {
      const portal = await upstream((req, res) => {
        const resource = `/${(req.url ?? '/').split(/[/?]/)[1] ?? ''}`
        json(PORTAL_BLOCKED.has(resource) ? 403 : 200, { from: 'portal' })(req, res)
      })
      const mirror = await upstream(json(200, { from: 'mirror' }))
      upstreams.push(portal, mirror)
      const poolId = await createPool(t, 'transparency', { forbidden_ttl_seconds: 600, ...poolExtra })
      const portalId = await createProvider(t, 'portal', { base_url: portal.url })
      const mirrorId = await createProvider(t, 'mirror', { base_url: mirror.url })
      await addMember(t, poolId, portalId)
      await addMember(t, poolId, mirrorId)
      return { poolId, portal, mirror, portalId, mirrorId }
    }
    const get = async (poolId: number, path: string) => t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy${path}` })

    it('skips a provider for the resource it refused, and only for that one, not as a health failure', async () => {
      const { poolId, portal, mirror, portalId } = await portalAndMirror()
      const first = await get(poolId, '/despesas?ano=2024')
      assert.equal(first.statusCode, 200)
      assert.deepEqual(JSON.parse(first.body), { from: 'mirror' })
      assert.equal(first.headers['x-sourcepool-attempts'], '2')
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history[0].reason, 'proxy:forbidden')
      // Later /despesas requests go straight to the mirror; the portal is never asked again.
      for (let i = 0; i < 4; i++) assert.deepEqual(JSON.parse((await get(poolId, '/despesas/7')).body), { from: 'mirror' })
      assert.equal(portal.seen.filter((s) => s.url.startsWith('/despesas')).length, 1)
      // Its other resources keep flowing through it.
      const served = []
      for (let i = 0; i < 4; i++) served.push(JSON.parse((await get(poolId, '/contratos?codigoOrgao=26000')).body).from)
      assert.ok(served.includes('portal'), served.join())
      assert.ok(mirror.seen.length > 0)
      const member = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members.find((m: any) => m.provider_id === portalId)
      assert.deepEqual([member.health, member.failure_count, member.consecutive_failures], ['healthy', 0, 0])
    })

    it('answers 502 naming the refusals when no one else serves the resource', async () => {
      const { poolId, portalId, mirrorId } = await portalAndMirror()
      await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${mirrorId}`, payload: { enabled: false } })
      const refused = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/salarios` })
      assert.equal(refused.status, 502)
      assert.equal(refused.body.attempts[0].status_code, 403)
      const again = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/salarios` })
      assert.equal(again.status, 502)
      assert.deepEqual(again.body, {
        detail: `All providers failed for pool ${poolId}`,
        attempts: [],
        refusals: [{ provider_id: portalId, provider_name: 'portal', resource: '/salarios', expires_at: '2026-11-22T10:10:00.000Z' }]
      })
      // When the other member is only cooling down, it will serve the resource again: 503 with Retry-After.
      await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { all_down: 'fail' } })
      await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${mirrorId}`, payload: { enabled: true } })
      await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: mirrorId, success: false, status_code: 429, retry_after_s: 60 } })
      const later = await t.request({ method: 'GET', url: `/api/pools/${poolId}/proxy/salarios` })
      assert.equal(later.status, 503)
      assert.equal(later.headers['retry-after'], '60')
    })

    /** Every refusal row of the provider, expired ones too, by resource. */
    /** The refusals in the database, once the runtime has written down what it learned. */
    const storedRefusals = async (providerId: number) => {
      await t.app.runtime.flush()
      return (await t.database.db.selectFrom('provider_refusals').select('resource')
        .where('provider_id', '=', providerId).orderBy('resource').execute()).map((r) => r.resource)
    }

    /** A portal that refuses every resource starting with /r, and a mirror (round robin, portal first). */
    async function refusingPortal (poolExtra: Record<string, unknown> = {}) {
      const portal = await upstream((req, res) => { json((req.url ?? '').startsWith('/r') ? 403 : 200, { from: 'portal' })(req, res) })
      const mirror = await upstream(json(200, { from: 'mirror' }))
      upstreams.push(portal, mirror)
      const poolId = await createPool(t, 'capped', { forbidden_ttl_seconds: 600, ...poolExtra })
      const portalId = await createProvider(t, 'capped-portal', { base_url: portal.url })
      await addMember(t, poolId, portalId)
      await addMember(t, poolId, await createProvider(t, 'capped-mirror', { base_url: mirror.url }))
      return { poolId, portal, portalId }
    }

    it('never records a resource over 1,000 characters, and still moves on to a provider that serves it', async () => {
      const { poolId, portal, portalId } = await refusingPortal()
      const long = `/r${'x'.repeat(1199)}`
      for (let i = 0; i < 2; i++) {
        const res = await get(poolId, `${long}/7?y=1`)
        assert.equal(res.statusCode, 200)
        assert.deepEqual(JSON.parse(res.body), { from: 'mirror' })
        assert.equal(res.headers['x-sourcepool-attempts'], '2')
      }
      // Not remembered: the portal was asked both times.
      assert.equal(portal.seen.length, 2)
      assert.deepEqual(await storedRefusals(portalId), [])
      const longest = `/r${'x'.repeat(998)}`
      assert.equal((await get(poolId, longest)).statusCode, 200)
      assert.deepEqual(await storedRefusals(portalId), [longest])
    })

    it('keeps at most MAX_REFUSALS_PER_PROVIDER refusals per provider: expired ones go first, then those that expire soonest', async () => {
      await t.close()
      t = await buildTestApp(dialect, { now: () => new Date(clock) }, { MAX_REFUSALS_PER_PROVIDER: '3' })
      const { poolId, portalId } = await refusingPortal()
      const refuse = async (resource: string) => {
        const res = await get(poolId, resource)
        assert.deepEqual([res.statusCode, res.headers['x-sourcepool-attempts']], [200, '2'], resource)
        clock += 60_000
      }
      await refuse('/r1') // expires 10:10
      await refuse('/r2') // 10:11
      await refuse('/r3') // 10:12
      assert.deepEqual(await storedRefusals(portalId), ['/r1', '/r2', '/r3'])
      await refuse('/r4') // 10:13; none expired, so /r1 (the soonest to expire) goes
      assert.deepEqual(await storedRefusals(portalId), ['/r2', '/r3', '/r4'])
      clock = Date.parse('2026-11-22T10:12:30.000Z')
      await refuse('/r5') // /r2 and /r3 have expired: both go, /r4 stays
      assert.deepEqual(await storedRefusals(portalId), ['/r4', '/r5'])
    })

    it('purges every expired refusal in the background (housekeeping), keeping those in force', async () => {
      const { poolId, portalId } = await portalAndMirror()
      await get(poolId, '/despesas') // expires 10:10
      clock += 5 * 60_000
      await get(poolId, '/beneficios') // expires 10:15
      clock += 6 * 60_000
      assert.deepEqual(await storedRefusals(portalId), ['/beneficios', '/despesas'])
      await t.app.runHousekeeping()
      assert.deepEqual(await storedRefusals(portalId), ['/beneficios'])
      clock += 5 * 60_000
      await t.app.runHousekeeping()
      assert.deepEqual(await storedRefusals(portalId), [])
    })

    it('lists refusals, lets them expire (pool forbidden_ttl_seconds) and clears one on request', async () => {
      const { poolId, portal, portalId } = await portalAndMirror()
      await get(poolId, '/despesas')
      clock += 60_000
      await get(poolId, '/beneficios')
      const listed = await t.request({ method: 'GET', url: `/api/providers/${portalId}/refusals` })
      assert.deepEqual(listed.body, {
        provider_id: portalId,
        refusals: [
          { resource: '/beneficios', first_seen: '2026-11-22T10:01:00.000Z', last_seen: '2026-11-22T10:01:00.000Z', expires_at: '2026-11-22T10:11:00.000Z' },
          { resource: '/despesas', first_seen: '2026-11-22T10:00:00.000Z', last_seen: '2026-11-22T10:00:00.000Z', expires_at: '2026-11-22T10:10:00.000Z' }
        ],
        total: 2
      })
      const explained = await t.request({ method: 'GET', url: `/api/pools/${poolId}/next?resource=/despesas` })
      const portalMember = explained.body.members.find((m: any) => m.provider_id === portalId)
      assert.deepEqual([explained.body.resource, portalMember.refuses_resource, portalMember.eligible, portalMember.reason], ['/despesas', true, false, 'refuses_resource'])
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${poolId}/next` })).body.members.find((m: any) => m.provider_id === portalId).refuses_resource, false)

      // Past the TTL, /despesas goes to the portal again.
      clock += 9 * 60_000 + 1
      assert.deepEqual((await t.request({ method: 'GET', url: `/api/providers/${portalId}/refusals` })).body.refusals.map((r: any) => r.resource), ['/beneficios'])
      const asked = portal.seen.length
      await get(poolId, '/despesas')
      await get(poolId, '/despesas')
      assert.equal(portal.seen.length, asked + 1)

      // Cleared by hand: /beneficios is tried on the portal at once.
      const cleared = await t.request({ method: 'DELETE', url: `/api/providers/${portalId}/refusals/beneficios` })
      assert.deepEqual(cleared.body, { message: "Refusal of '/beneficios' cleared", provider_id: portalId, resource: '/beneficios' })
      assert.equal((await t.request({ method: 'DELETE', url: `/api/providers/${portalId}/refusals/beneficios` })).status, 404)
      assert.equal((await t.request({ method: 'GET', url: '/api/providers/999/refusals' })).status, 404)
      const audit = (await t.request({ method: 'GET', url: '/api/audit?action=provider.refusal.clear' })).body.records
      assert.deepEqual(audit.map((r: any) => [r.target, r.changes]), [[`provider:${portalId}`, { resource: '/beneficios' }]])
    })
  })
}
