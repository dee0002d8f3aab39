/**
 * CORS_ORIGINS: off by default; with a list, only those origins' pages may read
 * answers; preflights answered before authentication; refusals readable; a
 * proxied OPTIONS that is no preflight still reaches the provider. (No storage is
 * involved: SQLite only.)
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { ConfigError, loadConfig } from '../config.js'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, sqlite, type TestApp } from '../../test/helpers.js'
import { upstream, type Upstream } from '../../test/upstreams.js'

const DASH = 'https://dash.example.com'
const preflight = (origin: string, method = 'PUT', headers = 'authorization,content-type') => ({
  method: 'OPTIONS' as const, url: '/api/pools/1', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers }
})

describe('CORS', () => {
  let t: TestApp | undefined
  let up: Upstream | undefined
  afterEach(async () => {
    await t?.close()
    await up?.close()
    t = undefined
    up = undefined
  })

  it('is off by default: no CORS headers, and a preflight finds no route', async () => {
    t = await buildTestApp(sqlite)
    const res = await t.request({ method: 'GET', url: '/api/pools', headers: { origin: DASH } })
    assert.equal(res.status, 200)
    assert.equal(res.headers['access-control-allow-origin'], undefined)
    const pre = await t.request(preflight(DASH))
    assert.equal(pre.status, 404)
    assert.deepEqual(pre.body, { detail: 'Not Found' })
    assert.equal(pre.headers['access-control-allow-origin'], undefined)
  })

  it('adds no CORS headers to a request without Origin, but says its answer varies by Origin', async () => {
    t = await buildTestApp(sqlite, {}, { CORS_ORIGINS: DASH })
    const res = await t.request({ method: 'GET', url: '/api/providers' })
    assert.equal(res.status, 200)
    assert.equal(res.headers['access-control-allow-origin'], undefined)
    assert.equal(res.headers['access-control-expose-headers'], undefined)
    assert.match(String(res.headers.vary), /origin/i)
  })

  it('lets a listed origin read answers and their sourcepool headers, and no other origin', async () => {
    t = await buildTestApp(sqlite, {}, { CORS_ORIGINS: `${DASH}, http://localhost:5173` })
    const res = await t.request({ method: 'GET', url: '/api/providers', headers: { origin: DASH } })
    assert.equal(res.status, 200)
    assert.equal(res.headers['access-control-allow-origin'], DASH)
    assert.match(String(res.headers.vary), /origin/i)
    const exposed = String(res.headers['access-control-expose-headers']).split(/,\s*/)
    for (const name of ['x-sourcepool-provider', 'x-sourcepool-attempts', 'x-sourcepool-cache', 'x-total-count']) assert.ok(exposed.includes(name), name)
    assert.equal(res.headers['access-control-allow-credentials'], undefined, 'tokens are bearer headers, never cookies')
    const other = await t.request({ method: 'GET', url: '/api/providers', headers: { origin: 'https://evil.example' } })
    assert.equal(other.status, 200)
    assert.equal(other.headers['access-control-allow-origin'], undefined)
    const port = await t.request({ method: 'GET', url: '/api/providers', headers: { origin: 'https://dash.example.com:8443' } })
    assert.equal(port.headers['access-control-allow-origin'], undefined, 'another port is another origin')
  })

  it('answers a preflight for every method with the headers asked for, and none for an origin not listed', async () => {
    t = await buildTestApp(sqlite, {}, { CORS_ORIGINS: DASH })
    const pre = await t.request(preflight(DASH, 'DELETE'))
    assert.equal(pre.status, 204)
    assert.equal(pre.headers['access-control-allow-origin'], DASH)
    assert.deepEqual(String(pre.headers['access-control-allow-methods']).split(/,\s*/).sort(), ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'])
    assert.equal(pre.headers['access-control-allow-headers'], 'authorization,content-type')
    assert.equal(pre.headers['access-control-max-age'], '600')
    const refused = await t.request(preflight('https://evil.example'))
    assert.equal(refused.headers['access-control-allow-origin'], undefined)
  })

  it('answers preflights without a token, and a refusal carries the headers a page needs to read its detail', async () => {
    t = await buildTestApp(sqlite, {}, { CORS_ORIGINS: DASH, AUTH_TOKENS: 'ops:admin:admin-secret-0123456789' })
    const pre = await t.request(preflight(DASH, 'POST'))
    assert.equal(pre.status, 204)
    assert.equal(pre.headers['access-control-allow-origin'], DASH)
    const refused = await t.request({ method: 'GET', url: '/api/pools', headers: { origin: DASH } })
    assert.equal(refused.status, 401)
    assert.deepEqual(refused.body, { detail: 'Not authenticated' })
    assert.equal(refused.headers['access-control-allow-origin'], DASH)
    const allowed = await t.request({ method: 'GET', url: '/api/pools', headers: { origin: DASH, authorization: 'Bearer admin-secret-0123456789' } })
    assert.equal(allowed.status, 200)
    assert.equal(allowed.headers['access-control-allow-origin'], DASH)
  })

  it('with *, any origin may read, and a service without tokens warns at start that any page may drive it', async () => {
    const lines: string[] = []
    t = await buildTestApp(sqlite, { logger: { level: 'warn', stream: { write: (line) => lines.push(line) } } }, { CORS_ORIGINS: '*' })
    const res = await t.request({ method: 'GET', url: '/api/pools', headers: { origin: 'https://anywhere.example' } })
    assert.equal(res.headers['access-control-allow-origin'], '*')
    const warnings = lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40)
    assert.deepEqual(warnings.map((entry) => entry.msg), ['CORS_ORIGINS is * and no AUTH_TOKENS are set: any web page a user of this machine opens may drive the admin API'])
    await t.close()
    lines.length = 0
    t = await buildTestApp(sqlite, { logger: { level: 'warn', stream: { write: (line) => lines.push(line) } } }, { CORS_ORIGINS: '*', AUTH_TOKENS: 'ops:admin:admin-secret-0123456789' })
    assert.deepEqual(lines, [], 'no warning with tokens')
  })

  it('forwards an OPTIONS that is no preflight through the proxy, with the service\'s CORS headers instead of the provider\'s', async () => {
    up = await upstream((_req, res) => { res.writeHead(200, { allow: 'GET, OPTIONS', 'access-control-allow-origin': 'https://provider.example', vary: 'Accept-Encoding' }); res.end() })
    t = await buildTestApp(sqlite, {}, { CORS_ORIGINS: DASH })
    const pool = await createPool(t, 'proxied')
    await addMember(t, pool, await createProvider(t, 'p', { base_url: up.url }))
    const plain = await t.request({ method: 'OPTIONS', url: `/api/pools/${pool}/proxy/things` })
    assert.equal(plain.status, 200)
    assert.equal(plain.headers.allow, 'GET, OPTIONS')
    assert.equal(up.seen.length, 1)
    assert.equal(up.seen[0]?.method, 'OPTIONS')
    const fromPage = await t.request({ method: 'GET', url: `/api/pools/${pool}/proxy/things`, headers: { origin: DASH } })
    assert.equal(fromPage.headers['access-control-allow-origin'], DASH, 'the provider\'s own Access-Control-Allow-Origin is dropped')
    assert.equal(fromPage.headers.vary, 'Accept-Encoding, Origin', 'the provider\'s Vary keeps Origin, so no cache serves one origin\'s answer to another')
    const pre = await t.request({ ...preflight(DASH, 'GET'), url: `/api/pools/${pool}/proxy/things` })
    assert.equal(pre.status, 204)
    assert.equal(up.seen.length, 2, 'a preflight is answered here, never forwarded')
  })

  it('refuses an origin that a browser never sends (a path, a trailing slash, another scheme), and null, which any site can send', () => {
    for (const value of ['https://dash.example.com/', 'https://dash.example.com/app', 'dash.example.com', 'ftp://dash.example.com', '*, https://a.example', ' , ']) {
      assert.throws(() => loadConfig({ CORS_ORIGINS: value }), (error: unknown) => error instanceof ConfigError && /^CORS_ORIGINS: /.test(error.message), value)
    }
    assert.throws(() => loadConfig({ CORS_ORIGINS: 'https://a.example,null' }), /CORS_ORIGINS: 'null' is the origin any site's sandboxed frame sends/)
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://a.example, http://127.0.0.1:3000' }).corsOrigins, ['https://a.example', 'http://127.0.0.1:3000'])
    assert.equal(loadConfig({ CORS_ORIGINS: ' * ' }).corsOrigins, '*')
    assert.equal(loadConfig({}).corsOrigins, null)
  })
})
