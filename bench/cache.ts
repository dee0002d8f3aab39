/**
 * The response cache of issue #27 (`npm run bench -- --only cache`): is a cache HIT
 * as cheap as serving bytes from memory, and does a crowd of identical requests
 * spend one upstream call?
 *
 * 1. The same answer (a 2 KB JSON body with a few headers) served three ways, each
 *    loaded like the target table (load.ts, the process under test on the server's
 *    CPU): a bare Fastify route holding the bytes (same-bytes-server.ts), NGINX
 *    (1 worker) from its `proxy_cache`, and sourcepool's cache HIT through the proxy
 *    (a 3-member pool, cache_ttl_seconds 3600), then the service's cheapest read
 *    (`GET /api/pools/{id}`) as the app's own floor. Both caches are warmed by one
 *    request and checked around their runs: the upstream saw no further request, and
 *    the service counted nothing but HIT (its Prometheus counter). Each run also
 *    reads its server's CPU time from /proc: the CPU per answer does not depend on how
 *    hard the load generator, which shares the machine, can push.
 * 2. Coalescing: BURST identical GETs at once, on connections opened before, of a
 *    fresh key each round, to an upstream answering after DELAY_MS: how many reached
 *    the upstream (target 1) and their p99 (target ≤ DELAY_MS + 20 ms); beside it the
 *    same burst straight to the upstream, which shows what the client and the loopback
 *    cost alone.
 *
 * This file is also the two helper processes it starts (BENCH_CACHE_ROLE), both on
 * the load generator's CPU: the upstream, which counts what it is asked
 * (`GET /__counts`), and the burst's client. BENCH_CACHE_PROFILE=<folder> loads the
 * event-loop part's probe into the service (event-loop-probe.ts), which writes a CPU
 * profile of the HIT run (`cache-hit.cpuprofile`), of the app's floor (`cache-floor`) and of
 * each coalescing round through the proxy (`cache-burst-<round>`) there (figures taken so are
 * not comparable).
 */
import { spawn, spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, get } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../test/server-process.js'
import { NGINX_INSTALLED, nginxVersion, startNginx } from '../test/nginx.js'
import { describeLoadTool, runLoad, type LoadResult } from './load.js'
import { CONNECTIONS, CPUS, DURATION, describePinning, pinned } from './options.js'
import { call } from './pool-jobs.js'
import { startProbedService } from './event-loop-service.js'
import { startScript, startService, type Running } from './processes.js'
import { printTargets, ratioRow, RunLog, skippedRow, type TargetRow } from './target-table.js'

/** The upstream's answer time on `/slow/…` paths (the coalescing part). */
export const DELAY_MS = 200
/** Seconds of the load that warms each server before its measured run. */
const WARM_S = Math.min(3, DURATION)
/** Identical requests sent at once in each coalescing round. */
export const BURST = 1000
const ROUNDS = 3
export const PATH = '/quote'
const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The upstream's answer body: about 2 KB of JSON. */
export const BODY = JSON.stringify({
  symbol: 'ACME',
  currency: 'USD',
  quotes: Array.from({ length: 24 }, (_, i) => ({ t: 1_700_000_000 + i * 60, open: 100 + i, high: 101.5 + i, low: 99.25 + i, close: 100.75 + i, volume: 12_000 + i * 37 }))
})

/** Its headers: cacheable for an hour by either cache, as a market-data API might say. */
export const HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(Buffer.byteLength(BODY)),
  'cache-control': 'public, max-age=3600',
  etag: '"acme-quotes-1"',
  'last-modified': 'Tue, 01 Jul 2025 12:00:00 GMT',
  'x-ratelimit-limit': '50'
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`
const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex')
const BODY_SHA = sha(BODY)

// ---------------------------------------------------------------------------
// The helper processes.

/** The upstream: answers every GET with BODY (after DELAY_MS on `/slow/…`) and counts the requests per target. */
function serveUpstream (): void {
  const counts = new Map<string, number>()
  const server = createServer((req, res) => {
    const target = req.url ?? '/'
    if (target === '/__counts') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Object.fromEntries(counts)))
      return
    }
    counts.set(target, (counts.get(target) ?? 0) + 1)
    const send = () => { res.writeHead(200, HEADERS).end(BODY) }
    if (target.startsWith('/slow/')) setTimeout(send, DELAY_MS)
    else send()
  })
  server.keepAliveTimeout = 60_000
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`Server listening at http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
  })
  process.once('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections() })
}

