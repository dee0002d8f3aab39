/**
 * `npm run bench`: the target table of issue #12 (parts `reads`, `proxy` and
 * `rotate`: see targets.ts), then the older parts: `pools` (the service on a
 * temporary SQLite database and a bare Fastify route beside it, loaded with
 * autocannon in this process, requests/s, p50/p99 and each endpoint's ratio to
 * the bare route), `chunks`, `auth`, `checks` (checks.ts), `event-loop` (event-loop.ts: the
 * largest event-loop delay during heavy requests) and `cache` (cache.ts: the response cache's HIT
 * against NGINX's and a bare route, and request coalescing), and issue 28's `workers` (workers.ts:
 * WORKERS=1 and 2 against NGINX with 1 and 2 workers, startup time), `choice` (choice.ts:
 * rotate and /next at 2, 50 and 500 members), `rotate-cpu` (rotate-in-process.ts: CPU per rotation
 * at 2 and 500 members in process) and `engine` (engine.ts: CPU per upstream
 * attempt, request() against dispatch), `failure-cost` (failure-cost.ts: CPU per request when every
 * member refuses the connection against the success path), issue 35's `dataplane` (dataplane.ts: the
 * data plane against reply-from, NGINX and a bare route in one table; BENCH_SERVICE_DIR adds another
 * checkout's build beside this one's), issue 36's `rpc` (rpc.ts: an `eth_call` through jsonrpc and
 * evm pools against an http pool, a 50-call batch's CPU per call, and a kept `eth_chainId` against an
 * http cache HIT), and issue 37's `streams` (streams.ts: WebSocket messages through an http pool against the
 * upstream directly and a bare ws relay, the added latency, 1,000 open streams' memory and CPU per message).
 * BENCH_ONLY (or `npm run bench -- --only <parts>`) picks parts (comma-separated);
 * BENCH_DURATION sets the seconds of each load (default 10).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { http, startServer } from '../test/server-process.js'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { measureCache } from './cache.js'
import { measureChecks } from './checks.js'
import { measureChunks } from './chunks.js'
import { measureDataplane } from './dataplane.js'
import { measureFailureCost, printFailureCost } from './failure-cost.js'
import { measureEventLoop } from './event-loop.js'
import { CONNECTIONS, ONLY, DURATION as SECONDS } from './options.js'
import { startScript, type Running } from './processes.js'
import { measureRpc } from './rpc.js'
import { measureStreams } from './streams.js'
import { measureTargets, TARGET_JOBS, type TargetJob } from './targets.js'
import { measureWorkers, printWorkers } from './workers.js'

interface Row { name: string, rps: number, p50: number, p99: number, errors: number }

async function load (name: string, url: string, method: 'GET' | 'POST' = 'GET', body?: unknown, token?: string, seconds = SECONDS): Promise<Row> {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  const result = await autocannon({
    url,
    method,
    connections: CONNECTIONS,
    duration: seconds,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const errors = result.errors + result.timeouts + result.non2xx
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors }
}

async function startBare (): Promise<Running> {
  return await startScript('bench/bare-server.ts')
}

/**
 * A 5-member pool with health and quotas in play: every provider has a quota far
 * from exhausted, and one member is cooling down (rate limited for a day).
 */
async function seedHealthPool (url: string): Promise<{ healthPool: number, reportProvider: number }> {
  const healthPool = (await http('POST', `${url}/api/pools`, { name: 'health', category: 'market-data' })).body.pool_id
  const ids: number[] = []
  for (let m = 0; m < 5; m++) {
    const id = (await http('POST', `${url}/api/providers`, { name: `limited-${m}`, rate_limit: { requests: 1_000_000_000, per: 'day' } })).body.provider_id
    ids.push(id)
    await http('POST', `${url}/api/pools/${healthPool}/members`, { provider_id: id })
  }
  await http('POST', `${url}/api/pools/${healthPool}/report`, { provider_id: ids[4], success: false, status_code: 429, retry_after_s: 86_400 })
  return { healthPool, reportProvider: ids[0] as number }
}

async function seed (url: string): Promise<{ rotatePool: number }> {
  const providers: number[] = []
  for (let i = 0; i < 1000; i++) providers.push((await http('POST', `${url}/api/providers`, { name: `provider-${i}` })).body.provider_id)
  let rotatePool = 0
  for (let p = 0; p < 100; p++) {
    const pool = (await http('POST', `${url}/api/pools`, { name: `pool-${p}`, category: 'market-data' })).body.pool_id
    if (p === 0) rotatePool = pool
    const size = p === 0 ? 5 : 10
    for (let m = 0; m < size; m++) await http('POST', `${url}/api/pools/${pool}/members`, { provider_id: providers[p * 10 + m], weight: 1 + (m % 3) })
    for (let r = 0; r < 12; r++) await http('POST', `${url}/api/pools/${pool}/rotate`)
  }
  return { rotatePool }
}

