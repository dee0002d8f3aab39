/**
 * Serving the dashboard (without a browser): the page and its files are open and
 * come with a strict CSP, an ETag that revalidates, gzip when asked; the vendored
 * libraries import each other by served path. And the two small routes the page
 * relies on: /api/session and /api/chunk-models.
 */
import assert from 'node:assert/strict'
import { gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import { buildTestApp, describeOn, dialects, sqlite, type TestApp } from '../../test/helpers.js'

const ADMIN = 'admin-secret-0123456789'
const READER = 'reader-secret-0123456789'

describe('the dashboard\'s files', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp(sqlite, {}, { AUTH_TOKENS: `ops:admin:${ADMIN},grafana:read:${READER}`, AUTH_FAILURE_LIMIT: 'off' }) })
  after(async () => { await t.close() })

  it('serves the page without a token, with a CSP that allows only this origin', async () => {
    const page = await t.app.inject({ url: '/ui' })
    assert.equal(page.statusCode, 200)
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8')
    assert.match(page.body, /<script type="module" src="\/ui\/assets\/app\.js"><\/script>/)
    const csp = String(page.headers['content-security-policy'])
    assert.match(csp, /default-src 'none'/)
    assert.match(csp, /script-src 'self'(;|$)/)
    assert.match(csp, /connect-src 'self'/)
    assert.match(csp, /frame-ancestors 'none'/)
    assert.equal(page.headers['x-content-type-options'], 'nosniff')
    const slash = await t.app.inject({ url: '/ui/' })
    assert.equal(slash.statusCode, 301)
    assert.equal(slash.headers.location, '/ui')
  })

  it('redirects / to the dashboard (302, GET and HEAD), without a token', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const root = await t.app.inject({ method, url: '/' })
      assert.deepEqual([root.statusCode, root.headers.location], [302, '/ui'], method)
    }
    assert.equal((await t.app.inject({ method: 'POST', url: '/' })).statusCode, 404)
  })

  it('answers an unchanged file with 304, and gzips when asked', async () => {
    const first = await t.app.inject({ url: '/ui/assets/vendor/uplot.js' })
    assert.equal(first.statusCode, 200)
    assert.equal(first.headers['content-type'], 'text/javascript; charset=utf-8')
    assert.equal(first.headers['cache-control'], 'no-cache')
    const etag = String(first.headers.etag)
    const again = await t.app.inject({ url: '/ui/assets/vendor/uplot.js', headers: { 'if-none-match': `W/"other", ${etag}` } })
    assert.equal(again.statusCode, 304)
    assert.equal(again.body, '')
    const zipped = await t.app.inject({ url: '/ui/assets/vendor/uplot.js', headers: { 'accept-encoding': 'br, gzip' } })
    assert.equal(zipped.headers['content-encoding'], 'gzip')
    assert.ok(zipped.rawPayload.length < first.rawPayload.length / 2)
    assert.equal(gunzipSync(zipped.rawPayload).toString(), first.body)
    assert.equal(zipped.headers.vary, 'accept-encoding')
    // Each representation has its own strong ETag.
    assert.notEqual(zipped.headers.etag, etag)
    assert.equal((await t.app.inject({ url: '/ui/assets/vendor/uplot.js', headers: { 'accept-encoding': 'gzip', 'if-none-match': etag } })).statusCode, 200)
    assert.equal((await t.app.inject({ url: '/ui/assets/vendor/uplot.js', headers: { 'accept-encoding': 'gzip', 'if-none-match': String(zipped.headers.etag) } })).statusCode, 304)
  })

  it('rewrites the libraries\' bare imports to served files, and serves nothing else', async () => {
    const hooks = await t.app.inject({ url: '/ui/assets/vendor/hooks.js' })
    assert.match(hooks.body, /from"\.\/preact\.js"/)
    assert.doesNotMatch(hooks.body, /from\s*["']preact["']/)
    assert.doesNotMatch(hooks.body, /sourceMappingURL/)
    for (const url of ['/ui/assets/nope.js', '/ui/assets/../ui.routes.ts', '/ui/assets/%2e%2e/assets.ts', '/ui/assets/vendor/preact.js.map']) {
      const response = await t.request({ url })
      assert.equal(response.status, 404, url)
      assert.deepEqual(response.body, { detail: 'Not Found' })
    }
  })
})

