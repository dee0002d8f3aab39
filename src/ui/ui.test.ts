/**
 * Serving the dashboard (without a browser): the page and its files are open and
 * come with a strict CSP, an ETag that revalidates, gzip when asked; the vendored
 * libraries import each other by served path. And the two small routes the page
 * relies on: /api/session and /api/chunk-models. Then, in Chromium against a real
 * service process, what issue #27 added to the page: a pool's cache hit ratio and
 * quota saved, and members out for a rate limit or a rejected key told apart.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { browserSkip, collectErrors, launchBrowser, screenshot } from '../../test/browser.js'
import { buildTestApp, describeOn, dialects, sqlite, type TestApp } from '../../test/helpers.js'
import { startServer, type ServerProcess } from '../../test/server-process.js'
import { json, upstream, type Upstream } from '../../test/upstreams.js'
import { openClient } from '../../test/ws-clients.js'
import { echoUpstream } from '../../test/ws-upstreams.js'

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

describe('the dashboard in Chromium: the cache and the providers\' own signals', { skip: browserSkip() }, () => {
  let dir: string
  let server: ServerProcess
  let provider: Upstream
  let browser: Browser
  const errors: string[] = []
  const ids = { quotes: 0, keyed: 0, busy: 0, cached: 0, signals: 0 }

  /** Calls the service's API and returns the JSON answer; anything but 2xx fails the test. */
  async function call (method: string, path: string, body?: unknown): Promise<any> {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body)
    })
    const answer = await response.json()
    assert.ok(response.ok, `${method} ${path} → ${response.status} ${JSON.stringify(answer)}`)
    return answer
  }

  async function open (path: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const mine = collectErrors(page)
    page.on('close', () => { errors.push(...mine) })
    await page.goto(`${server.url}/ui${path}`)
    await page.locator('main h1').first().waitFor()
    return page
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sourcepool-ui-signals-'))
    provider = await upstream(json(200, { price: 101.5 }))
    server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'ui.db')}` })
    ids.quotes = (await call('POST', '/api/providers', { name: 'quotes-a', base_url: provider.url })).provider_id
    ids.keyed = (await call('POST', '/api/providers', { name: 'keyed-b', base_url: provider.url, auth_headers: { 'x-api-key': 'revoked' }, health_check: { path: '/status', interval_s: 3600 } })).provider_id
    ids.busy = (await call('POST', '/api/providers', { name: 'busy-c', base_url: provider.url })).provider_id
    ids.cached = (await call('POST', '/api/pools', { name: 'cached', category: 'market', cache_ttl_seconds: 60 })).pool_id
    ids.signals = (await call('POST', '/api/pools', { name: 'signals', category: 'market', protocol: 'evm' })).pool_id
    await call('POST', `/api/pools/${ids.cached}/members`, { provider_id: ids.quotes })
    for (const id of [ids.keyed, ids.busy]) await call('POST', `/api/pools/${ids.signals}/members`, { provider_id: id })
    // One MISS, then two HITs: a hit ratio of 2/3, two upstream calls saved.
    const results: string[] = []
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.url}/api/pools/${ids.cached}/proxy/quote?symbol=ACME`)
      await res.arrayBuffer()
      results.push(res.headers.get('x-sourcepool-cache') ?? '')
    }
    assert.deepEqual(results, ['MISS', 'HIT', 'HIT'])
    assert.equal(provider.seen.filter((s) => s.url !== '/status').length, 1, 'one upstream call for three (keyed-b\'s health check aside)')
    // Our key rejected (a 401 reported on the health check's path: on any other path it is a refusal of
    // that path alone), and the provider's own rate limit (a 429 with Retry-After).
    await call('POST', `/api/pools/${ids.signals}/report`, { provider_id: ids.keyed, success: false, status_code: 401, path: '/status' })
    await call('POST', `/api/pools/${ids.signals}/report`, { provider_id: ids.busy, success: false, status_code: 429, retry_after_s: 600 })
    browser = await launchBrowser()
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
    await provider?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('shows a cached pool\'s hit ratio and quota saved on its card and its page; a pool without a cache shows none', async () => {
    const status = await call('GET', `/api/pools/${ids.cached}`)
    assert.deepEqual([status.cache.hits, status.cache.misses, status.cache.stale, status.cache.hit_ratio], [2, 1, 0, 0.6667])
    const overview = await open('#/')
    const card = overview.locator(`.card[data-pool="${ids.cached}"]`)
    await card.locator('.cache-ratio').waitFor()
    assert.deepEqual(await card.locator('[data-cache]').allInnerTexts(), ['Cache hits\n66.7 %', 'Quota saved\n2 calls'])
    assert.equal(await overview.locator(`.card[data-pool="${ids.signals}"] [data-cache]`).count(), 0)
    await overview.close()
    const page = await open(`#/pools/${ids.cached}`)
    await page.locator('[data-cache="ratio"]').waitFor()
    assert.equal(await page.locator('[data-cache="ratio"] dd').textContent(), '66.7 % (2 of 3)')
    assert.equal(await page.locator('[data-cache="saved"] dd').textContent(), '2 calls')
    assert.match(await page.locator('[data-cache="policy"] dd').textContent() ?? '', /^60 s · 1 entry$/)
    // An http pool says nothing of its protocol; an RPC pool says what its requests are.
    assert.equal(await page.locator('[data-fact="protocol"]').count(), 0)
    // Nor of nodes' heads (an evm pool's members show theirs).
    assert.equal(await page.locator('[data-column="head"]').count(), 0)
    await screenshot(page, 'pool-cache')
    await page.close()
  })

  it('shows a member whose key was rejected and one rate limited in their own words and colours, not as a cooldown', async () => {
    const overview = await open('#/')
    const dot = (provider: number) => overview.locator(`.card[data-pool="${ids.signals}"] .dot[data-provider="${provider}"]`)
    await dot(ids.keyed).waitFor()
    assert.deepEqual([await dot(ids.keyed).getAttribute('data-cooldown'), await dot(ids.busy).getAttribute('data-cooldown')], ['credentials_rejected', 'rate_limited'])
    assert.match(await dot(ids.keyed).getAttribute('aria-label') ?? '', /^keyed-b: key rejected/)
    assert.match(await overview.locator(`.card[data-pool="${ids.signals}"] .card-alerts`).getAttribute('title') ?? '', /keyed-b: key rejected/)
    await screenshot(overview, 'overview-signals')
    await overview.close()

    const page = await open(`#/pools/${ids.signals}`)
    const health = (provider: number) => page.locator(`tr[data-member="${provider}"] .health`)
    await health(ids.keyed).waitFor()
    assert.equal(await page.locator('[data-fact="protocol"] dd').textContent(), 'JSON-RPC (Ethereum)')
    // Each node's head, not known while the pool has had no call (its nodes are asked only while it is used).
    assert.equal(await page.locator('[data-column="head"]').count(), 1)
    assert.equal((await page.locator(`tr[data-member="${ids.keyed}"] [data-label="Head"]`).textContent())?.trim(), '—')
    assert.equal(await health(ids.keyed).getAttribute('data-state'), 'cooling_down')
    assert.equal(await health(ids.keyed).locator('.tag').textContent(), 'key rejected')
    assert.match(await health(ids.busy).locator('.tag').textContent() ?? '', /^rate limited until \d{1,2}:\d{2}:\d{2}/)
    const colours = await Promise.all([ids.keyed, ids.busy].map(async (id) => await health(id).locator('.dot').evaluate((el) => getComputedStyle(el).backgroundColor)))
    // A generic cooldown's dot, for comparison: a failure report with no status.
    await call('POST', `/api/pools/${ids.cached}/report`, { provider_id: ids.quotes, success: false })
    await call('POST', `/api/pools/${ids.cached}/report`, { provider_id: ids.quotes, success: false })
    await call('POST', `/api/pools/${ids.cached}/report`, { provider_id: ids.quotes, success: false })
    const cooling = await open(`#/pools/${ids.cached}`)
    const generic = cooling.locator(`tr[data-member="${ids.quotes}"] .health[data-state="cooling_down"]`)
    await generic.waitFor()
    assert.equal(await generic.getAttribute('data-cooldown'), null)
    colours.push(await generic.locator('.dot').evaluate((el) => getComputedStyle(el).backgroundColor))
    assert.equal(new Set(colours).size, 3, `three different colours: ${colours.join(', ')}`)
    await cooling.close()
    // The timeline says what happened in the same words.
    await page.locator('.timeline li', { hasText: 'keyed-b: key rejected (HTTP 401)' }).waitFor()
    assert.match(await page.locator('.timeline li', { hasText: 'busy-c' }).textContent() ?? '', /busy-c rate limited until \d{1,2}:\d{2}:\d{2}/)
    await screenshot(page, 'pool-signals')
    // New credentials end the cooldown at once: the page follows.
    await call('PUT', `/api/providers/${ids.keyed}`, { auth_headers: { 'x-api-key': 'new' } })
    await page.locator(`tr[data-member="${ids.keyed}"] .health[data-state="healthy"]`).waitFor({ timeout: 5000 })
    assert.equal(await health(ids.keyed).getAttribute('data-cooldown'), null)
    await page.close()
  })

  it('shows a pool\'s open streams, upstream connections and failovers once it has had streams; a pool without shows none', async () => {
    const echo = await echoUpstream()
    try {
      const provider = (await call('POST', '/api/providers', { name: 'echo-d', base_url: echo.url.replace('ws:', 'http:') })).provider_id
      const pool = (await call('POST', '/api/pools', { name: 'streamed', category: 'market' })).pool_id
      await call('POST', `/api/pools/${pool}/members`, { provider_id: provider })
      const clients = await Promise.all([1, 2].map(async () => await openClient(`${server.url.replace('http:', 'ws:')}/p/streamed/feed`)))
      const page = await open(`#/pools/${pool}`)
      await page.locator('[data-fact="streams"]').waitFor()
      assert.equal(await page.locator('[data-fact="streams"] dd').textContent(), '2 open · 1 upstream · 0 failovers')
      await page.close()
      for (const client of clients) client.ws.close()
      const cached = await open(`#/pools/${ids.cached}`)
      await cached.locator('[data-cache="ratio"]').waitFor()
      assert.equal(await cached.locator('[data-fact="streams"]').count(), 0)
      await cached.close()
    } finally {
      await echo.close()
    }
  })

  it('passes axe-core\'s WCAG 2 A and AA checks with the new badges and cache facts shown', async () => {
    await call('POST', `/api/pools/${ids.signals}/report`, { provider_id: ids.keyed, success: false, status_code: 402 })
    const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
    // axe is injected as a script, which the page's CSP would (rightly) refuse.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } })
    try {
      for (const path of ['#/', `#/pools/${ids.signals}`, `#/pools/${ids.cached}`]) {
        const page = await context.newPage()
        await page.goto(`${server.url}/ui${path}`)
        await page.locator('main h1').first().waitFor()
        await page.locator('[data-cooldown], [data-cache]').first().waitFor()
        await page.addScriptTag({ content: axe })
        const violations = await page.evaluate(async () => {
          const result = await (window as unknown as { axe: { run: (options: unknown) => Promise<{ violations: Array<{ id: string, nodes: Array<{ target: unknown }> }> }> } })
            .axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
          return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`)
        })
        assert.deepEqual(violations, [], path)
        await page.close()
      }
    } finally {
      await context.close()
    }
  })

  it('logged no console error', () => {
    assert.deepEqual(errors, [])
  })
})