/** One request of a burst, as the client saw it. */
interface Answer { readonly ms: number, readonly status: number, readonly cache: string, readonly sha: string }

/** What one burst measured. */
interface Burst {
  /** Connections open when the burst started. */
  readonly connected: number
  /** Milliseconds the client took to send all the requests of the burst. */
  readonly sendMs: number
  readonly answers: Answer[]
}

/**
 * One keep-alive connection speaking just enough HTTP/1.1 for the burst: it sends
 * a request written in advance and reads one answer, which must have a Content-Length.
 * Far cheaper than a general client, so BURST answers cost the client little.
 */
class RawConnection {
  private buffered: Buffer = Buffer.alloc(0)
  private waiting: ((answer: Answer) => void) | undefined
  private failed: ((error: Error) => void) | undefined
  private sent = 0

  private constructor (private readonly socket: Socket) {
    socket.setNoDelay(true)
    socket.on('data', (chunk: Buffer) => { this.read(chunk) })
    socket.on('error', (error) => { this.failed?.(error) })
  }

  static async open (port: number): Promise<RawConnection> {
    return await new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => { socket.off('error', reject); resolve(new RawConnection(socket)) })
      socket.once('error', reject)
    })
  }

  /** Sends `request` and resolves with its answer, timed from this call to the answer's last byte. */
  async send (request: Buffer): Promise<Answer> {
    const answered = new Promise<Answer>((resolve, reject) => { this.waiting = resolve; this.failed = reject })
    this.sent = performance.now()
    this.socket.write(request)
    return await answered
  }

  private read (chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk])
    const end = this.buffered.indexOf('\r\n\r\n')
    if (end === -1) return
    const head = this.buffered.subarray(0, end).toString('latin1')
    const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1]
    if (length === undefined) { this.failed?.(new Error(`an answer without Content-Length: ${head}`)); return }
    const size = end + 4 + Number(length)
    if (this.buffered.length < size) return
    const body = this.buffered.subarray(end + 4, size)
    this.buffered = this.buffered.subarray(size)
    this.waiting?.({
      ms: performance.now() - this.sent,
      status: Number(head.slice(9, 12)),
      cache: /\r\nx-sourcepool-cache: *(\S+)/i.exec(head)?.[1] ?? '-',
      sha: sha(body)
    })
  }

  close (): void { this.socket.destroy() }
}

/**
 * The burst's client: opens BURST_COUNT connections to BURST_ORIGIN (100 at a time,
 * each then used once for BURST_WARM), says `ready` and waits for a line on its
 * standard input, then sends a GET of BURST_PATH on every connection at once and
 * prints what came back as JSON.
 */
async function sendBurst (): Promise<void> {
  const { port, host } = new URL(process.env.BURST_ORIGIN ?? '')
  const count = Number(process.env.BURST_COUNT)
  const request = (path: string) => Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, 'latin1')
  const warm = request(process.env.BURST_WARM ?? '/')
  const connections: RawConnection[] = []
  while (connections.length < count) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, count - connections.length) }, async () => {
      const connection = await RawConnection.open(Number(port))
      await connection.send(warm)
      return connection
    }))
    connections.push(...batch)
  }
  process.stdout.write('ready\n')
  await new Promise((resolve) => process.stdin.once('data', resolve))
  process.stdin.destroy()
  const burst = request(process.env.BURST_PATH ?? '/')
  const started = performance.now()
  const answers = connections.map(async (connection) => await connection.send(burst))
  const sendMs = performance.now() - started
  const result: Burst = { connected: connections.length, sendMs, answers: await Promise.all(answers) }
  for (const connection of connections) connection.close()
  process.stdout.write(JSON.stringify(result))
}