/** A 5-member pool on a fresh service, for the with/without authentication comparison. */
async function seedSmallPool (url: string, token?: string): Promise<number> {
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body)
    })
    return await res.json() as Record<string, number>
  }
  const pool = (await call('/api/pools', { name: 'auth-bench', category: 'x' })).pool_id as number
  for (let m = 0; m < 5; m++) {
    const provider = (await call('/api/providers', { name: `auth-bench-${m}` })).provider_id
    await call(`/api/pools/${pool}/members`, { provider_id: provider })
  }
  return pool
}

const ADMIN_SECRET = 'bench-admin-secret-0123456789'
const ROUNDS = 8

const median = (values: number[]): number => {
  const sorted = [...values].sort((x, y) => x - y)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid] as number : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/**
 * Rotate on three services with identical data: two without authentication (the
 * second is a control that shows how much two identical runs differ here) and one
 * with a bearer token; the order rotates each round, and each round gives one
 * ratio, so a drift of the machine's speed between rounds cancels out.
 */
async function measureAuthCost (dir: string): Promise<void> {
  const servers = [
    { name: 'open', env: {} as Record<string, string>, token: undefined as string | undefined },
    { name: 'open (control)', env: {}, token: undefined },
    { name: 'bearer token', env: { AUTH_TOKENS: `bench:admin:${ADMIN_SECRET}` }, token: ADMIN_SECRET }
  ]
  const running = await Promise.all(servers.map(async (server, i) => {
    const process = await startServer({ DATABASE_URL: `sqlite:${join(dir, `auth-${i}.db`)}`, LOG_LEVEL: 'warn', ...server.env })
    return { ...server, process, pool: await seedSmallPool(process.url, server.token) }
  }))
  const seconds = Math.max(3, Math.round(SECONDS / 2))
  try {
    const costs: number[] = []
    const spreads: number[] = []
    const totals = [0, 0, 0]
    for (let round = 0; round < ROUNDS; round++) {
      const rps = [0, 0, 0]
      for (let k = 0; k < running.length; k++) {
        const i = (round + k) % running.length
        const server = running[i] as typeof running[number]
        // Every client sends the same Authorization header (the open services ignore it), so the
        // load generator, which shares the two cores, does the same work in each run.
        rps[i] = (await load(`rotate, ${server.name}`, `${server.process.url}/api/pools/${server.pool}/rotate`, 'POST', undefined, ADMIN_SECRET, seconds)).rps
        totals[i] = (totals[i] as number) + (rps[i] as number) / ROUNDS
      }
      const [open, control, secured] = rps as [number, number, number]
      const baseline = (open + control) / 2
      costs.push((baseline - secured) / baseline)
      spreads.push(Math.abs(open - control) / baseline)
    }
    const percent = (x: number) => `${(x * 100).toFixed(1)}%`
    console.log(`\nrotate, ${ROUNDS} rounds of ${seconds} s per service, order rotating: without authentication ${Math.round(totals[0] as number)} and ` +
      `${Math.round(totals[1] as number)} req/s, with a bearer token ${Math.round(totals[2] as number)} req/s (means). ` +
      `Authentication costs ${percent(median(costs))} of throughput (median of the rounds; range ${percent(Math.min(...costs))} to ${percent(Math.max(...costs))}); ` +
      `two identical set-ups differ by ${percent(median(spreads))} (median)`)
  } finally {
    for (const server of running) await server.process.stop()
  }
}

/**
 * The authentication check's own CPU cost per rotate, without the load generator
 * sharing the machine's two cores: the same app in-process (app.inject), rotate
 * with and without a token, alternating in short runs; the fastest run of each
 * counts (the least disturbed by the rest of the machine).
 */
