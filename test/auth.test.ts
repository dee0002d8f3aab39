import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildTestApp, sqlite, type TestApp } from './helpers.js'

const SECRETS = { read: 'read-secret-0123456789', client: 'client-secret-0123456789', admin: 'admin-secret-0123456789' }
const AUTH_TOKENS = `grafana:read:${SECRETS.read},app:client:${SECRETS.client},ops:admin:${SECRETS.admin}`

/** Every route and the scope it must require: a route missing here fails the walk below. */
const EXPECTED: Record<string, 'open' | 'read' | 'client' | 'admin'> = {
  'GET /healthz': 'open',
  'HEAD /healthz': 'open',
  'GET /openapi.json': 'open',
  'HEAD /openapi.json': 'open',
  'GET /metrics': 'read',
  'HEAD /metrics': 'read',
  'GET /api/audit': 'admin',
  'HEAD /api/audit': 'admin',
  'GET /api/events': 'read',
  'HEAD /api/events': 'read',
  // Answers without a header too (optionalAuth): the dashboard's first question.
  'GET /api/session': 'read',
  'HEAD /api/session': 'read',
  'GET /api/chunk-models': 'read',
  'HEAD /api/chunk-models': 'read',
  // The dashboard's page and files hold no data; / redirects to it.
  'GET /': 'open',
  'HEAD /': 'open',
  'GET /ui': 'open',
  'HEAD /ui': 'open',
  'GET /ui/': 'open',
  'HEAD /ui/': 'open',
  'GET /ui/assets/*': 'open',
  'HEAD /ui/assets/*': 'open',
  'POST /api/config/plan': 'admin',
  'POST /api/config/apply': 'admin',
  'GET /api/config/export': 'admin',
  'HEAD /api/config/export': 'admin',
  'GET /api/providers': 'read',
  'HEAD /api/providers': 'read',
  'POST /api/providers': 'admin',
  'GET /api/providers/:provider_id': 'read',
  'HEAD /api/providers/:provider_id': 'read',
  'PUT /api/providers/:provider_id': 'admin',
  'DELETE /api/providers/:provider_id': 'admin',
  'DELETE /api/providers/:provider_id/rate_limit': 'admin',
  'GET /api/providers/:provider_id/refusals': 'read',
  'HEAD /api/providers/:provider_id/refusals': 'read',
  'DELETE /api/providers/:provider_id/refusals/:resource': 'admin',
  'GET /api/pools': 'read',
  'HEAD /api/pools': 'read',
  'POST /api/pools': 'admin',
  'GET /api/pools/:pool_id': 'read',
  'HEAD /api/pools/:pool_id': 'read',
  'PUT /api/pools/:pool_id': 'admin',
  'DELETE /api/pools/:pool_id': 'admin',
  'DELETE /api/pools/:pool_id/cache': 'admin',
  'POST /api/pools/:pool_id/members': 'admin',
  'PUT /api/pools/:pool_id/members/:provider_id': 'admin',
  'DELETE /api/pools/:pool_id/members/:provider_id': 'admin',
  'POST /api/pools/:pool_id/rotate': 'client',
  'POST /api/pools/:pool_id/failover': 'client',
  'POST /api/pools/:pool_id/report': 'client',
  'GET /api/pools/:pool_id/history': 'read',
  'HEAD /api/pools/:pool_id/history': 'read',
  'GET /api/pools/:pool_id/next': 'read',
  'HEAD /api/pools/:pool_id/next': 'read',
  'GET /api/pools/:pool_id/activity': 'read',
  'HEAD /api/pools/:pool_id/activity': 'read',
  'GET /api/activity': 'read',
  'HEAD /api/activity': 'read',
  'POST /api/chunks': 'admin',
  'POST /api/chunks/batch': 'admin',
  'POST /api/chunks/search': 'client',
  'GET /api/chunks': 'read',
  'HEAD /api/chunks': 'read',
  'GET /api/chunks/:chunk_id': 'read',
  'HEAD /api/chunks/:chunk_id': 'read',
  'PUT /api/chunks/:chunk_id': 'admin',
  'DELETE /api/chunks/:chunk_id': 'admin',
  'GET /api/v1/status/endpoints': 'read',
  'HEAD /api/v1/status/endpoints': 'read',
  'POST /api/v1/investigations/start': 'client',
  'POST /graphql': 'client',
  'POST /api/v1/agents/:agent_name': 'client',
  'GET /api/v1/ws/chat': 'read',
  'HEAD /api/v1/ws/chat': 'read'
}

/** Swagger UI's own routes: documentation, public by default. */
const isDocs = (key: string) => / \/docs(\/|$)/.test(key)
/** The proxy answers every method, all of them the data plane. */
const isProxy = (key: string) => key.endsWith(' /api/pools/:pool_id/proxy/*') || key.endsWith(' /p/:pool_name/*')

