import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { buildTestApp, sqlite, type TestApp } from './helpers.js'

/** The spec's "defined but not registered" /api/v1 routes: they must answer 404 and stay out of the OpenAPI document. */
const UNREGISTERED: Array<[string, string]> = [
  ['POST', '/api/v1/webhooks/incoming/github'],
  ['POST', '/api/v1/webhooks/incoming/slack'],
  ['POST', '/api/v1/webhooks/register'],
  ['GET', '/api/v1/webhooks/'],
  ['DELETE', '/api/v1/webhooks/42'],
  ['GET', '/api/v1/monitoring/slo'],
  ['GET', '/api/v1/monitoring/sla'],
  ['POST', '/api/v1/monitoring/alerts'],
  ['POST', '/api/v1/chaos/latency'],
  ['POST', '/api/v1/chaos/failure'],
  ['POST', '/api/v1/chaos/cpu-spike'],
  ['GET', '/api/v1/debug/routes'],
  ['GET', '/api/v1/debug/config'],
  ['GET', '/api/v1/debug/memory'],
  ['POST', '/api/v1/auth/db/register'],
  ['POST', '/api/v1/auth/db/login']
]

const POOL_OPERATIONS: Array<[string, string]> = [
  ['get', '/api/pools'],
  ['post', '/api/pools'],
  ['get', '/api/pools/{pool_id}'],
  ['put', '/api/pools/{pool_id}'],
  ['delete', '/api/pools/{pool_id}'],
  ['post', '/api/pools/{pool_id}/members'],
  ['put', '/api/pools/{pool_id}/members/{provider_id}'],
  ['delete', '/api/pools/{pool_id}/members/{provider_id}'],
  ['post', '/api/pools/{pool_id}/rotate'],
  ['post', '/api/pools/{pool_id}/failover'],
  ['get', '/api/pools/{pool_id}/history']
]

