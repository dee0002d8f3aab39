/**
 * The dashboard in a real headless Chromium (Debian's package, driven by
 * playwright-core) against a real service process: what it shows, how it follows
 * changes live, its actions (which must reach the database), its token prompt,
 * narrow screens and console errors; and a page that follows another process's
 * changes on PostgreSQL. Screenshots go to test-results/.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import Database from 'better-sqlite3'
import type { Browser, Page } from 'playwright-core'
import { browserSkip, collectErrors, launchBrowser, screenshot } from './browser.js'
import { postgres, sharedDatabase, type TestDatabase } from './helpers.js'
import { startServer, type ServerProcess } from './server-process.js'
import { upstream, type Upstream } from './upstreams.js'

const skip = browserSkip()
const require = createRequire(import.meta.url)

/** Calls the service's API (as `token`) and returns the JSON answer; anything but 2xx fails the test. */
async function call (server: ServerProcess, method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const answer = await response.json()
  assert.ok(response.ok, `${method} ${path} → ${response.status} ${JSON.stringify(answer)}`)
  return answer
}

/** The state a member's dot shows on the overview. */
const dotState = async (page: Page, pool: number, provider: number) =>
  await page.locator(`.card[data-pool="${pool}"] .dot[data-provider="${provider}"]`).getAttribute('data-state')

/** No page of the dashboard is wider than the window. */
const horizontalOverflow = async (page: Page) =>
  await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

