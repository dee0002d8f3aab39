import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildTestApp, sqlite, type TestApp } from './helpers.js'

const SECRETS = { read: 'read-secret-0123456789', client: 'client-secret-0123456789', admin: 'admin-secret-0123456789' }
const AUTH_TOKENS = `grafana:read:${SECRETS.read},app:client:${SECRETS.client},ops:admin:${SECRETS.admin}`

/** Every route and the scope it must require: a route missing here fails the walk below. */
const EXPECTED: Record<string, 'open' | 'read' | 'client' | 'admin'> = {
  'GET /healthz': 'open',
  'HEAD /healthz': 'open',
  'GET /openapi.json': 'read',
  'HEAD /openapi.json': 'read',
  'GET /metrics': 'read',
  'HEAD /metrics': 'read',
  'GET /api/audit': 'admin',
  'HEAD /api/audit': 'admin',
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

/** Swagger UI's own routes: documentation, so `read`. */
const isDocs = (key: string) => / \/docs(\/|$)/.test(key)
/** The proxy answers every method, all of them the data plane. */
const isProxy = (key: string) => key.endsWith(' /api/pools/:pool_id/proxy/*')

describe('authentication and scopes', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp(sqlite, {}, { AUTH_TOKENS }) })
  after(async () => { await t.close() })

  it('decides a scope for every registered route, as the table says', () => {
    const actual = [...t.app.routeScopes.entries()]
    for (const [key, scope] of actual) {
      const expected = isDocs(key) ? 'read' : isProxy(key) ? 'client' : EXPECTED[key]
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
      const url = path.replace(/:\w+/g, '1').replace('*', 'index.html')
      for (const [who, secret] of credentials) {
        const res = await t.app.inject({ method: method as 'GET', url, headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` } })
        const label = `${who} → ${key} (${scope}): ${res.statusCode}`
        if (scope === 'open') {
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

  it('documents the bearer scheme in /openapi.json', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json', headers: { authorization: `Bearer ${SECRETS.read}` } })).body
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
    assert.equal((await t.request({ method: 'GET', url: '/api/providers', headers: admin })).body.total, 3)
  })
})
