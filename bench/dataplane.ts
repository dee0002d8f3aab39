/**
 * Issue 35's benchmark (`npm run bench -- --only dataplane`): one run, one table, every figure of the
 * data plane beside its peer measured in the same run, with the issue's targets (dataplane-table.ts):
 * 1. the proxy (1 KiB, 3-member pool, wrk 10 connections, pinned like the target table: the load
 *    generator and the upstreams on one CPU, the process under test on the other) against Fastify +
 *    @fastify/reply-from and NGINX (1 worker), by requests/s and by server CPU per request (/proc), and
 *    its added median latency over the upstream on one connection; 2. its p99 at 64 and 256 connections
 *    against the upstream's own; 3. a cache HIT against a bare route serving the same bytes and NGINX's
 *    `proxy_cache` HIT (cache.ts's pieces); 4. 1,000 identical concurrent GETs to a 200 ms upstream
 *    (cache.ts's burst); 5. the CPU of a request whose 3 members all refuse the connection against the
 *    success path's (failure-cost.ts's pool); 6. the connects made to 2 members that reset every
 *    connection (raw sockets here, counting) over 40 quick requests; 7. heap bytes allocated and GC time
 *    per request against reply-from's, from gc-probe.mjs loaded into both servers (its header says how).
 *
 * A/B: BENCH_SERVICE_DIR=<another checkout> (its node_modules a link to this one's is enough; it is
 * built there first) runs a second service from that checkout's dist/, measured right after this
 * checkout's in every step, so both builds' columns come from one run against the same peers.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo, type Server } from 'node:net'
import { cpus, loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { refusingUrl } from '../test/upstreams.js'
import {
  BODY, burstRound, cacheCounts, cacheTrouble, delta, HEADERS, listeners, measured, PATH as CACHE_PATH,
  seedCachedPool, startCachingNginx, total, upstreamCounts, warm, warmUpBurst, type CacheService, type Measured
} from './cache.js'
import { printBursts, printGc, printTable, type Figures, type Peers } from './dataplane-table.js'
import { seedPool, WARM_UP_S } from './failure-cost.js'
import { GC_PROBE_ARGS, gcWindow } from './gc-window.js'
import { describeLoadTool, runLoad } from './load.js'
import { NGINX_INSTALLED, nginxVersion, startNginx } from './nginx.js'
import { CONNECTIONS, CPUS, DURATION, describePinning } from './options.js'
import { call } from './pool-jobs.js'
import { startScript, startService, type Running } from './processes.js'
import { PATH, seedProxyPool } from './proxy.js'
import { printRuns, RunLog } from './target-table.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** The other checkout of an A/B run, or undefined. */
const SERVICE_DIR = process.env.BENCH_SERVICE_DIR === undefined || process.env.BENCH_SERVICE_DIR === '' ? undefined : resolve(process.env.BENCH_SERVICE_DIR)
/** Connection counts of the p99 runs. */
const WIDE = [64, 256]
const BURST_ROUNDS = 2
const RESET_MEMBERS = 2
const RESET_REQUESTS = 40
const SEQUENTIAL_S = Math.max(2, Math.round(DURATION / 2))

/** A build of the service under test, seeded. */
interface Subject {
  readonly label: string
  readonly service: Running & { readonly pid: number }
  readonly probeFile: string
  readonly pools: { readonly proxy: number, readonly cached: number, readonly refusing: number, readonly resetting: number }
}

/** A raw TCP server that resets every connection it accepts, counting them. */
interface Resetter { url: string, connects: number, readonly server: Server }

async function startResetter (): Promise<Resetter> {
  const server = createServer((socket) => { resetter.connects++; socket.resetAndDestroy() })
  const resetter: Resetter = { url: '', connects: 0, server }
  await new Promise<void>((resolve) => resetter.server.listen(0, '127.0.0.1', resolve))
  resetter.url = `http://127.0.0.1:${(resetter.server.address() as AddressInfo).port}`
  return resetter
}

/** `root`'s commit, and whether its src/ has changes not committed. */
function describeCheckout (root: string): string {
  const git = (...args: string[]) => String(spawnSync('git', ['-C', root, ...args]).stdout).trim()
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown commit'
  return git('status', '--porcelain', '--', 'src') === '' ? commit : `${commit} + uncommitted src/`
}

/** The upstreams and peers every build is measured against. */
interface Bench {
  readonly dir: string
  readonly log: RunLog
  readonly upstream: Running
  readonly cacheUpstream: Running
  readonly refusing: string
  readonly resetters: Resetter[]
  readonly running: Running[]
}