describe('authentication and scopes', () => {
  let t: TestApp
  // The walk below fails authentication on purpose ~120 times from one address.
  before(async () => { t = await buildTestApp(sqlite, {}, { AUTH_TOKENS, AUTH_FAILURE_LIMIT: 'off' }) })
  after(async () => { await t.close() })

  it('decides a scope for every registered route, as the table says', () => {
    const actual = [...t.app.routeScopes.entries()]
    for (const [key, scope] of actual) {
      const expected = isDocs(key) ? 'open' : isProxy(key) ? 'client' : EXPECTED[key]
      assert.ok(expected !== undefined, `route ${key} has no scope decision in this test's table`)
      assert.equal(scope, expected, key)
    }
    for (const key of Object.keys(EXPECTED)) assert.ok(t.app.routeScopes.has(key), `${key} is not registered`)
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']) assert.equal(t.app.routeScopes.get(`${method} /api/pools/:pool_id/proxy/*`), 'client', method)
  })

  it('answers every route by the credential\'s scope: 401 without or with a bad token, 403 below the scope', async () => {
    const rank = { open: 0, read: 1, client: 2, admin: 3 }
    const credentials: Array<['none' | 'bad' | 'read' | 'client' | 'admin', string | undefined]> = [
      ['none', undefined], ['bad', 'wrong-secret-0123456789'], ['read', SECRETS.read], ['client', SECRETS.client], ['admin', SECRETS.admin]
    ]
    for (const [key, scope] of t.app.routeScopes) {
      const [method, path] = key.split(' ') as [string, string]
      // The event stream never ends: an invalid cursor makes it answer (422) once its scope is decided.
      const url = path.replace(/:\w+/g, '1').replace('*', 'index.html') + (path === '/api/events' ? '?last_event_id=none' : '')
      for (const [who, secret] of credentials) {
        const res = await t.app.inject({ method: method as 'GET', url, headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` } })
        const label = `${who} → ${key} (${scope}): ${res.statusCode}`
        if (scope === 'open' || (who === 'none' && path === '/api/session')) {
          assert.ok(res.statusCode !== 401 && res.statusCode !== 403, label)
        } else if (who === 'none' || who === 'bad') {
          assert.equal(res.statusCode, 401, label)
        } else if (rank[who] < rank[scope]) {
          assert.equal(res.statusCode, 403, label)
        } else {
          assert.ok(res.statusCode !== 401 && res.statusCode !== 403, label)
        }
      }
    }
  })

  it('answers 401 with FastAPI\'s body and WWW-Authenticate, 403 with its body', async () => {
    const missing = await t.request({ method: 'GET', url: '/api/pools' })
    assert.equal(missing.status, 401)
    assert.deepEqual(missing.body, { detail: 'Not authenticated' })
    assert.equal(missing.headers['www-authenticate'], 'Bearer')
    const basic = await t.request({ method: 'GET', url: '/api/pools', headers: { authorization: `Basic ${SECRETS.admin}` } })
    assert.equal(basic.status, 401)
    const forbidden = await t.request({ method: 'POST', url: '/api/pools', headers: { authorization: `Bearer ${SECRETS.client}` }, payload: { name: 'x', category: 'y' } })
    assert.equal(forbidden.status, 403)
    assert.deepEqual(forbidden.body, { detail: 'Not enough permissions' })
    const list = await t.request({ method: 'GET', url: '/api/pools', headers: { authorization: `Bearer ${SECRETS.read}` } })
    assert.equal(list.body.total, 0, 'the forbidden create changed nothing')
  })

  it('keeps /healthz open and unknown paths 404', async () => {
    assert.equal((await t.request({ method: 'GET', url: '/healthz' })).status, 200)
    assert.deepEqual((await t.request({ method: 'POST', url: '/api/v1/debug/config' })).body, { detail: 'Not Found' })
  })

  it('takes the Bearer scheme in any case (RFC 9110), and nothing but Bearer', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
      const res = await t.request({ method: 'GET', url: '/api/pools', headers: { authorization: `${scheme} ${SECRETS.read}` } })
      assert.equal(res.status, 200, scheme)
    }
    for (const header of [`Bearer${SECRETS.read}`, `Bearers ${SECRETS.read}`, SECRETS.read, 'Bearer ']) {
      assert.equal((await t.request({ method: 'GET', url: '/api/pools', headers: { authorization: header } })).status, 401, header)
    }
  })

  it('serves /openapi.json and /docs without a token, so a browser can open the API docs', async () => {
    const doc = await t.request({ method: 'GET', url: '/openapi.json' })
    assert.equal(doc.status, 200)
    assert.equal(doc.body.openapi.startsWith('3.'), true)
    const ui = await t.app.inject({ method: 'GET', url: '/docs/' })
    assert.equal(ui.statusCode, 200)
    assert.match(ui.headers['content-type'] as string, /text\/html/)
  })

  it('documents the bearer scheme in /openapi.json', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).body
    assert.equal(doc.components.securitySchemes.bearerAuth.scheme, 'bearer')
    assert.deepEqual(doc.security, [{ bearerAuth: [] }])
  })

  it('never puts a secret in a response', async () => {
    for (const url of ['/api/audit', '/openapi.json', '/metrics', '/api/v1/status/endpoints']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${SECRETS.admin}` } })
      for (const secret of Object.values(SECRETS)) assert.ok(!res.body.includes(secret), `${url} leaks a secret`)
    }
  })
})