// ---------------------------------------------------------------------------
// The benchmark.

/**
 * Runs one burst (its client pinned to the load generator's CPU) and resolves with
 * what it measured; `ready` runs once its connections are open, right before the burst.
 */
async function runBurst (origin: string, path: string, warm: string, ready: () => Promise<void>): Promise<Burst> {
  const [command, args] = pinned('load', process.execPath, ['--import', 'tsx', 'bench/cache.ts'])
  const env = { ...process.env, BENCH_CACHE_ROLE: 'burst', BURST_ORIGIN: origin, BURST_PATH: path, BURST_WARM: warm, BURST_COUNT: String(BURST) }
  return await new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'inherit'] })
    let out = ''
    let told = false
    child.stdout.on('data', (chunk) => {
      out += String(chunk)
      if (told || !out.startsWith('ready\n')) return
      told = true
      ready().then(() => child.stdin.end('go\n'), (error: unknown) => { child.kill(); reject(error) })
    })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0 && told) resolve(JSON.parse(out.slice('ready\n'.length)) as Burst)
      else reject(new Error(`the burst client exited with ${code}: ${out.slice(0, 500)}`))
    })
  })
}

/** The process's user + system CPU seconds so far, or one of its threads' (Linux /proc). */
export function cpuSeconds (pid: number, thread?: number): number {
  const fields = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** The processes listening at `url`'s port (`ss`, iproute2), whose CPU time a run reads; none when ss is missing. */
export function listeners (url: string): number[] {
  const out = spawnSync('ss', ['-Hltnp', `sport = :${new URL(url).port}`])
  return [...new Set([...String(out.stdout).matchAll(/pid=(\d+)/g)].map((match) => Number(match[1])))]
}

/** The upstream's request counts, by request target. */
export async function upstreamCounts (upstream: string): Promise<Record<string, number>> {
  return await call('GET', `${upstream}/__counts`)
}

export const total = (counts: Record<string, number>) => Object.values(counts).reduce((sum, n) => sum + n, 0)

/** The service's cache counter for `pool`, by result (HIT, MISS, STALE, BYPASS), from /metrics. */
export async function cacheCounts (service: string, pool: number): Promise<Record<string, number>> {
  const text = await (await fetch(`${service}/metrics`)).text()
  const counts: Record<string, number> = {}
  for (const line of text.split('\n')) {
    if (!line.startsWith('sourcepool_cache_requests_total{') || !line.includes(`pool_id="${pool}"`)) continue
    const result = /result="([A-Z]+)"/.exec(line)?.[1]
    if (result !== undefined) counts[result] = Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return counts
}

/** `after` − `before` for every result either has. */
export function delta (before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {}
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) out[key] = (after[key] ?? 0) - (before[key] ?? 0)
  return out
}

/**
 * One GET with no header but Host (as wrk sends it: the cache key holds Accept and
 * Accept-Encoding, so a warm-up with other headers would fill another entry): its
 * status, the header `name`, and whether the body is BODY.
 */
async function probe (url: string, name: string): Promise<{ status: number, header: string, same: boolean }> {
  return await new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const header = res.headers[name]
        resolve({ status: res.statusCode ?? 0, header: typeof header === 'string' ? header : '-', same: sha(Buffer.concat(chunks)) === BODY_SHA })
      })
    }).on('error', reject)
  })
}