/** Starts the service from `root` with the GC probe and seeds its four pools. */
async function startSubject (bench: Bench, root: string, index: number, label: string): Promise<Subject> {
  const probeFile = join(bench.dir, `gc-service-${index}.json`)
  const env = { DATABASE_URL: `sqlite:${join(bench.dir, `dataplane-${index}.db`)}`, ADMIN_RATE_LIMIT: '1000000', GC_PROBE_FILE: probeFile }
  const started = await startService(env, 60_000, { root, preload: GC_PROBE_ARGS })
  const service = { ...started, pid: started.pid as number }
  bench.running.push(service)
  const { url } = service
  const proxy = await seedProxyPool(url, bench.upstream.url)
  const cached = await seedCachedPool(url, bench.cacheUpstream.url)
  const refusing = await seedPool(url, 'refusing', bench.refusing)
  const resetting = (await call('POST', `${url}/api/pools`, { name: 'resetting', category: 'bench', failure_threshold: 1 })).pool_id
  for (const [m, resetter] of bench.resetters.entries()) {
    const provider = (await call('POST', `${url}/api/providers`, { name: `resetting-${m}`, base_url: resetter.url })).provider_id
    await call('POST', `${url}/api/pools/${resetting}/members`, { provider_id: provider })
  }
  return { label, service, probeFile, pools: { proxy, cached, refusing, resetting } }
}

const proxyUrl = (s: Subject, pool: number, path: string) => `${s.service.url}/api/pools/${pool}/proxy${path}`
const warmUp = async (url: string, connections = CONNECTIONS) => { await runLoad({ url }, connections, Math.min(3, DURATION)) }

/** Items 1, 2 and 7: the proxy at 10 connections (with CPU), under the GC probe, alone on one connection, and at 64 and 256. */
async function measureProxy (bench: Bench, subjects: Subject[], peers: Peers, figures: Figures[]): Promise<void> {
  const { log } = bench
  const direct = await startScript('bench/upstream-server.ts', {}, 'server')
  bench.running.push(direct)
  const nginx = await startNginx(bench.dir, bench.upstream.url).catch((error: Error) => { peers.nginxSkip = error.message; return undefined })
  if (nginx !== undefined) bench.running.push(nginx)
  const rfProbe = join(bench.dir, 'gc-reply-from.json')
  const replyFrom = await startScript('bench/reply-from-server.ts', { UPSTREAM_URL: bench.upstream.url, GC_PROBE_FILE: rfProbe }, 'server', GC_PROBE_ARGS)
  bench.running.push(replyFrom)
  const rfPid = replyFrom.pid as number
  const servers: Array<[string, string, number[]]> = [
    ['upstream directly', `${direct.url}${PATH}`, [direct.pid as number]],
    ...(nginx === undefined ? [] : [['NGINX (1 worker, upstream keepalive)', `${nginx.url}${PATH}`, listeners(nginx.url)] as [string, string, number[]]]),
    ['Fastify + @fastify/reply-from', `${replyFrom.url}${PATH}`, [rfPid]],
    ...subjects.map((s) => [`sourcepool proxy, ${s.label}`, proxyUrl(s, s.pools.proxy, PATH), [s.service.pid]] as [string, string, number[]])
  ]
  // Each server warm first (its JIT's compiling threads count as its CPU too), then each measured.
  for (const [, url] of servers) await warmUp(url)
  const runs: Measured[] = []
  for (const [name, url, pids] of servers) runs.push(await measured(log, name, url, pids))
  peers.direct = runs[0]
  if (nginx !== undefined) peers.nginx = runs[1]
  peers.replyFrom = runs[nginx === undefined ? 1 : 2]
  subjects.forEach((_, i) => { (figures[i] as Figures).proxy = runs[runs.length - subjects.length + i] })

  const probed = async (name: string, url: string, pid: number, file: string) => await gcWindow(pid, file, async () => await measured(log, `${name}, GC probe on`, url, [pid]))
  const rf = await probed('Fastify + @fastify/reply-from', `${replyFrom.url}${PATH}`, rfPid, rfProbe)
  peers.replyFromGc = { run: rf.result, gc: rf.gc }
  for (const [i, s] of subjects.entries()) {
    const g = await probed(`sourcepool proxy, ${s.label}`, proxyUrl(s, s.pools.proxy, PATH), s.service.pid, s.probeFile)
    ;(figures[i] as Figures).gc = { run: g.result, gc: g.gc }
  }

  peers.directAlone = await log.sequential('upstream directly', `${direct.url}${PATH}`, SEQUENTIAL_S)
  for (const [i, s] of subjects.entries()) (figures[i] as Figures).alone = await log.sequential(`sourcepool proxy, ${s.label}`, proxyUrl(s, s.pools.proxy, PATH), SEQUENTIAL_S)
  for (const connections of WIDE) {
    peers.directWide.set(connections, await log.load('upstream directly', { url: `${direct.url}${PATH}` }, connections))
    for (const [i, s] of subjects.entries()) (figures[i] as Figures).wide.set(connections, await log.load(`sourcepool proxy, ${s.label}`, { url: proxyUrl(s, s.pools.proxy, PATH) }, connections))
  }
}