describe('HTTP contract', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp(sqlite) })
  after(async () => { await t.close() })

  it('answers every unregistered /api/v1 route with 404 {"detail":"Not Found"}', async () => {
    assert.equal(UNREGISTERED.length, 16)
    for (const [method, url] of UNREGISTERED) {
      const res = await t.request({ method: method as 'GET', url, payload: method === 'GET' || method === 'DELETE' ? undefined : {} })
      assert.equal(res.status, 404, `${method} ${url}`)
      assert.deepEqual(res.body, { detail: 'Not Found' }, `${method} ${url}`)
    }
  })

  it('answers any other unknown path with 404 {"detail":"Not Found"}', async () => {
    for (const url of ['/api', '/api/poolz', '/index.html', '/api/pools/1/unknown']) {
      const res = await t.request({ method: 'GET', url })
      assert.equal(res.status, 404, url)
      assert.deepEqual(res.body, { detail: 'Not Found' })
    }
  })

  it('serves /openapi.json listing all 11 pool operations and none of the unregistered paths', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' })
    assert.equal(res.status, 200)
    assert.match(res.body.openapi, /^3\./)
    for (const [method, path] of POOL_OPERATIONS) {
      assert.ok(res.body.paths[path]?.[method], `${method} ${path} documented`)
    }
    for (const path of ['/api/providers', '/api/providers/{provider_id}', '/healthz']) assert.ok(res.body.paths[path], path)
    for (const [, path] of UNREGISTERED) {
      const documented = path.replace('/42', '/{webhook_id}')
      assert.equal(res.body.paths[documented], undefined, documented)
    }
    assert.ok(res.body.paths['/api/pools/{pool_id}/history'].get.responses['422'], 'validation errors documented')
  })

  it('serves the Swagger UI at /docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/docs/' })
    assert.equal(res.statusCode, 200)
    assert.match(res.body, /swagger/i)
  })

  it('GET /healthz answers {"status":"ok"} while the database answers, 503 when it does not', async () => {
    assert.deepEqual((await t.request({ method: 'GET', url: '/healthz' })).body, { status: 'ok' })
    const broken = await buildTestApp(sqlite)
    await broken.database.close()
    const res = await broken.request({ method: 'GET', url: '/healthz' })
    assert.equal(res.status, 503)
    assert.deepEqual(res.body, { detail: 'Database is not available' })
    await broken.app.close()
  })

  it('answers an unexpected failure with the operation\'s "Failed to …" sentence and no internals', async () => {
    const broken = await buildTestApp(sqlite)
    await broken.database.close()
    const cases: Array<[string, string, unknown, string]> = [
      ['GET', '/api/pools', undefined, 'Failed to list pools: '],
      ['POST', '/api/pools', { name: 'n', category: 'c' }, 'Failed to create pool: '],
      ['GET', '/api/pools/1', undefined, 'Failed to get pool status: '],
      ['PUT', '/api/pools/1', {}, 'Failed to update pool: '],
      ['DELETE', '/api/pools/1', undefined, 'Failed to delete pool: '],
      ['POST', '/api/pools/1/members', { provider_id: 1 }, 'Failed to add pool member: '],
      ['PUT', '/api/pools/1/members/1', { weight: 2 }, 'Failed to update pool member: '],
      ['DELETE', '/api/pools/1/members/1', undefined, 'Failed to remove pool member: '],
      ['POST', '/api/pools/1/rotate', undefined, 'Failed to trigger rotation: '],
      ['POST', '/api/pools/1/failover', { failed_provider_id: 1 }, 'Failed to trigger failover: '],
      ['GET', '/api/pools/1/history', undefined, 'Failed to get rotation history: ']
    ]
    for (const [method, url, payload, prefix] of cases) {
      const res = await broken.request({ method: method as 'GET', url, payload: payload as object, headers: { 'x-request-id': 'req-42' } })
      assert.equal(res.status, 500, `${method} ${url}`)
      assert.ok(res.body.detail.startsWith(prefix), res.body.detail)
      assert.match(res.body.detail, /request id req-42/)
      assert.doesNotMatch(res.body.detail, /select|insert|sqlite|connection|at .*\.ts/i)
    }
    await broken.app.close()
  })

  it('echoes a reasonable x-request-id and makes one up otherwise', async () => {
    const sent = await t.request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'abc-123' } })
    assert.equal(sent.headers['x-request-id'], 'abc-123')
    const weird = await t.request({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'no spaces <allowed>' } })
    assert.match(String(weird.headers['x-request-id']), /^[0-9a-f-]{36}$/)
  })

  it('writes the request id into every log line about the request', async () => {
    const lines: string[] = []
    const logged = await buildTestApp(sqlite, { logger: { level: 'info', stream: { write: (line) => { lines.push(line) } } } })
    try {
      const res = await logged.request({ method: 'POST', url: '/api/pools', headers: { 'x-request-id': 'trace-77' }, payload: { name: 'p', category: 'c' } })
      assert.equal(res.status, 200)
      const about = lines.map((line) => JSON.parse(line)).filter((entry) => entry.req !== undefined || entry.res !== undefined)
      assert.ok(about.length >= 2, `expected request and response log lines, got ${lines.join('')}`)
      for (const entry of about) assert.equal(entry.reqId, 'trace-77', JSON.stringify(entry))
    } finally {
      await logged.close()
    }
  })

  it('answers 415 for a body that is not JSON', async () => {
    const res = await t.request({ method: 'POST', url: '/api/pools', headers: { 'content-type': 'text/plain' }, payload: 'name=x' })
    assert.equal(res.status, 415)
    assert.deepEqual(res.body, { detail: 'Unsupported media type: send application/json' })
  })

  it('refuses prototype-poisoning JSON with 422, as JSON that does not parse (at the key)', async () => {
    for (const [payload, position] of [
      ['{"name":"x","category":"y","__proto__":{"admin":true}}', 27],
      ['{"name":"x","category":"y","\\u005f_proto__":{"admin":true}}', 27],
      ['{"name":"x","category":"y","constructor":{"prototype":{"admin":true}}}', 42]
    ] as const) {
      const res = await t.request({ method: 'POST', url: '/api/pools', headers: { 'content-type': 'application/json' }, payload })
      assert.equal(res.status, 422, payload)
      assert.deepEqual(res.body, {
        detail: [{ type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error: 'Object contains forbidden prototype property' } }]
      }, payload)
    }
  })
})