describe('PUBLIC_DOCS=false', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp(sqlite, {}, { AUTH_TOKENS, PUBLIC_DOCS: 'false' }) })
  after(async () => { await t.close() })

  it('puts /openapi.json and /docs behind the read scope', async () => {
    for (const url of ['/openapi.json', '/docs/', '/docs/json']) {
      assert.equal((await t.request({ method: 'GET', url })).status, 401, url)
      assert.equal((await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${SECRETS.read}` } })).statusCode, 200, url)
    }
    assert.equal(t.app.routeScopes.get('GET /openapi.json'), 'read')
  })
})

describe('failed authentication limit', () => {
  let t: TestApp
  let clock = Date.parse('2026-11-23T10:00:00.000Z')
  before(async () => { t = await buildTestApp(sqlite, { now: () => new Date(clock) }, { AUTH_TOKENS, AUTH_FAILURE_LIMIT: '5' }) })
  after(async () => { await t.close() })
  const from = (remoteAddress: string, secret?: string) => ({
    method: 'GET' as const, url: '/api/pools', remoteAddress, headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` }
  })

  it('answers 429 with Retry-After to an address past AUTH_FAILURE_LIMIT failures a minute, even with a good token, until the minute ends', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await t.request(from('10.0.0.7', `guess-${i}-0123456789abcdef`))).status, 401)
    const limited = await t.request(from('10.0.0.7', SECRETS.read))
    assert.equal(limited.status, 429)
    assert.deepEqual(limited.body, { detail: 'Too many failed authentications from this address; retry in 60 s' })
    assert.equal(limited.headers['retry-after'], '60')
    // Other addresses are not affected, and valid requests never count.
    assert.equal((await t.request(from('10.0.0.8', SECRETS.read))).status, 200)
    for (let i = 0; i < 10; i++) assert.equal((await t.request(from('10.0.0.9', SECRETS.read))).status, 200)
    clock += 45_000
    assert.equal((await t.request(from('10.0.0.7', SECRETS.read))).headers['retry-after'], '15')
    clock += 15_000
    assert.equal((await t.request(from('10.0.0.7', SECRETS.read))).status, 200)
  })

  it('leaves open routes alone', async () => {
    for (let i = 0; i < 6; i++) await t.request(from('10.0.0.10', 'wrong-0123456789abcdef'))
    assert.equal((await t.request({ method: 'GET', url: '/healthz', remoteAddress: '10.0.0.10' })).status, 200)
  })
})

describe('secrets in logs', () => {
  it('masks a token sent in the query string in every log line', async () => {
    const lines: string[] = []
    const t = await buildTestApp(sqlite, { logger: { level: 'info', stream: { write: (line: string) => { lines.push(line) } } } }, { AUTH_TOKENS })
    try {
      for (const query of [`token=${SECRETS.admin}`, `access_token=${SECRETS.admin}&x=1`, `api_key=${SECRETS.admin}`]) {
        const res = await t.request({ method: 'GET', url: `/api/pools?${query}` })
        assert.equal(res.status, 401, query)
      }
      assert.ok(lines.length >= 3)
      assert.ok(lines.some((line) => line.includes('/api/pools?access_token=***&x=1')), lines.join('\n'))
      for (const line of lines) assert.ok(!line.includes(SECRETS.admin), line)
    } finally {
      await t.close()
    }
  })
})

describe('admin rate limit off by default', () => {
  it('lets a script create 300 providers without a 429', async () => {
    const t = await buildTestApp(sqlite)
    try {
      const statuses = new Set<number>()
      for (let i = 0; i < 300; i++) statuses.add((await t.request({ method: 'POST', url: '/api/providers', payload: { name: `p${i}` } })).status)
      assert.deepEqual([...statuses], [200])
    } finally {
      await t.close()
    }
  })
})

describe('admin rate limit', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp(sqlite, {}, { AUTH_TOKENS, ADMIN_RATE_LIMIT: '3' }) })
  after(async () => { await t.close() })

  it('answers 429 with Retry-After past the per-token limit on admin routes only', async () => {
    const admin = { authorization: `Bearer ${SECRETS.admin}` }
    for (let i = 0; i < 3; i++) {
      assert.equal((await t.request({ method: 'POST', url: '/api/providers', headers: admin, payload: { name: `p${i}` } })).status, 200)
    }
    const limited = await t.request({ method: 'POST', url: '/api/providers', headers: admin, payload: { name: 'p4' } })
    assert.equal(limited.status, 429)
    assert.match(limited.body.detail, /^Rate limit exceeded: at most 3 admin requests per minute/)
    assert.ok(Number(limited.headers['retry-after']) > 0)
    for (let i = 0; i < 5; i++) assert.equal((await t.request({ method: 'GET', url: '/api/providers', headers: admin })).status, 200)
    assert.equal((await t.request({ method: 'GET', url: '/api/providers', headers: admin })).body.length, 3)
  })
})