/** GETs `url` until the header `name` says HIT (the first answer fills the cache); throws when it never does. */
export async function warm (url: string, name: string): Promise<void> {
  const seen: string[] = []
  for (let i = 0; i < 3; i++) {
    const answer = await probe(url, name)
    if (answer.status !== 200 || !answer.same) throw new Error(`${url} answered ${answer.status}${answer.same ? '' : ' with other bytes than the upstream'}`)
    seen.push(answer.header)
    if (answer.header === 'HIT') return
  }
  throw new Error(`${url}: ${name} was ${seen.join(', ')}, never HIT`)
}

/** A 3-member pool with a one-hour cache, every member the upstream. */
export async function seedCachedPool (service: string, upstream: string): Promise<number> {
  const pool = (await call('POST', `${service}/api/pools`, { name: 'cached', category: 'bench', cache_ttl_seconds: 3600 })).pool_id
  for (let m = 0; m < 3; m++) {
    const provider = (await call('POST', `${service}/api/providers`, { name: `cached-upstream-${m}`, base_url: upstream })).provider_id
    await call('POST', `${service}/api/pools/${pool}/members`, { provider_id: provider })
  }
  return pool
}

/**
 * NGINX (1 worker, pinned to the server's CPU) in front of `upstream`, caching 200s
 * for an hour (`proxy_cache`, `proxy_cache_lock`), saying what its cache did in
 * `X-Cache-Status`. Its files live in a directory of their own that its worker
 * (nobody, under root) can reach; undefined when nginx is not installed.
 */
export async function startCachingNginx (upstream: string): Promise<Running | undefined> {
  if (!NGINX_INSTALLED) return undefined
  const prefix = mkdtempSync(join(tmpdir(), 'sourcepool-bench-nginx-'))
  chmodSync(prefix, 0o755)
  const port = await freePort()
  const nginx = await startNginx(prefix, `
  access_log off;
  proxy_cache_path ${join(prefix, 'cache')} levels=1:2 keys_zone=bench:10m max_size=100m inactive=1h use_temp_path=off;
  upstream backend {
    server ${new URL(upstream).host};
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_cache bench;
      proxy_cache_valid 200 1h;
      proxy_cache_lock on;
      add_header X-Cache-Status $upstream_cache_status always;
    }
  }`, port, (command, args) => pinned('server', command, args)).catch((error: unknown) => {
    rmSync(prefix, { recursive: true, force: true })
    throw error
  })
  return {
    url: `http://127.0.0.1:${port}`,
    stop: async () => { await nginx.stop(); rmSync(prefix, { recursive: true, force: true }) }
  }
}

const commit = () => String(spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).stdout).trim() || 'unknown'
const describeLoad = () => `load average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} (1 / 5 / 15 min; ${CPUS} CPUs)`

function printEnvironment (): void {
  console.log('\n## Issue #27: the response cache\n')
  console.log(`- ${new Date().toISOString()}, commit ${commit()}; machine: ${CPUS} CPUs (${cpus()[0]?.model.trim() ?? 'unknown model'}), Node ${process.version}`)
  console.log(`- load generator: ${describeLoadTool()}, ${CONNECTIONS} connections, ${DURATION} s per run (BENCH_DURATION), each server warmed by ${WARM_S} s of the same load first`)
  console.log(`- ${describePinning()}; the burst's client and the upstream on the load generator's CPU`)
  console.log(`- NGINX: ${NGINX_INSTALLED ? `${nginxVersion()}, 1 worker, proxy_cache` : 'not installed (apt-get install nginx): its row is skipped'}`)
  console.log('- service: `node dist/main.js`, SQLite file, LOG_LEVEL=warn, the memory cache (no CACHE_URL)')
  console.log(`- ${describeLoad()} at the start`)
}

/**
 * Checks that every answer of a load run came from the cache: the upstream saw no
 * request, and (for sourcepool) the service counted at least `requests` HITs and nothing else.
 * Answers what went wrong, or undefined.
 */