describe('the dashboard in Chromium (open service)', { skip }, () => {
  let dir: string
  let server: ServerProcess
  let browser: Browser
  let portal: Upstream
  const errors: string[] = []
  const ids = { a: 0, b: 0, c: 0, x: 0, y: 0, spending: 0, market: 0, quick: 0, pair: 0, long: 0 }
  const LONG = `${'a-long-name-without-spaces-'.repeat(6)}end`

  /** Opens a page of the dashboard; `refused` matches the console lines of requests the test makes the service refuse on purpose. */
  async function open (path: string, width = 1280, refused?: RegExp): Promise<Page> {
    const page = await browser.newPage({ viewport: { width, height: 900 } })
    const mine = collectErrors(page)
    page.on('close', () => { errors.push(...mine.filter((line) => refused === undefined || !refused.test(line))) })
    await page.goto(`${server.url}/ui${path}`)
    await page.locator('main h1').first().waitFor()
    return page
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sourcepool-ui-'))
    // A portal that answers /orgaos and refuses /despesas.
    portal = await upstream((req, res) => {
      res.writeHead(req.url?.startsWith('/despesas') === true ? 403 : 200, { 'content-type': 'application/json' })
      res.end('{}')
    })
    server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'ui.db')}`, FLUSH_INTERVAL_MS: '100' })
    ids.a = (await call(server, 'POST', '/api/providers', { name: 'portal-a', category: 'spending', base_url: portal.url, auth_headers: { 'x-api-key': 'secret-a' }, rate_limit: { requests: 10, per: 'hour' } })).provider_id
    ids.b = (await call(server, 'POST', '/api/providers', { name: 'portal-b', category: 'spending', base_url: portal.url })).provider_id
    ids.c = (await call(server, 'POST', '/api/providers', { name: 'quotes-c', category: 'market', base_url: 'https://quotes-c.example' })).provider_id
    ids.spending = (await call(server, 'POST', '/api/pools', { name: 'spending', category: 'spending', failure_threshold: 1, cooldown_seconds: 60 })).pool_id
    ids.market = (await call(server, 'POST', '/api/pools', { name: 'market-data', category: 'market', rotation_strategy: 'weighted' })).pool_id
    ids.quick = (await call(server, 'POST', '/api/pools', { name: 'quick', category: 'spending' })).pool_id
    for (const provider of [ids.a, ids.b]) await call(server, 'POST', `/api/pools/${ids.spending}/members`, { provider_id: provider })
    await call(server, 'POST', `/api/pools/${ids.market}/members`, { provider_id: ids.c, weight: 3 })
    for (const provider of [ids.a, ids.b]) await call(server, 'POST', `/api/pools/${ids.quick}/members`, { provider_id: provider })
    ids.x = (await call(server, 'POST', '/api/providers', { name: 'node-x' })).provider_id
    ids.y = (await call(server, 'POST', '/api/providers', { name: LONG })).provider_id
    ids.pair = (await call(server, 'POST', '/api/pools', { name: 'pair', category: 'rpc', failure_threshold: 1 })).pool_id
    for (const provider of [ids.x, ids.y]) await call(server, 'POST', `/api/pools/${ids.pair}/members`, { provider_id: provider })
    // Long names must wrap, at 1280 px and at 390.
    ids.long = (await call(server, 'POST', '/api/pools', { name: LONG, category: LONG.slice(0, 100), rotation_strategy: 'least_latency' })).pool_id
    await call(server, 'POST', `/api/pools/${ids.long}/members`, { provider_id: ids.y })
    await call(server, 'POST', `/api/pools/${ids.long}/report`, { provider_id: ids.y, success: true, latency_ms: 12 })
    for (let i = 0; i < 4; i++) await call(server, 'POST', `/api/pools/${ids.spending}/rotate`)
    await call(server, 'POST', `/api/pools/${ids.spending}/report`, { provider_id: ids.b, success: true, latency_ms: 180 })
    // A refusal learned by the proxy: portal-a answers 403 for /despesas.
    const proxied = await fetch(`${server.url}/api/pools/${ids.quick}/proxy/despesas`)
    await proxied.arrayBuffer()
    browser = await launchBrowser()
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
    await portal?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('lists every seeded pool on the overview: strategy, current provider, a dot per member', async () => {
    const page = await open('#/')
    await page.locator('.card').nth(2).waitFor()
    assert.deepEqual(await page.locator('.card h2').allTextContents(), ['spending', 'market-data', 'quick', 'pair', LONG])
    const spending = page.locator(`.card[data-pool="${ids.spending}"]`)
    assert.match(await spending.textContent() ?? '', /round_robin/)
    const current = await call(server, 'GET', `/api/pools/${ids.spending}`)
    assert.equal(await spending.locator('.current').textContent(), current.current_provider.name)
    assert.equal(await spending.locator('.dot').count(), 2)
    assert.equal(await page.locator(`.card[data-pool="${ids.market}"] .current`).textContent(), '—')
    // The rotations of the last hour, drawn.
    assert.equal(await spending.locator('.spark-total').textContent(), '4')
    assert.equal(await spending.locator('.sparkline canvas').count(), 1)
    await screenshot(page, 'overview')
    await page.close()
  })

  it('turns a member\'s dot red within 2 s of a failure report, without a reload or a layout jump', async () => {
    const page = await open('#/')
    const dot = page.locator(`.card[data-pool="${ids.spending}"] .dot[data-provider="${ids.a}"]`)
    await dot.waitFor()
    assert.equal(await dotState(page, ids.spending, ids.a), 'healthy')
    const colour = await dot.evaluate((el) => getComputedStyle(el).backgroundColor)
    const box = await page.locator(`.card[data-pool="${ids.spending}"]`).boundingBox()
    await page.evaluate(() => { (window as unknown as { stayed: boolean }).stayed = true })
    const sent = Date.now()
    await call(server, 'POST', `/api/pools/${ids.spending}/report`, { provider_id: ids.a, success: false, error: 'upstream timeout' })
    await page.waitForFunction(([pool, provider]) =>
      document.querySelector(`.card[data-pool="${pool}"] .dot[data-provider="${provider}"]`)?.getAttribute('data-state') === 'cooling_down',
    [ids.spending, ids.a], { timeout: 2000 })
    assert.ok(Date.now() - sent <= 2000, `took ${Date.now() - sent} ms`)
    assert.notEqual(await dot.evaluate((el) => getComputedStyle(el).backgroundColor), colour)
    assert.equal(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), true, 'the page was reloaded')
    assert.deepEqual(await page.locator(`.card[data-pool="${ids.spending}"]`).boundingBox(), box)
    // Every member of a pool down: an alert appears, and no card moves or grows.
    const boxes = await page.locator('.card').evaluateAll((cards) => cards.map((card) => JSON.stringify(card.getBoundingClientRect())))
    for (const provider of [ids.x, ids.y]) await call(server, 'POST', `/api/pools/${ids.pair}/report`, { provider_id: provider, success: false })
    const alert = page.locator(`.card[data-pool="${ids.pair}"] .card-alerts`)
    await alert.filter({ hasText: 'every member is down' }).waitFor({ timeout: 2000 })
    assert.deepEqual(await page.locator('.card').evaluateAll((cards) => cards.map((card) => JSON.stringify(card.getBoundingClientRect()))), boxes)
    await page.close()
  })

  it('counts a cooldown down to zero, then shows the member probing', async () => {
    const page = await open(`#/pools/${ids.quick}`)
    const health = page.locator(`tr[data-member="${ids.b}"] .health`)
    await health.waitFor()
    await call(server, 'POST', `/api/pools/${ids.quick}/report`, { provider_id: ids.b, success: false, retry_after_s: 3 })
    await page.waitForFunction((provider) => document.querySelector(`tr[data-member="${provider}"] .health`)?.getAttribute('data-state') === 'cooling_down', ids.b, { timeout: 2000 })
    // State and countdown are read in one step: read apart, the cooldown can end between the two reads.
    const read = () => page.evaluate((provider) => {
      const cell = document.querySelector(`tr[data-member="${provider}"] .health`)
      return { state: cell?.getAttribute('data-state'), countdown: cell?.querySelector('.countdown')?.textContent ?? null }
    }, ids.b)
    const seen = new Set<string>()
    for (let i = 0, now = await read(); i < 30 && now.state === 'cooling_down'; i++, now = await read()) {
      if (now.countdown !== null) seen.add(now.countdown)
      await page.waitForTimeout(200)
    }
    assert.ok(seen.size >= 2, `the countdown moved: ${[...seen].join(', ')}`)
    assert.equal(await health.getAttribute('data-state'), 'probing')
    assert.match(await health.textContent() ?? '', /probing/)
    assert.equal(await health.locator('.countdown').count(), 0)
    await page.close()
  })

  it('shows a pool: members, next explained, charts, the history with failovers marked', async () => {
    await call(server, 'POST', `/api/pools/${ids.spending}/failover`, { failed_provider_id: ids.b, reason: 'timeout' })
    const page = await open(`#/pools/${ids.spending}`)
    await page.locator('.timeline li').first().waitFor()
    const next = await call(server, 'GET', `/api/pools/${ids.spending}/next`)
    assert.equal(await page.locator('.next').textContent(), `Next: ${next.explanation as string}`)
    assert.equal(await page.locator('table.members tbody tr').count(), 2)
    assert.match(await page.locator(`tr[data-member="${ids.b}"]`).textContent() ?? '', /180 ms/)
    assert.match(await page.locator(`tr[data-member="${ids.a}"] .quota-text`).textContent() ?? '', /^\d+\/10 · resets/)
    const failover = page.locator('.timeline li[data-kind="failover"]').first()
    assert.match(await failover.textContent() ?? '', /portal-b → portal-a.*failover: timeout/)
    // A reason chosen to look like a health change is still a rotation.
    assert.ok(await page.locator('.timeline li[data-kind="cooldown"]').count() >= 1)
    assert.equal(await page.locator('.charts canvas').count(), 2)
    await screenshot(page, 'pool')
    await page.close()
  })

  it('says why the rotations counter and the history differ: counted since created, records kept', async () => {
    const counted = (await call(server, 'POST', '/api/pools', { name: 'counted', category: 'spending' })).pool_id
    // portal-a's quota is left to the other tests.
    const d = (await call(server, 'POST', '/api/providers', { name: 'portal-d', category: 'spending', base_url: portal.url })).provider_id
    for (const provider of [ids.b, d]) await call(server, 'POST', `/api/pools/${counted}/members`, { provider_id: provider })
    // Three rotations, each to another provider (three records), and a proxied request served by its first choice (none).
    for (let i = 0; i < 3; i++) await call(server, 'POST', `/api/pools/${counted}/rotate`)
    await (await fetch(`${server.url}/api/pools/${counted}/proxy/orgaos`)).arrayBuffer()
    // The proxy's count is written behind (FLUSH_INTERVAL_MS): wait for it.
    const deadline = Date.now() + 15_000
    for (let status = await call(server, 'GET', `/api/pools/${counted}`); status.total_rotations !== 4; status = await call(server, 'GET', `/api/pools/${counted}`)) {
      assert.ok(Date.now() < deadline, `total_rotations stayed ${String(status.total_rotations)}, not 4`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    assert.equal((await call(server, 'GET', `/api/pools/${counted}/history`)).total, 3)
    const page = await open(`#/pools/${counted}`)
    await page.locator('.timeline li').first().waitFor()
    const rotations = page.locator('[data-fact="rotations"]')
    assert.equal(await rotations.locator('dd').textContent(), '4 since created')
    assert.match(await rotations.locator('dt [title]').getAttribute('title') ?? '', /every provider choice since the pool was created.*each attempt of a proxied request/i)
    assert.equal(await page.locator('h2', { hasText: 'History' }).textContent(), 'History (newest first, 3 of 3 kept)')
    assert.match(await page.locator('[data-history-note]').textContent() ?? '',
      /^Rotations \(4\) and the history \(3\) differ: .*a rotation that stays on the same provider and a proxied request served by its first choice count as rotations but leave no record/)
    // Where the two agree, nothing needs explaining.
    await page.goto(`${server.url}/ui#/pools/${ids.market}`)
    await page.locator('main h1', { hasText: 'market-data' }).waitFor()
    assert.equal((await call(server, 'GET', `/api/pools/${ids.market}`)).total_rotations, (await call(server, 'GET', `/api/pools/${ids.market}/history`)).total)
    await page.locator('h2', { hasText: 'History' }).waitFor()
    assert.equal(await page.locator('[data-history-note]').count(), 0)
    await page.close()
  })

  it('changes the database from the page once confirmed: disable a member, change its weight; shows a refusal\'s own text; refuses values the API would', async () => {
    // Chromium logs each refused request (the rotate's 404) as a console error.
    const page = await open(`#/pools/${ids.market}`, 1280, /Failed to load resource: the server responded with a status of 404/)
    await page.locator(`[data-action="toggle-${ids.c}"]`).click()
    await page.locator('dialog[open]').waitFor()
    await page.locator(`[data-confirm="toggle-${ids.c}"]`).click()
    await page.locator('.notice').waitFor()
    const db = new Database(join(dir, 'ui.db'), { readonly: true })
    try {
      const row = db.prepare('SELECT enabled FROM pool_members WHERE pool_id = ? AND provider_id = ?').get(ids.market, ids.c) as { enabled: number }
      assert.equal(row.enabled, 0)
    } finally {
      db.close()
    }
    await page.locator(`[data-action="toggle-${ids.c}"]`, { hasText: 'Enable' }).waitFor()
    // Rotating a pool whose only member is disabled: the service refuses, the dialog says why.
    await page.locator('[data-action="rotate"]').click()
    await page.locator('[data-confirm="rotate"]').click()
    const refusal = page.locator('dialog[open] [role="alert"]')
    await refusal.waitFor()
    const expected = await fetch(`${server.url}/api/pools/${ids.market}/rotate`, { method: 'POST' }).then(async (r) => await r.json())
    assert.equal(await refusal.textContent(), `Refused: ${expected.detail as string}`)
    await page.keyboard.press('Escape')
    await page.locator('dialog[open]').waitFor({ state: 'detached' }).catch(() => {})
    assert.equal(await page.locator('dialog[open]').count(), 0)
    // Values the API would refuse cannot be saved: an empty field, a weight of 0.
    const save = page.locator(`[data-action="save-${ids.c}"]`)
    const priority = page.locator(`tr[data-member="${ids.c}"] input[data-field="priority"]`)
    const weight = page.locator(`tr[data-member="${ids.c}"] input[data-field="weight"]`)
    assert.equal(await save.isDisabled(), true, 'nothing changed yet')
    await priority.fill('')
    assert.equal(await save.isDisabled(), true, 'empty priority')
    await priority.fill('1')
    await weight.fill('0')
    assert.equal(await save.isDisabled(), true, 'weight 0')
    // Only what changed is sent. The disable's notice says "updated" too and may still show (6 s):
    // dismiss it, so the wait below is for the save's own notice.
    const shown = page.locator('.notice button[aria-label="Dismiss"]')
    if (await shown.count() > 0) await shown.click()
    await page.locator('.notice').waitFor({ state: 'detached' })
    await weight.fill('7')
    await save.click()
    assert.match(await page.locator('dialog[open]').textContent() ?? '', /Set quotes-c's weight to 7 in market-data\?/)
    await page.locator(`[data-confirm="save-${ids.c}"]`).click()
    await page.locator('.notice', { hasText: 'updated' }).waitFor()
    const member = (await call(server, 'GET', `/api/pools/${ids.market}`)).members[0]
    assert.deepEqual([member.priority, member.weight], [1, 7])
    await page.close()
  })

  it('rotates (by keyboard) and fails over from the page', async () => {
    const page = await open(`#/pools/${ids.spending}`)
    const before = (await call(server, 'GET', `/api/pools/${ids.spending}`)).total_rotations as number
    await page.locator('[data-action="rotate"]').focus()
    await page.keyboard.press('Enter')
    await page.locator('dialog[open]').waitFor()
    // The dialog takes the focus (Cancel first); Tab reaches the confirm button.
    await page.keyboard.press('Tab')
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-confirm')), 'rotate')
    await page.keyboard.press('Enter')
    await page.locator('.notice').waitFor()
    assert.match(await page.locator('.notice').textContent() ?? '', /Rotated to provider/)
    const rotated = await call(server, 'GET', `/api/pools/${ids.spending}`)
    assert.equal(rotated.total_rotations, before + 1)
    await page.locator('.current', { hasText: rotated.current_provider.name }).first().waitFor()
    // Fail over from the provider now serving.
    await page.locator('[data-action="failover"]').click()
    assert.match(await page.locator('dialog[open]').textContent() ?? '', new RegExp(`Mark ${rotated.current_provider.name as string} as failed`))
    await page.locator('[data-confirm="failover"]').click()
    await page.locator('.notice', { hasText: 'Failed over from provider' }).waitFor()
    const history = await call(server, 'GET', `/api/pools/${ids.spending}/history?limit=1`)
    assert.equal(history.history[0].reason, 'operator')
    assert.equal(history.history[0].from_provider, rotated.current_provider.name)
    await page.close()
  })

  it('shows providers: credentials by name only, quota, refusals with a clear button that clears', async () => {
    const page = await open(`#/providers?id=${ids.a}`)
    const card = page.locator(`.card[data-provider="${ids.a}"]`)
    await card.locator('.refusals li').first().waitFor()
    const text = await card.textContent() ?? ''
    assert.match(text, /x-api-key/)
    assert.doesNotMatch(await page.content(), /secret-a/)
    assert.match(text, /10 per hour/)
    assert.equal(await card.locator('.refusals li').getAttribute('data-resource'), '/despesas')
    await screenshot(page, 'providers')
    await card.locator('[data-action^="clear-"]').click()
    await page.locator('dialog[open] [data-confirm^="clear-"]').click()
    await card.getByText('Refuses nothing.').waitFor()
    const refusals = await call(server, 'GET', `/api/providers/${ids.a}/refusals`)
    assert.equal(refusals.total, 0)
    await page.close()
  })

  it('shows a quota in credits: the provider card with its method costs, the member\'s quota bar in credits', async () => {
    const metered = (await call(server, 'POST', '/api/providers', {
      name: 'node-credits', base_url: portal.url, rate_limit: { credits: 100000, per: 'day' }, method_costs: { eth_getLogs: 75, '*': 10 }
    })).provider_id
    const pool = (await call(server, 'POST', '/api/pools', { name: 'credits', category: 'rpc' })).pool_id
    await call(server, 'POST', `/api/pools/${pool}/members`, { provider_id: metered })
    await call(server, 'POST', `/api/pools/${pool}/rotate`)
    const providers = await open(`#/providers?id=${metered}`)
    const card = providers.locator(`.card[data-provider="${metered}"]`)
    await card.waitFor()
    const text = await card.textContent() ?? ''
    assert.match(text, /100000 credits per day/)
    assert.match(text, /eth_getLogs\s*75/)
    await providers.close()
    const page = await open(`#/pools/${pool}`)
    const bar = page.locator('tr[data-member] .quota-text')
    await bar.waitFor()
    assert.match(await bar.textContent() ?? '', /^10\/100000 credits · resets/)
    await page.close()
  })

  it('shows the chunk store\'s models and the /api/v1 report with its shares', async () => {
    await call(server, 'POST', '/api/chunks', { chunk_id: 'c-1', content: 'one', embedding: [0.1, 0.2, 0.3], embedding_model: 'mini-3', embedding_dim: 3, metadata: { parent_id: 'p', source: 's', task: 't', sequence: 0, total_chunks: 1, content_type: 'text' } })
    const page = await open('#/store')
    await page.locator('table.models tbody tr').first().waitFor()
    assert.deepEqual(await page.locator('table.models tbody tr').first().locator('th, td').allTextContents(), ['mini-3', '3', '1'])
    const report = await call(server, 'GET', '/api/v1/status/endpoints')
    assert.match(await page.locator('.share-legend').textContent() ?? '', new RegExp(`registered: ${report.by_status.registered.count as number}`))
    assert.equal(await page.locator('table.routes tbody tr').count(), report.total)
    await screenshot(page, 'store')
    await page.close()
  })

  it('fits 390 and 1280 px wide screens on every page, long names too: no horizontal scroll', async () => {
    for (const [path, name] of [['#/', 'overview'], [`#/pools/${ids.spending}`, 'pool'], [`#/pools/${ids.long}`, 'pool-long-names'], ['#/providers', 'providers'], ['#/store', 'store']] as const) {
      for (const width of [390, 1280]) {
        const page = await open(path, width)
        await page.waitForTimeout(400)
        assert.equal(await horizontalOverflow(page), 0, `${name} scrolls sideways at ${width} px`)
        if (width === 390) await screenshot(page, `${name}-390`)
        await page.close()
      }
    }
  })

  it('says so when the pool shown is deleted, shows no action, and stops asking for it', async () => {
    const doomed = (await call(server, 'POST', '/api/pools', { name: 'doomed', category: 'x' })).pool_id
    const page = await open(`#/pools/${doomed}`, 1280, /status of 404/)
    await page.locator('[data-action="rotate"]').waitFor()
    const asked: string[] = []
    page.on('request', (request) => { if (request.url().includes(`/api/pools/${doomed}`)) asked.push(request.url()) })
    await call(server, 'DELETE', `/api/pools/${doomed}`)
    // An admin event reloads the page, which finds the pool gone.
    await page.locator('[role="alert"]', { hasText: 'it was deleted, or never existed' }).waitFor({ timeout: 3000 })
    assert.equal(await page.locator('[data-action]').count(), 0)
    const before = asked.length
    await page.waitForTimeout(2000)
    await call(server, 'POST', `/api/pools/${ids.spending}/rotate`)
    await page.waitForTimeout(1000)
    assert.equal(asked.length, before, `asked again: ${asked.slice(before).join(', ')}`)
    await page.close()
  })

  it('passes axe-core\'s WCAG 2 A and AA checks on every page (contrast, names, labels, keyboard)', async () => {
    const axe = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
    // axe is injected as a script, which the page's CSP would (rightly) refuse.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } })
    try {
      for (const path of ['#/', `#/pools/${ids.spending}`, '#/providers', '#/store']) {
        const page = await context.newPage()
        await page.goto(`${server.url}/ui${path}`)
        await page.locator('main h1').first().waitFor()
        await page.waitForTimeout(500)
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

  it('catches up after the service restarts: what changed meanwhile shows within seconds, not at the next 15 s reload', async () => {
    // The stream breaking logs network errors, and a service closing or starting answers 503
    // (Closing, or Starting once a request has waited 10 s on a busy machine); nothing else may.
    const page = await open(`#/pools/${ids.quick}`, 1280, /ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|net::ERR|status of 503 \(Service Unavailable\)/)
    await page.locator('.stream-live').waitFor()
    const port = new URL(server.url).port
    await server.stop()
    await page.locator('.stream-reconnecting').waitFor({ timeout: 5000 })
    server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'ui.db')}`, FLUSH_INTERVAL_MS: '100', PORT: port })
    const rotated = await call(server, 'POST', `/api/pools/${ids.quick}/rotate`)
    const restarted = Date.now()
    await page.locator('.current', { hasText: rotated.provider_name }).waitFor({ timeout: 10_000 })
    await page.locator('.stream-live').waitFor()
    assert.ok(Date.now() - restarted < 10_000)
    await page.close()
  })

  it('logged no console error on any page', () => {
    assert.deepEqual(errors, [])
  })
})

describe('the dashboard in Chromium (service with tokens)', { skip }, () => {
  const ADMIN = 'admin-secret-0123456789'
  const READER = 'reader-secret-0123456789'
  const CLIENT = 'client-secret-0123456789'
  let dir: string
  let server: ServerProcess
  let browser: Browser
  let pool = 0
  const errors: string[] = []

  /** Every URL the pages asked for: a token must never be in one. */
  const urls: string[] = []

  /** Opens the pool's page and signs in; `refused` matches the console lines of requests the test makes the service refuse. */
  async function signIn (secret: string, refused?: RegExp): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const mine = collectErrors(page)
    page.on('request', (request) => { urls.push(request.url()) })
    page.on('close', () => { errors.push(...mine.filter((line) => refused === undefined || !refused.test(line))) })
    await page.goto(`${server.url}/ui#/pools/${pool}`)
    await page.locator('#token').fill(secret)
    await page.getByRole('button', { name: 'Open the dashboard' }).click()
    return page
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sourcepool-ui-'))
    server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'ui.db')}`, AUTH_TOKENS: `ops:admin:${ADMIN},grafana:read:${READER},app:client:${CLIENT}`, AUTH_FAILURE_LIMIT: 'off' })
    const provider = (await call(server, 'POST', '/api/providers', { name: 'portal-a', base_url: 'https://a.example' }, ADMIN)).provider_id
    pool = (await call(server, 'POST', '/api/pools', { name: 'spending', category: 'spending' }, ADMIN)).pool_id
    await call(server, 'POST', `/api/pools/${pool}/members`, { provider_id: provider }, ADMIN)
    browser = await launchBrowser()
  })

  after(async () => {
    await browser?.close()
    await server?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('refuses a wrong token with a clear message', async () => {
    const page = await signIn('not-a-token', /status of 401/)
    const alert = page.locator('.sign-in [role="alert"]')
    await alert.waitFor()
    assert.equal(await alert.textContent(), 'The service refused this token (Not authenticated). Check it and try again.')
    assert.equal(await page.evaluate(() => sessionStorage.length), 0)
    await screenshot(page, 'sign-in-refused')
    await page.close()
  })

  it('shows a read token no action, an admin token every action; the token stays out of the URL', async () => {
    const reader = await signIn(READER)
    await reader.locator('table.members tbody tr').first().waitFor()
    assert.equal(await reader.locator('[data-action]').count(), 0)
    assert.equal(await reader.locator('input').count(), 0)
    assert.match(await reader.locator('.who').textContent() ?? '', /grafana · read/)
    await reader.close()
    const admin = await signIn(ADMIN)
    await admin.locator('table.members tbody tr').first().waitFor()
    assert.ok(await admin.locator('[data-action]').count() >= 3)
    assert.equal(await admin.evaluate(() => sessionStorage.getItem('sourcepool.token')), ADMIN)
    assert.ok(!admin.url().includes(ADMIN))
    // A reload in the same tab keeps the token: no prompt again.
    await admin.reload()
    await admin.locator('table.members tbody tr').first().waitFor()
    await admin.close()
    // A client token may rotate and fail over, nothing else.
    const client = await signIn(CLIENT)
    await client.locator('table.members tbody tr').first().waitFor()
    assert.deepEqual((await client.locator('[data-action]').evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-action')))).sort(), ['failover', 'rotate'])
    await client.close()
  })

  it('goes back to the prompt when the service stops accepting the token, and stops asking', async () => {
    // A service closing or starting answers 503 (Closing, or Starting after 10 s on a busy machine).
    const page = await signIn(ADMIN, /status of 401|net::ERR|ERR_INCOMPLETE_CHUNKED_ENCODING|status of 503 \(Service Unavailable\)/)
    await page.locator('.stream-live').waitFor()
    // The service restarts on the same port without the admin token.
    const port = new URL(server.url).port
    await server.stop()
    server = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'ui.db')}`, AUTH_TOKENS: `grafana:read:${READER}`, AUTH_FAILURE_LIMIT: 'off', PORT: port })
    const alert = page.locator('.sign-in [role="alert"]')
    await alert.waitFor({ timeout: 15_000 })
    assert.equal(await alert.textContent(), 'The service no longer accepts this tab\'s token (Not authenticated). Enter a token.')
    assert.equal(await page.evaluate(() => sessionStorage.length), 0)
    let asked = 0
    page.on('request', () => { asked++ })
    await page.waitForTimeout(3000)
    assert.equal(asked, 0, 'the page kept asking with a refused token')
    await page.close()
  })

  it('never put a token in a URL', () => {
    assert.ok(urls.length > 10)
    for (const url of urls) {
      for (const secret of [ADMIN, READER, CLIENT]) assert.ok(!url.includes(secret), url)
    }
  })

  it('logged no console error but the refusals the tests made', () => {
    assert.deepEqual(errors, [])
  })
})