/** Item 3: a cache HIT of each build against the same bytes from a bare route and NGINX's proxy_cache HIT. */
async function measureHits (bench: Bench, subjects: Subject[], peers: Peers, figures: Figures[]): Promise<void> {
  const { log, cacheUpstream } = bench
  const file = join(bench.dir, 'cache-answer.json')
  writeFileSync(file, BODY)
  const bare = await startScript('bench/same-bytes-server.ts', { BODY_FILE: file, CONTENT_TYPE: HEADERS['content-type'] }, 'server')
  bench.running.push(bare)
  const nginx = await startCachingNginx(cacheUpstream.url).catch((error: Error) => { peers.nginxHitSkip = error.message; return undefined })
  if (nginx !== undefined) {
    bench.running.push(nginx)
    await warm(`${nginx.url}${CACHE_PATH}`, 'x-cache-status')
  } else if (!NGINX_INSTALLED) peers.nginxHitSkip = 'nginx not installed'
  const hits = subjects.map((s) => proxyUrl(s, s.pools.cached, CACHE_PATH))
  for (const url of hits) await warm(url, 'x-sourcepool-cache')
  for (const url of [`${bare.url}${CACHE_PATH}`, ...(nginx === undefined ? [] : [`${nginx.url}${CACHE_PATH}`]), ...hits]) await warmUp(url)

  peers.bare = await measured(log, 'bare Fastify route, the same bytes from memory', `${bare.url}${CACHE_PATH}`, [bare.pid as number])
  if (nginx !== undefined) {
    const before = total(await upstreamCounts(cacheUpstream.url))
    peers.nginxHit = await measured(log, 'NGINX proxy_cache HIT (1 worker)', `${nginx.url}${CACHE_PATH}`, listeners(nginx.url))
    const trouble = cacheTrouble(total(await upstreamCounts(cacheUpstream.url)) - before, peers.nginxHit.run.requests)
    if (trouble !== undefined) peers.nginxHitTrouble = trouble
  }
  for (const [i, s] of subjects.entries()) {
    const before = total(await upstreamCounts(cacheUpstream.url))
    const counted = await cacheCounts(s.service.url, s.pools.cached)
    const hit = await measured(log, `sourcepool cache HIT, ${s.label}`, hits[i] as string, [s.service.pid])
    const trouble = cacheTrouble(total(await upstreamCounts(cacheUpstream.url)) - before, hit.run.requests, delta(counted, await cacheCounts(s.service.url, s.pools.cached)))
    const f = figures[i] as Figures
    f.hit = hit
    if (trouble !== undefined) f.hitTrouble = trouble
  }
}

/** Item 4: BURST_ROUNDS bursts of 1,000 identical GETs through each build, each followed by the same burst straight to the upstream. */
async function measureBursts (bench: Bench, subjects: Subject[], peers: Peers, figures: Figures[]): Promise<void> {
  const noProfile = async () => {}
  const as = (s: Subject): CacheService => ({ ...s.service, profile: noProfile })
  for (const s of subjects) await warmUpBurst(s.service.url, s.pools.cached)
  const upstream: CacheService = { ...bench.cacheUpstream, pid: 0, profile: noProfile }
  for (let round = 1; round <= BURST_ROUNDS; round++) {
    for (const [i, s] of subjects.entries()) {
      process.stderr.write(`bench: dataplane: burst ${round}, 1,000 identical GETs through ${s.label}\n`)
      ;(figures[i] as Figures).bursts.push(await burstRound('sourcepool', as(s), s.pools.cached, bench.cacheUpstream.url, `${round}-${i}-${Date.now()}`))
    }
    process.stderr.write(`bench: dataplane: burst ${round}, 1,000 identical GETs straight to the upstream\n`)
    peers.directBursts.push(await burstRound('upstream directly', upstream, 0, bench.cacheUpstream.url, `${round}-direct-${Date.now()}`))
  }
}

