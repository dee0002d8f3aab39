/**
 * `npm run screenshots`: the README's pictures of the dashboard (docs/screenshots/),
 * taken in Debian's Chromium from a real service on a throwaway SQLite file. The
 * state is made through the API (pools, rotations, reports, a failover, a refusal
 * learned by the proxy, chunks); only the last hour's spread is written into the
 * file directly, since a script cannot wait an hour: the history's timestamps are
 * moved back over the hour, and each member gets a minute of latency per minute.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { browserSkip, launchBrowser } from '../test/browser.js'
import { startServer, type ServerProcess } from '../test/server-process.js'
import { upstream } from '../test/upstreams.js'

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url))

async function call (server: ServerProcess, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  return await response.json()
}

const skip = browserSkip()
if (skip !== false) {
  console.error(skip)
  process.exit(1)
}

// A portal that answers health checks and data, and refuses /despesas.
const portal = await upstream((req, res) => {
  res.writeHead(req.url?.includes('/despesas') === true ? 403 : 200, { 'content-type': 'application/json' })
  res.end('{}')
})
const portalUrl = portal.url

const dir = mkdtempSync(join(tmpdir(), 'sourcepool-screenshots-'))
const file = join(dir, 'demo.db')
const server = await startServer({ DATABASE_URL: `sqlite:${file}`, FLUSH_INTERVAL_MS: '100' })
try {
  const provider = async (body: Record<string, unknown>) => (await call(server, 'POST', '/api/providers', body)).provider_id as number
  const a = await provider({ name: 'portal-a', category: 'public-spending', base_url: `${portalUrl}/a`, auth_headers: { 'x-api-key': 'demo-secret' }, rate_limit: { requests: 600, per: 'hour' }, health_check: { path: '/health', interval_s: 10 } })
  const b = await provider({ name: 'portal-b', category: 'public-spending', base_url: `${portalUrl}/b?format=json`, description: 'mirror' })
  const c = await provider({ name: 'portal-c', category: 'public-spending', base_url: 'https://portal-c.example' })
  const q = [
    await provider({ name: 'quotes-east', category: 'market-data', base_url: 'https://east.quotes.example', rate_limit: { requests: 100, per: 'hour' } }),
    await provider({ name: 'quotes-west', category: 'market-data', base_url: 'https://west.quotes.example' }),
    await provider({ name: 'quotes-backup', category: 'market-data', base_url: 'https://backup.quotes.example' })
  ]
  const r = [await provider({ name: 'rpc-1', category: 'rpc' }), await provider({ name: 'rpc-2', category: 'rpc' })]
  const pool = async (body: Record<string, unknown>, members: Array<Record<string, unknown>>) => {
    const id = (await call(server, 'POST', '/api/pools', body)).pool_id as number
    for (const member of members) await call(server, 'POST', `/api/pools/${id}/members`, member)
    return id
  }
  const spending = await pool({ name: 'spending', category: 'public-spending', rotation_strategy: 'weighted', cooldown_seconds: 90 }, [{ provider_id: a, weight: 3 }, { provider_id: b }, { provider_id: c }])
  const market = await pool({ name: 'market-data', category: 'market-data', rotation_strategy: 'least_latency' }, q.map((id) => ({ provider_id: id })))
  const rpc = await pool({ name: 'rpc-nodes', category: 'rpc', failure_threshold: 1, cooldown_seconds: 600 }, r.map((id) => ({ provider_id: id })))
  await call(server, 'PUT', `/api/pools/${spending}/members/${c}`, { enabled: false })

  for (let i = 0; i < 40; i++) await call(server, 'POST', `/api/pools/${spending}/rotate`, { reason: i % 3 === 0 ? 'scheduled' : 'manual' })
  for (let i = 0; i < 25; i++) await call(server, 'POST', `/api/pools/${market}/rotate`, { reason: 'scheduled' })
  for (let i = 0; i < 6; i++) await call(server, 'POST', `/api/pools/${rpc}/rotate`, {})
  await call(server, 'POST', `/api/pools/${spending}/failover`, { failed_provider_id: b, reason: 'timeout' })
  await call(server, 'POST', `/api/pools/${spending}/report`, { provider_id: b, success: false, error: 'upstream timeout', latency_ms: 2400 })
  const latencies: Record<number, number> = { [a]: 180, [b]: 420, [q[0] as number]: 35, [q[1] as number]: 60, [q[2] as number]: 140, [r[0] as number]: 20, [r[1] as number]: 25 }
  for (const [id, member] of [[spending, a], [spending, b], [market, q[0]], [market, q[1]], [market, q[2]], [rpc, r[0]]] as Array<[number, number]>) {
    for (let i = 0; i < 5; i++) await call(server, 'POST', `/api/pools/${id}/report`, { provider_id: member, success: i !== 4 || member !== q[2], latency_ms: latencies[member] })
  }
  // Both RPC nodes down for ten minutes: the overview's alert.
  for (const node of r) await call(server, 'POST', `/api/pools/${rpc}/report`, { provider_id: node, success: false, error: 'connection refused' })
  // Refusals learned by the proxy (portal-a and portal-b answer 403 for /despesas).
  await fetch(`${server.url}/api/pools/${spending}/proxy/despesas`).then(async (res) => await res.arrayBuffer())
  for (let i = 0; i < 3; i++) await call(server, 'POST', '/api/chunks', { chunk_id: `contract-17/${i + 1}`, content: `Part ${i + 1}`, embedding: [0.1 * i, 0.2, 0.3, 0.4], embedding_model: 'mini-embed-4', embedding_dim: 4, metadata: { parent_id: 'contract-17', source: 'portal', task: 'contracts', sequence: i, total_chunks: 3, content_type: 'text' } })
  await call(server, 'POST', '/api/chunks', { chunk_id: 'note-1', content: 'A note', embedding: Array.from({ length: 8 }, (_, i) => i / 8), embedding_model: 'wide-embed-8', embedding_dim: 8, metadata: { parent_id: 'note-1', source: 'notes', task: 'notes', sequence: 0, total_chunks: 1, content_type: 'text' } })
  await new Promise((resolve) => setTimeout(resolve, 500))

  // The last hour, spread: history records moved back over it, a latency per member per minute.
  const db = new Database(file)
  const now = Date.now()
  const rows = db.prepare('SELECT id FROM rotation_history ORDER BY id').all() as Array<{ id: number }>
  const move = db.prepare('UPDATE rotation_history SET timestamp = ? WHERE id = ?')
  rows.forEach((row, i) => move.run(new Date(now - (rows.length - i) * (55 * 60_000 / rows.length)).toISOString(), row.id))
  const members = db.prepare('SELECT id, provider_id FROM pool_members').all() as Array<{ id: number, provider_id: number }>
  const minute = db.prepare('INSERT INTO member_minutes (member_id, minute, samples, latency_sum) VALUES (?, ?, ?, ?) ON CONFLICT (member_id, minute) DO NOTHING')
  for (const member of members) {
    const base = latencies[member.provider_id]
    // Only members whose latency was reported above.
    if (base === undefined || member.provider_id === r[1]) continue
    for (let m = 59; m >= 1; m--) {
      const at = new Date(Math.floor((now - m * 60_000) / 60_000) * 60_000).toISOString()
      const wave = base * (1 + 0.25 * Math.sin((m + member.id) / 6) + 0.1 * Math.cos(m * 1.7))
      minute.run(member.id, at, 4, wave * 4)
    }
  }
  db.close()

  mkdirSync(OUT, { recursive: true })
  const browser = await launchBrowser()
  const shoot = async (path: string, name: string, width: number, height: number) => {
    const page = await browser.newPage({ viewport: { width, height } })
    await page.goto(`${server.url}/ui${path}`)
    await page.locator('main h1').first().waitFor()
    await page.waitForTimeout(1200)
    await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true })
    await page.close()
    console.log(`docs/screenshots/${name}.png`)
  }
  await shoot('#/', 'overview', 1280, 720)
  await shoot(`#/pools/${spending}`, 'pool', 1280, 900)
  await shoot('#/providers', 'providers', 1280, 900)
  await shoot('#/store', 'store', 1280, 900)
  await shoot(`#/pools/${rpc}`, 'pool-390', 390, 844)
  await browser.close()
} finally {
  await server.stop()
  await portal.close()
  rmSync(dir, { recursive: true, force: true })
}