describe('the dashboard in Chromium (two processes on PostgreSQL)', { skip: skip === false ? postgres.skip ?? false : skip }, () => {
  let database: TestDatabase
  let shown: ServerProcess
  let other: ServerProcess
  let browser: Browser

  before(async () => {
    database = await sharedDatabase(postgres)
    shown = await startServer({ DATABASE_URL: database.url, FLUSH_INTERVAL_MS: '100' })
    other = await startServer({ DATABASE_URL: database.url, FLUSH_INTERVAL_MS: '100' })
    browser = await launchBrowser()
  })

  after(async () => {
    await browser?.close()
    await shown?.stop()
    await other?.stop()
    await database?.drop()
  })

  it('follows a change made through another process within 2 s, and a pool created there', async () => {
    const provider = (await call(other, 'POST', '/api/providers', { name: 'portal-a' })).provider_id
    const pool = (await call(other, 'POST', '/api/pools', { name: 'spending', category: 'spending', failure_threshold: 1 })).pool_id
    await call(other, 'POST', `/api/pools/${pool}/members`, { provider_id: provider })
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    const errors = collectErrors(page)
    await page.goto(`${shown.url}/ui#/`)
    await page.locator(`.card[data-pool="${pool}"] .dot[data-provider="${provider}"][data-state="healthy"]`).waitFor()
    // The page listens to the first process; the report goes to the second.
    const sent = Date.now()
    await call(other, 'POST', `/api/pools/${pool}/report`, { provider_id: provider, success: false })
    await page.locator(`.card[data-pool="${pool}"] .dot[data-provider="${provider}"][data-state="cooling_down"]`).waitFor({ timeout: 2000 })
    assert.ok(Date.now() - sent <= 2000)
    const second = (await call(other, 'POST', '/api/pools', { name: 'market-data', category: 'market' })).pool_id
    await page.locator(`.card[data-pool="${second}"]`).waitFor({ timeout: 2000 })
    await page.close()
    assert.deepEqual(errors, [])
  })
})