/** Items 5 and 6: a pool whose members refuse every connection (CPU per request), and one whose members reset every connection (connects). */
async function measureFailures (bench: Bench, subjects: Subject[], figures: Figures[]): Promise<void> {
  for (const [i, s] of subjects.entries()) {
    const f = figures[i] as Figures
    const url = proxyUrl(s, s.pools.refusing, PATH)
    await runLoad({ url }, CONNECTIONS, WARM_UP_S)
    const first = await fetch(url)
    await first.arrayBuffer()
    f.refusing = await measured(bench.log, `sourcepool, 3 members refusing the connection, ${s.label}`, url, [s.service.pid])
    f.refusingStatus = `${first.status}; ${f.refusing.run.requests} answers`
  }
  for (const [i, s] of subjects.entries()) {
    for (const resetter of bench.resetters) resetter.connects = 0
    const statuses = new Map<number, number>()
    const started = performance.now()
    for (let r = 0; r < RESET_REQUESTS; r++) {
      const res = await fetch(proxyUrl(s, s.pools.resetting, PATH))
      await res.arrayBuffer()
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
    }
    const ms = performance.now() - started
    const connects = bench.resetters.reduce((sum, resetter) => sum + resetter.connects, 0)
    const allowed = RESET_MEMBERS * (1 + Math.ceil(ms / 1000))
    ;(figures[i] as Figures).resets = { connects, allowed, ms, statuses: [...statuses].map(([status, n]) => `${status} ×${n}`).join(', ') }
  }
}

function printEnvironment (subjects: readonly Subject[]): void {
  console.log('\n## Issue 35: the data plane against its peers, one run\n')
  console.log(`- ${new Date().toISOString()}; machine: ${CPUS} CPUs (${cpus()[0]?.model.trim() ?? 'unknown model'}), Node ${process.version}`)
  console.log(`- load generator: ${describeLoadTool()}, ${CONNECTIONS} connections unless said, ${DURATION} s per run (BENCH_DURATION), each server warmed by ` +
    `${Math.min(3, DURATION)} s of the same load first; one-connection runs ${SEQUENTIAL_S} s`)
  console.log(`- ${describePinning()}; the burst's client on the load generator's CPU`)
  console.log(`- NGINX: ${NGINX_INSTALLED ? `${nginxVersion()}, 1 worker` : 'not installed (apt-get install nginx): its rows are skipped'}`)
  for (const s of subjects) console.log(`- sourcepool ${s.label}: \`node --import bench/gc-probe.mjs dist/main.js\`, SQLite file, LOG_LEVEL=warn, memory cache`)
  console.log(`- load average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} at the start (1 / 5 / 15 min)`)
}

/** Runs every item against this checkout (and BENCH_SERVICE_DIR's) and prints the table, then what stands behind it. */
export async function measureDataplane (dir: string): Promise<void> {
  if (SERVICE_DIR !== undefined && !existsSync(join(SERVICE_DIR, 'tsconfig.build.json'))) {
    throw new Error(`BENCH_SERVICE_DIR=${SERVICE_DIR}: not a checkout of this project (no tsconfig.build.json)`)
  }
  const running: Running[] = []
  const resetters: Resetter[] = []
  try {
    for (let m = 0; m < RESET_MEMBERS; m++) resetters.push(await startResetter())
    const upstream = await startScript('bench/upstream-server.ts', {}, 'load')
    running.push(upstream)
    const cacheUpstream = await startScript('bench/cache.ts', { BENCH_CACHE_ROLE: 'upstream' }, 'load')
    running.push(cacheUpstream)
    const bench: Bench = { dir, log: new RunLog(), upstream, cacheUpstream, refusing: await refusingUrl(), resetters, running }
    const roots: Array<[string, string]> = [[ROOT, `this checkout (${describeCheckout(ROOT)})`]]
    if (SERVICE_DIR !== undefined) roots.push([SERVICE_DIR, `BENCH_SERVICE_DIR (${describeCheckout(SERVICE_DIR)})`])
    const subjects: Subject[] = []
    for (const [i, [root, label]] of roots.entries()) subjects.push(await startSubject(bench, root, i, label))
    printEnvironment(subjects)
    const peers: Peers = { nginxSkip: 'nginx not installed', nginxHitSkip: 'nginx not installed', directWide: new Map(), directBursts: [] }
    const figures: Figures[] = subjects.map((s) => ({ label: s.label, wide: new Map(), bursts: [] }))
    await measureProxy(bench, subjects, peers, figures)
    await measureHits(bench, subjects, peers, figures)
    await measureBursts(bench, subjects, peers, figures)
    await measureFailures(bench, subjects, figures)
    printTable(peers, figures)
    printGc(peers, figures)
    printBursts(peers, figures)
    printRuns(bench.log)
    console.log(`\nload average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} at the end; near or above ${CPUS} means other work shared the machine`)
  } finally {
    for (const process of running.reverse()) await process.stop()
    for (const resetter of resetters) resetter.server.close()
  }
}
