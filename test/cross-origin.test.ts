/**
 * A page on another origin drives the API in a real Chromium, as the original
 * service's pool management page does from its own host: it fills the provider
 * picker from `GET /api/providers`, creates a pool, adds a member, rotates, draws
 * the pool card from the status record (current provider, success rate with
 * `toFixed(1)`, the rate-limit line) and deletes the pool. With CORS_ORIGINS
 * naming the page's origin every call goes through (preflights included); from
 * an origin not listed the browser refuses to hand the page any answer.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser } from 'playwright-core'
import { browserSkip, collectErrors, launchBrowser, screenshot } from './browser.js'
import { http, startServer, type ServerProcess } from './server-process.js'
import { upstream, type Upstream } from './upstreams.js'

const skip = browserSkip()

/**
 * The page another host serves: plain JavaScript, every step the original pool page
 * takes, through fetch (written as the page's own script, so nothing the test runner
 * compiles reaches the browser). `drive(api)` answers what the page showed.
 */
const PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pools, from another origin</title></head>
<body><h1>Pools</h1><select id="provider"></select><div id="pools"></div>
<script>
async function send (api, method, path, body) {
  const response = await fetch(api + path, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return { ok: response.ok, status: response.status, body: await response.json(), total: response.headers.get('X-Total-Count') }
}
async function drive (api) {
  const listed = await send(api, 'GET', '/api/providers')
  const picker = document.getElementById('provider')
  picker.innerHTML = listed.body.map((p) => '<option value="' + p.id + '">' + p.name + ' (' + p.category + ')</option>').join('')
  const created = await send(api, 'POST', '/api/pools', { name: 'Market data', category: 'market_data', rotation_strategy: 'round_robin', description: '' })
  const poolId = created.body.pool_id
  const added = await send(api, 'POST', '/api/pools/' + poolId + '/members', { provider_id: parseInt(picker.value), priority: 1, weight: 1 })
  const rotated = await send(api, 'POST', '/api/pools/' + poolId + '/rotate', { reason: 'manual' })
  const pools = await send(api, 'GET', '/api/pools')
  const pool = pools.body.pools.find((p) => p.pool_id === poolId)
  const member = pool.members[0]
  const successRate = member.success_rate || 0
  document.getElementById('pools').textContent = [
    pool.pool_name + ' (' + pool.category + ')',
    'Current: ' + pool.current_provider.name,
    'Used: ' + member.use_count,
    'Success: ' + successRate.toFixed(1) + '%',
    member.rate_limit ? member.rate_limit.usage + '/' + member.rate_limit.limit + ' (' + member.rate_limit.percentage + '%)' : 'no limit',
    'Total Rotations: ' + pool.total_rotations
  ].join(' | ')
  const missing = await send(api, 'POST', '/api/pools', { name: 'no category' })
  const updated = await send(api, 'PUT', '/api/pools/' + poolId, { enabled: false })
  const deleted = await send(api, 'DELETE', '/api/pools/' + poolId)
  return {
    options: picker.options.length,
    picked: picker.options[0].textContent,
    total: listed.total,
    created: created.status,
    added: added.status,
    rotatedTo: rotated.body.provider_name,
    card: document.getElementById('pools').textContent,
    missing: [missing.status, missing.body.detail[0].loc.join('.')],
    updated: updated.status,
    deleted: [deleted.status, deleted.body.message]
  }
}
// As the original's JavaScript API client calls: Content-Type: application/json on every
// request, a body or none (its rotatePool posts none), failing on anything but 2xx.
async function request (api, method, path, data) {
  const response = await fetch(api + path, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(data) })
  if (!response.ok) throw new Error('HTTP ' + response.status)
  return await response.json()
}
async function driveLikeApiClient (api) {
  const providers = await request(api, 'GET', '/api/providers')
  const pool = await request(api, 'POST', '/api/pools', { name: 'Client pool', category: 'rpc' })
  await request(api, 'POST', '/api/pools/' + pool.pool_id + '/members', { provider_id: providers[1].id })
  const rotated = await request(api, 'POST', '/api/pools/' + pool.pool_id + '/rotate')
  const one = await request(api, 'GET', '/api/pools/' + pool.pool_id)
  const removed = await request(api, 'DELETE', '/api/pools/' + pool.pool_id + '/members/' + providers[1].id)
  const deleted = await request(api, 'DELETE', '/api/pools/' + pool.pool_id)
  return [rotated.provider_name, one.current_provider.name, one.members.length, removed.provider_id === providers[1].id, deleted.message]
}
</script></body></html>`

describe('the API from a page on another origin, in Chromium', { skip }, () => {
  let server: ServerProcess
  let pageHost: Upstream
  let otherHost: Upstream
  let browser: Browser
  const errors: string[] = []

  before(async () => {
    pageHost = await upstream((_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(PAGE) })
    otherHost = await upstream((_req, res) => { res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }); res.end(PAGE) })
    server = await startServer({ DATABASE_URL: 'sqlite::memory:', CORS_ORIGINS: pageHost.url })
    assert.equal((await http('POST', `${server.url}/api/providers`, { name: 'coingecko', category: 'market_data', rate_limit: { requests: 50, per: 'minute' } })).status, 200)
    assert.equal((await http('POST', `${server.url}/api/providers`, { name: 'binance', category: 'market_data' })).status, 200)
    browser = await launchBrowser()
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
    await pageHost?.close()
    await otherHost?.close()
  })

  it('lets the listed origin create, fill, rotate, read and delete a pool, as the original pool page does', async () => {
    const page = await browser.newPage()
    errors.push(...collectErrors(page))
    await page.goto(pageHost.url)
    assert.notEqual(new URL(pageHost.url).origin, new URL(server.url).origin)
    const shown = await page.evaluate(async (api) => await (window as unknown as { drive: (api: string) => Promise<unknown> }).drive(api), server.url)
    await screenshot(page, 'cross-origin')
    assert.deepEqual(shown, {
      options: 2,
      picked: 'coingecko (market_data)',
      total: '2',
      created: 200,
      added: 200,
      rotatedTo: 'coingecko',
      card: 'Market data (market_data) | Current: coingecko | Used: 1 | Success: 0.0% | 1/50 (2%) | Total Rotations: 1',
      missing: [422, 'body.category'],
      updated: 200,
      deleted: [200, "Pool 'Market data' deleted successfully"]
    })
    assert.deepEqual(errors, [])
    await page.close()
  })

  it('serves the calls of the original\'s API client (a JSON content type on every request, rotate without a body)', async () => {
    const page = await browser.newPage()
    errors.push(...collectErrors(page))
    await page.goto(pageHost.url)
    const shown = await page.evaluate(async (api) => await (window as unknown as { driveLikeApiClient: (api: string) => Promise<unknown> }).driveLikeApiClient(api), server.url)
    assert.deepEqual(shown, ['binance', 'binance', 1, true, "Pool 'Client pool' deleted successfully"])
    assert.deepEqual(errors, [])
    await page.close()
  })

  it('gives a page of an origin not listed no answer at all', async () => {
    const page = await browser.newPage()
    await page.goto(otherHost.url)
    const outcome = await page.evaluate(async (api) => await fetch(`${api}/api/pools`).then((r) => `answered ${r.status}`, (error: Error) => `${error.name}: ${error.message}`), server.url)
    assert.equal(outcome, 'TypeError: Failed to fetch')
    await page.close()
  })
})