export function cacheTrouble (upstreamCalls: number, requests: number, counted?: Record<string, number>): string | undefined {
  const problems: string[] = []
  if (upstreamCalls !== 0) problems.push(`${upstreamCalls} upstream calls`)
  if (counted !== undefined) {
    const hits = counted.HIT ?? 0
    if (hits < requests) problems.push(`${hits} HITs counted for ${requests} answers`)
    for (const [result, n] of Object.entries(counted)) if (result !== 'HIT' && n !== 0) problems.push(`${n} ${result}`)
  }
  return problems.length === 0 ? undefined : problems.join(', ')
}

/** A ratio row, marked invalid when the cache misbehaved during either run. */
function checkedRow (row: TargetRow, trouble: string | undefined): TargetRow {
  return trouble === undefined ? row : { ...row, met: `invalid: ${trouble}` }
}

/** A load run with the CPU time its server spent (user + system, µs per answer; undefined when unknown), and its main threads' share. */
export interface Measured { readonly run: LoadResult, readonly cpuUs?: number, readonly mainUs?: number }

/** Loads `url` (`connections`, BENCH_DURATION) and reads the CPU time of `pids` around it, whole and main thread (none when the processes are unknown). */
export async function measured (log: RunLog, name: string, url: string, pids: number[], connections = CONNECTIONS): Promise<Measured> {
  const read = () => pids.map((pid) => [cpuSeconds(pid), cpuSeconds(pid, pid)] as const)
  const before = read()
  const run = await log.load(name, { url }, connections)
  if (pids.length === 0) return { run }
  const after = read()
  const spent = (k: 0 | 1) => after.reduce((sum, times, i) => sum + times[k] - (before[i] as typeof times)[k], 0)
  return { run, cpuUs: (spent(0) / run.requests) * 1e6, mainUs: (spent(1) / run.requests) * 1e6 }
}