describe('GET /api/session', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp(sqlite, {}, { AUTH_TOKENS: `ops:admin:${ADMIN},grafana:read:${READER}`, AUTH_FAILURE_LIMIT: '2' }) })
  after(async () => { await t.close() })

  it('says a token is required when none is sent, and who a token is', async () => {
    assert.deepEqual((await t.request({ url: '/api/session' })).body, { actor: 'anonymous', scope: null, tokens_required: true })
    assert.deepEqual((await t.request({ url: '/api/session', headers: { authorization: `Bearer ${READER}` } })).body, { actor: 'grafana', scope: 'read', tokens_required: true })
    assert.deepEqual((await t.request({ url: '/api/session', headers: { authorization: `Bearer ${ADMIN}` } })).body, { actor: 'ops', scope: 'admin', tokens_required: true })
  })

  it('refuses a wrong token as every route does, and counts it as a failed authentication', async () => {
    const wrong = await t.request({ url: '/api/session', headers: { authorization: 'Bearer nope', 'x-forwarded-for': '10.0.0.9' } })
    assert.equal(wrong.status, 401)
    assert.deepEqual(wrong.body, { detail: 'Not authenticated' })
    assert.equal(wrong.headers['www-authenticate'], 'Bearer')
    await t.request({ url: '/api/session', headers: { authorization: 'Bearer nope' } })
    const limited = await t.request({ url: '/api/session', headers: { authorization: 'Bearer nope' } })
    assert.equal(limited.status, 429)
  })
})

describe('GET /api/session without tokens', () => {
  let t: TestApp
  before(async () => { t = await buildTestApp(sqlite) })
  after(async () => { await t.close() })

  it('gives everyone the admin scope', async () => {
    assert.deepEqual((await t.request({ url: '/api/session' })).body, { actor: 'anonymous', scope: 'admin', tokens_required: false })
  })
})

for (const dialect of dialects) {
  describeOn(dialect, 'GET /api/chunk-models', () => {
    let t: TestApp
    before(async () => { t = await buildTestApp(dialect) })
    after(async () => { await t.close() })

    const chunk = (id: string, model: string, embedding: number[]) => ({
      chunk_id: id,
      content: id,
      embedding,
      embedding_model: model,
      embedding_dim: embedding.length,
      metadata: { parent_id: 'p', source: 's', task: 't', sequence: 0, total_chunks: 1, content_type: 'text' }
    })

    it('lists the models holding chunks by name, with dimension and count; a model emptied is gone', async () => {
      assert.deepEqual((await t.request({ url: '/api/chunk-models' })).body, { models: [], total: 0 })
      for (const body of [chunk('a', 'mini', [1, 0, 0]), chunk('b', 'mini', [0, 1, 0]), chunk('c', 'big', [1, 0, 0, 0, 0]), chunk('d', 'gone', [1, 2])]) {
        assert.equal((await t.request({ method: 'POST', url: '/api/chunks', payload: body })).status, 200)
      }
      assert.equal((await t.request({ method: 'DELETE', url: '/api/chunks/d' })).status, 200)
      assert.deepEqual((await t.request({ url: '/api/chunk-models' })).body, {
        models: [{ embedding_model: 'big', embedding_dim: 5, chunk_count: 1 }, { embedding_model: 'mini', embedding_dim: 3, chunk_count: 2 }],
        total: 2
      })
      // Not a chunk id: a chunk may be called `models`.
      assert.equal((await t.request({ method: 'POST', url: '/api/chunks', payload: chunk('models', 'mini', [0, 0, 1]) })).status, 200)
      assert.equal((await t.request({ url: '/api/chunks/models' })).body.chunk_id, 'models')
    })
  })
}