async function measureAuthCpu (): Promise<void> {
  // Imported here, so the other parts run (the service as its own process) without loading src/ into this one.
  const { buildApp } = await import('../src/app.js')
  const { loadConfig } = await import('../src/config.js')
  const make = async (env: Record<string, string>, token?: string) => {
    const app = await buildApp(loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', ...env }), { logger: false })
    await app.ready()
    const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` }
    const post = async (url: string, body: unknown) =>
      JSON.parse((await app.inject({ method: 'POST', url, headers: { ...headers, 'content-type': 'application/json' }, payload: JSON.stringify(body) })).body)
    const pool = (await post('/api/pools', { name: 'auth-cpu', category: 'x' })).pool_id as number
    for (let m = 0; m < 5; m++) await post(`/api/pools/${pool}/members`, { provider_id: (await post('/api/providers', { name: `auth-cpu-${m}` })).provider_id })
    const run = async (n: number): Promise<number> => {
      const started = performance.now()
      for (let i = 0; i < n; i++) await app.inject({ method: 'POST', url: `/api/pools/${pool}/rotate`, headers })
      return ((performance.now() - started) / n) * 1000
    }
    return { app, run }
  }
  const open = await make({})
  const secured = await make({ AUTH_TOKENS: `bench:admin:${ADMIN_SECRET}` }, ADMIN_SECRET)
  const best = { open: Infinity, secured: Infinity }
  for (let round = 0; round < 30; round++) {
    best.open = Math.min(best.open, await open.run(2000))
    best.secured = Math.min(best.secured, await secured.run(2000))
  }
  await open.app.close()
  await secured.app.close()
  console.log(`rotate in-process (app.inject, fastest of 30 runs of 2,000): ${best.open.toFixed(1)} µs without authentication, ` +
    `${best.secured.toFixed(1)} µs with a bearer token: the check costs ${(best.secured - best.open).toFixed(1)} µs, ` +
    `${(((best.secured - best.open) / best.secured) * 100).toFixed(1)}% of rotate throughput`)
}

/** The pool endpoints, each against a bare-route run taken right before it. */
async function measurePools (dir: string): Promise<void> {
  // Seeding makes ~2,100 admin requests: lift the admin rate limit for it.
  const service = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'bench.db')}`, LOG_LEVEL: 'warn', ADMIN_RATE_LIMIT: '1000000' })
  const bare = await startBare()
  try {
    const { rotatePool } = await seed(service.url)
    const { healthPool, reportProvider } = await seedHealthPool(service.url)
    // The machine's speed drifts (shared host), so each endpoint is compared with
    // a bare-route run taken right before it.
    const rows: Array<Row & { bare: number }> = []
    const endpoints: Array<[string, string, 'GET' | 'POST', unknown?]> = [
      ['POST /api/pools/{id}/rotate (5 members)', `${service.url}/api/pools/${rotatePool}/rotate`, 'POST'],
      ['POST /api/pools/{id}/rotate (5 members, quotas, one cooling down)', `${service.url}/api/pools/${healthPool}/rotate`, 'POST'],
      ['POST /api/pools/{id}/report', `${service.url}/api/pools/${healthPool}/report`, 'POST', { provider_id: reportProvider, success: true, latency_ms: 12 }],
      ['GET /api/pools/{id} (5 members)', `${service.url}/api/pools/${rotatePool}`, 'GET'],
      ['GET /api/pools (100 pools x 10 members)', `${service.url}/api/pools`, 'GET']
    ]
    for (const [name, url, method, body] of endpoints) {
      const reference = await load('bare Fastify route', `${bare.url}/bare`)
      rows.push({ ...reference, bare: reference.rps })
      rows.push({ ...await load(name, url, method, body), bare: reference.rps })
    }
    const status = (await http('GET', `${service.url}/api/pools/${rotatePool}`)).body
    console.log(`\nautocannon: ${CONNECTIONS} connections, ${SECONDS} s per endpoint, SQLite file, service LOG_LEVEL=warn\n`)
    console.log('| endpoint | requests/s | p50 ms | p99 ms | ratio to the bare run before it | errors |')
    console.log('|---|---:|---:|---:|---:|---:|')
    for (const row of rows) {
      console.log(`| ${row.name} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${(row.rps / row.bare).toFixed(2)} | ${row.errors} |`)
    }
    console.log(`\nrotations committed on the benchmark pool: ${status.total_rotations} (every one durable before its response)`)
    const plain = rows.find((r) => r.name.startsWith('POST /api/pools/{id}/rotate (5 members)'))
    const health = rows.find((r) => r.name.includes('quotas'))
    if (plain !== undefined && health !== undefined) {
      console.log(`rotate with health and quotas in play: ${((health.rps / plain.rps) * 100).toFixed(0)}% of plain rotate's requests/s`)
    }
  } finally {
    await bare.stop()
    await service.stop()
  }
}

/** A bench that is a script of its own (issue 28's choice.ts, engine.ts), run as a process: it prints its own table. */
function standalone (file: string): (dir: string) => Promise<void> {
  return async () => {
    const ran = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit' })
    if (ran.status !== 0) throw new Error(`bench/${file} failed (exit ${String(ran.status)})`)
  }
}

/** The older parts, each on its own services. */
const SECTIONS: Record<string, (dir: string) => Promise<void>> = {
  pools: measurePools,
  chunks: measureChunks,
  auth: async (dir) => { await measureAuthCost(dir); await measureAuthCpu() },
  checks: measureChecks,
  'event-loop': measureEventLoop,
  cache: measureCache,
  workers: async (dir) => { printWorkers(await measureWorkers(dir)) },
  'failure-cost': async (dir) => { printFailureCost(await measureFailureCost(dir)) },
  choice: standalone('choice.ts'),
  'rotate-cpu': standalone('rotate-in-process.ts'),
  engine: standalone('engine.ts'),
  dataplane: measureDataplane,
  rpc: measureRpc,
  streams: measureStreams
}
const PARTS = [...TARGET_JOBS, ...Object.keys(SECTIONS)]

/** `BENCH_ONLY=reads,proxy,rotate,pools,chunks,auth,checks,event-loop,cache` runs those parts only; all by default. */
const only = ONLY ?? PARTS
const unknown = only.filter((name) => !PARTS.includes(name))
if (unknown.length > 0) {
  console.error(`BENCH_ONLY / --only: unknown part '${unknown.join("', '")}' (${PARTS.join(', ')})`)
  process.exit(2)
}
const dir = mkdtempSync(join(tmpdir(), 'sourcepool-bench-'))
try {
  const targets = TARGET_JOBS.filter((job: TargetJob) => only.includes(job))
  if (targets.length > 0) await measureTargets(dir, targets)
  for (const name of only) await SECTIONS[name]?.(dir)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