/** Part 1: a cache HIT against the same bytes from memory and against NGINX's cache HIT. */
async function measureHits (dir: string, { url: service, pid, profile }: CacheService, pool: number, upstream: string, running: Running[]): Promise<void> {
  const ours = `${service}/api/pools/${pool}/proxy${PATH}`
  await warm(ours, 'x-sourcepool-cache')
  const file = join(dir, 'cache-answer.json')
  writeFileSync(file, BODY)
  const bare = await startScript('bench/same-bytes-server.ts', { BODY_FILE: file, CONTENT_TYPE: HEADERS['content-type'] }, 'server')
  running.push(bare)
  if (!(await probe(`${bare.url}${PATH}`, 'content-type')).same) throw new Error('the same-bytes server answered other bytes than the upstream')
  let nginxFailure = 'nginx not installed (apt-get install nginx)'
  const nginx = await startCachingNginx(upstream).catch((error: Error) => { nginxFailure = error.message; return undefined })
  if (nginx !== undefined) {
    running.push(nginx)
    await warm(`${nginx.url}${PATH}`, 'x-cache-status')
  }

  // Every server is loaded briefly first, so its runs measure it warm (the JIT's compiling threads count as its CPU too).
  const record = `${service}/api/pools/${pool}`
  for (const url of [`${bare.url}${PATH}`, ...(nginx === undefined ? [] : [`${nginx.url}${PATH}`]), ours, record]) await runLoad({ url }, CONNECTIONS, WARM_S)
  const log = new RunLog()
  const bareRun = await measured(log, 'bare Fastify route, the same bytes from memory', `${bare.url}${PATH}`, listeners(bare.url))
  let nginxRun: Measured | undefined
  let nginxTrouble: string | undefined
  if (nginx !== undefined) {
    const before = total(await upstreamCounts(upstream))
    nginxRun = await measured(log, 'NGINX proxy_cache HIT (1 worker)', `${nginx.url}${PATH}`, listeners(nginx.url))
    const after = await probe(`${nginx.url}${PATH}`, 'x-cache-status')
    nginxTrouble = cacheTrouble(total(await upstreamCounts(upstream)) - before, nginxRun.run.requests) ??
      (after.header === 'HIT' ? undefined : `X-Cache-Status ${after.header} after the run`)
  }
  const upstreamBefore = total(await upstreamCounts(upstream))
  const countedBefore = await cacheCounts(service, pool)
  await profile('cache-hit')
  const hit = await measured(log, 'sourcepool cache HIT through the proxy, 3-member pool', ours, [pid])
  await profile()
  const counted = delta(countedBefore, await cacheCounts(service, pool))
  const upstreamCalls = total(await upstreamCounts(upstream)) - upstreamBefore
  const oursTrouble = cacheTrouble(upstreamCalls, hit.run.requests, counted)
  // The app's own floor: its cheapest read (the pool's record, from memory), every hook and counter of a request included.
  const recordSize = (await (await fetch(record)).arrayBuffer()).byteLength
  await profile('cache-floor')
  const floor = await measured(log, `sourcepool GET /api/pools/{id} (${kb(recordSize)}, from memory)`, record, [pid])
  await profile()

  const job = `cache HIT, ${kb(Buffer.byteLength(BODY))} JSON answer`
  const nginxRow = nginxRun === undefined
    ? skippedRow(job, 'NGINX proxy_cache HIT, 1 worker', '≥ 0.3', nginxFailure)
    : checkedRow(ratioRow(job, hit.run, 'NGINX proxy_cache HIT, 1 worker', nginxRun.run, 0.3), oursTrouble ?? nginxTrouble)
  printTargets([checkedRow(ratioRow(job, hit.run, 'bare Fastify route, same bytes', bareRun.run, 0.5), oursTrouble), nginxRow], log)
  const results = Object.entries(counted).map(([result, n]) => `${n} ${result}`).join(', ')
  console.log(`\nsourcepool's HIT run: the service counted ${results === '' ? 'nothing' : results} for the ${hit.run.requests} answers the load generator ` +
    `received, and the upstream saw ${upstreamCalls} calls` +
    (nginxRun === undefined ? '' : `; NGINX's run: ${nginxTrouble ?? 'no upstream call, X-Cache-Status HIT before and after'}`))
  const cpu = (m: Measured | undefined) => m?.cpuUs === undefined ? '–' : `${Math.round(m.cpuUs)} µs`
  const ratio = (m: Measured | undefined) => m?.cpuUs === undefined || hit.cpuUs === undefined ? '–' : (m.cpuUs / hit.cpuUs).toFixed(2)
  console.log('\nCPU per answer of the process under test (user + system from /proc over its run; what its ratio would be if it alone set the pace):\n')
  console.log('| run | CPU per answer | its CPU / the HIT\'s |')
  console.log('|---|---:|---:|')
  for (const [name, m] of [['bare Fastify route', bareRun], ['NGINX proxy_cache HIT', nginxRun], ['sourcepool cache HIT', hit], ['sourcepool GET /api/pools/{id}', floor]] as const) {
    console.log(`| ${name} | ${cpu(m)} | ${ratio(m)} |`)
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] as number

/** `{ value: count }` of `values`, as `value ×count` text. */
function tally (values: Array<string | number>): string {
  const counts = new Map<string, number>()
  for (const value of values) counts.set(String(value), (counts.get(String(value)) ?? 0) + 1)
  return [...counts].map(([value, n]) => `${value} ×${n}`).join(', ')
}

/** What one burst of BURST identical GETs measured, through the proxy or straight to the upstream. */
export interface BurstRound {
  readonly burst: Burst
  /** Calls the upstream saw for the burst's target, and elsewhere meanwhile (none expected). */
  readonly calls: number
  readonly others: number
  /** CPU time of the server answering the burst (the service, or the upstream itself), ms. */
  readonly cpuMs?: number
  readonly same: number
  readonly statuses: string
  readonly cache: string
  readonly p50: number
  readonly p99: number
  readonly max: number
  /** The MISS's latency (the one request that reached the upstream), ms. */
  readonly leaderMs?: number
  /** What makes the round fail whatever its p99 (other bytes, statuses; through the proxy, not one call and one MISS). */
  readonly problems: readonly string[]
}

/** One burst of BURST identical GETs of a fresh key (`stamp` makes it fresh) via `service`'s `pool`, or straight to `upstream`. */
export async function burstRound (via: 'sourcepool' | 'upstream directly', { url: service, pid, profile }: CacheService, pool: number, upstream: string, stamp: string): Promise<BurstRound> {
  const path = `/slow/quote?round=${stamp}&via=${via === 'sourcepool' ? 'cache' : 'direct'}`
  const before = await upstreamCounts(upstream)
  // The CPU time of the server answering the burst (the service, or the upstream itself), its connections already open.
  const server = via === 'sourcepool' ? [pid] : listeners(upstream)
  let cpuBefore = 0
  const ready = async () => {
    if (via === 'sourcepool') await profile(`cache-burst-${stamp}`)
    cpuBefore = server.reduce((sum, id) => sum + cpuSeconds(id), 0)
  }
  const burst = via === 'sourcepool'
    ? await runBurst(service, `/api/pools/${pool}/proxy${path}`, `/api/pools/${pool}/proxy${PATH}`, ready)
    : await runBurst(upstream, path, PATH, ready)
  const cpuMs = server.length === 0 ? undefined : (server.reduce((sum, id) => sum + cpuSeconds(id), 0) - cpuBefore) * 1000
  if (via === 'sourcepool') await profile()
  const after = await upstreamCounts(upstream)
  const calls = after[path] ?? 0
  const others = total(after) - total(before) - calls - (via === 'sourcepool' ? 0 : BURST)
  const times = burst.answers.map((a) => a.ms).sort((a, b) => a - b)
  const same = burst.answers.filter((a) => a.sha === BODY_SHA).length
  const statuses = tally(burst.answers.map((a) => a.status))
  const cache = via === 'sourcepool' ? tally(burst.answers.map((a) => a.cache)) : '–'
  const problems: string[] = []
  if (same !== BURST) problems.push(`${BURST - same} answers with other bytes`)
  if (burst.answers.some((a) => a.status !== 200)) problems.push(`statuses ${statuses}`)
  if (via === 'sourcepool' && calls !== 1) problems.push(`${calls} upstream calls`)
  if (via === 'sourcepool' && burst.answers.filter((a) => a.cache === 'MISS').length !== 1) problems.push(`cache ${cache}`)
  const leaderMs = burst.answers.find((a) => a.cache === 'MISS')?.ms
  return {
    burst,
    calls,
    others,
    ...(cpuMs === undefined ? {} : { cpuMs }),
    same,
    statuses,
    cache,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    max: times[times.length - 1] as number,
    ...(leaderMs === undefined ? {} : { leaderMs }),
    problems
  }
}

/** One burst, not counted, so the service's first measured burst does not pay for compiling its path. */
export async function warmUpBurst (service: string, pool: number): Promise<void> {
  process.stderr.write(`bench: cache: a warm-up burst of ${BURST} identical GETs, not counted\n`)
  await runBurst(service, `/api/pools/${pool}/proxy/slow/quote?warm-up=${Date.now()}`, `/api/pools/${pool}/proxy${PATH}`, async () => {})
}

/** Part 2: BURST identical requests for a fresh key, ROUNDS times, through the proxy and straight to the upstream. */
async function measureCoalescing (service: CacheService, pool: number, upstream: string): Promise<void> {
  const target = DELAY_MS + 20
  const rows: string[] = []
  const misses: string[] = []
  await warmUpBurst(service.url, pool)
  for (let round = 1; round <= ROUNDS; round++) {
    const stamp = `${round}-${Date.now()}`
    for (const via of ['sourcepool', 'upstream directly'] as const) {
      process.stderr.write(`bench: cache: round ${round}, ${BURST} identical GETs at once, ${via}\n`)
      const r = await burstRound(via, service, pool, upstream, stamp)
      let met = '–'
      if (via === 'sourcepool') {
        met = r.problems.length > 0 ? `**not met**: ${r.problems.join('; ')}` : r.p99 <= target ? 'met' : `**p99 not met** (+${(r.p99 - target).toFixed(1)} ms)`
        if (met !== 'met') misses.push(`round ${round}: ${met}`)
      } else if (r.problems.length > 0) met = `invalid: ${r.problems.join('; ')}`
      if (r.others > 0) met += ` (${r.others} unexpected upstream calls elsewhere)`
      rows.push(`| ${round} | ${via} | ${r.burst.connected} | ${r.burst.sendMs.toFixed(1)} | ${r.cpuMs === undefined ? '–' : Math.round(r.cpuMs)} | ${r.calls} | ${r.cache} | ` +
        `${r.leaderMs === undefined ? '–' : r.leaderMs.toFixed(1)} | ${r.statuses} | ${r.same} | ` +
        `${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.max.toFixed(1)} | ${met} |`)
    }
  }
  console.log(`\nCoalescing: ${BURST} identical GETs sent at once on ${BURST} open connections, a fresh query string each round (after one warm-up burst); the upstream answers after ` +
    `${DELAY_MS} ms. Targets: 1 upstream call, p99 ≤ ${target} ms (latency from each request's own send to its last byte)\n`)
  console.log('| round | to | connections open | ms to send all | server CPU ms | upstream calls | x-sourcepool-cache | MISS ms | statuses | same bytes | p50 ms | p99 ms | max ms | met? |')
  console.log('|---:|---|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---|')
  for (const row of rows) console.log(row)
  if (misses.length > 0) console.log(`\nnot met: ${misses.join('; ')}`)
}

/** Starts or ends a CPU profile of the service: `name` starts one, none ends the one running (without BENCH_CACHE_PROFILE, nothing). */
export type Profiler = (name?: string) => Promise<void>

/** The service under test: where it listens, its process id, and its profiler. */
export interface CacheService extends Running { readonly pid: number, readonly profile: Profiler }

/** BENCH_CACHE_PROFILE: where the service's CPU profiles go ('' for none). */
const PROFILES = process.env.BENCH_CACHE_PROFILE ?? ''

/** The service on a SQLite file in `dir`, with the probe that takes CPU profiles when BENCH_CACHE_PROFILE is set. */
async function startCacheService (dir: string): Promise<CacheService> {
  const env = { DATABASE_URL: `sqlite:${join(dir, 'cache.db')}`, ADMIN_RATE_LIMIT: '1000000' }
  if (PROFILES === '') {
    const service = await startService(env)
    return { ...service, pid: service.pid as number, profile: async () => {} }
  }
  const probed = await startProbedService({ ...env, PROBE_PROFILE_DIR: resolve(PROFILES) })
  return { ...probed, profile: async (name) => { await probed.readDelay(name) } }
}

/** Runs both parts on a fresh service (SQLite file in `dir`) and prints their tables. */
export async function measureCache (dir: string): Promise<void> {
  printEnvironment()
  const running: Running[] = []
  try {
    const upstream = await startScript('bench/cache.ts', { BENCH_CACHE_ROLE: 'upstream' }, 'load')
    running.push(upstream)
    const service = await startCacheService(dir)
    running.push(service)
    const pool = await seedCachedPool(service.url, upstream.url)
    await measureHits(dir, service, pool, upstream.url, running)
    await measureCoalescing(service, pool, upstream.url)
  } finally {
    for (const process of running.reverse()) await process.stop()
  }
  console.log(`\n${describeLoad()} at the end; near or above ${CPUS} means other work shared the machine`)
}

const role = process.env.BENCH_CACHE_ROLE
if (role === 'upstream') serveUpstream()
else if (role === 'burst') await sendBurst()
