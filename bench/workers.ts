/**
 * WORKERS and the compiled start (issue 28, parts 2 and 7), standalone:
 * `tsx bench/workers.ts` (the lead hooks `measureWorkers` into run.ts). Proxy
 * throughput over a 3-member pool (1 KiB answers, wrk) of the compiled service
 * with WORKERS=1 and WORKERS=2 beside NGINX with 1 and 2 workers, at 10, 64 and 256
 * connections, with the CPU each spent per request (all its processes, from
 * /proc); then startup to first answer (spawn to the first 200 of /healthz) of
 * `node dist/main.js` against the old `node --import tsx src/main.ts`, median of
 * a few runs. The load generator and the upstream sit on CPU 0 as in the other
 * tables; the servers are not pinned, so that a second worker has a CPU to use.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../test/server-process.js'
import { describeLoadTool, runLoad, type LoadResult } from './load.js'
import { NGINX_INSTALLED, nginxVersion, startNginx } from './nginx.js'
import { CPUS, DURATION, describePinning } from './options.js'
import { call } from './pool-jobs.js'
import { startScript, stopChild } from './processes.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const PATH = '/data'
/** Connection counts of the throughput runs. */
const CONNECTION_COUNTS = [10, 64, 256]
/** Runs of each start command, alternated; the median is reported. */
const STARTUP_RUNS = 5
const TICKS_PER_SECOND = 100

/** A server under load: where to send requests, its root process (CPU is read over it and its children) and how to end it. */
interface Served {
  readonly name: string
  readonly url: string
  readonly pid: number
  stop(): Promise<void>
}

/** One throughput run. */
export interface WorkersRow {
  readonly name: string
  readonly connections: number
  readonly result: LoadResult
  /** CPU time of the server's processes per request, in microseconds. */
  readonly cpuUsPerRequest: number
}

export interface WorkersReport {
  readonly rows: WorkersRow[]
  /** Median milliseconds from spawn to the first 200 of /healthz. */
  readonly startup: { readonly compiled: number, readonly tsx: number, readonly runs: number }
}

/** CPU seconds (user + system) of `pid` and its children, from /proc (0 for a process gone). */
function cpuSeconds (pid: number): number {
  let ticks = 0
  const visit = (id: number): void => {
    try {
      const fields = readFileSync(`/proc/${id}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
      for (const child of readFileSync(`/proc/${id}/task/${id}/children`, 'utf8').trim().split(' ')) if (child !== '') visit(Number(child))
    } catch {}
  }
  visit(pid)
  return ticks / TICKS_PER_SECOND
}

const children = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter((c) => c !== '').map(Number)
  } catch {
    return []
  }
}

const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

/** Resolves once GET /healthz at `url` answers 200; the milliseconds since `since`. */
async function firstAnswer (url: string, child: ChildProcess, since: number, timeoutMs = 60_000): Promise<number> {
  while (true) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`)
    if (await fetch(`${url}/healthz`).then(async (res) => { await res.arrayBuffer(); return res.status === 200 }, () => false)) return performance.now() - since
    if (performance.now() - since > timeoutMs) throw new Error(`no answer within ${timeoutMs} ms`)
    await sleep(5)
  }
}

/** `args` as the service (node …) on a free port with `env`; resolves with the child and the milliseconds to its first answer. */
async function spawnService (args: string[], env: Record<string, string>): Promise<{ url: string, child: ChildProcess, ms: number }> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const since = performance.now()
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ADMIN_RATE_LIMIT: '1000000', ...env },
    stdio: ['ignore', 'ignore', 'inherit']
  })
  try {
    return { url, child, ms: await firstAnswer(url, child, since) }
  } catch (error) {
    child.kill('SIGKILL')
    throw error
  }
}

/**
 * The compiled service with `workers` workers, once every worker has started: all
 * forked, and each quiet (a starting worker is busy compiling and connecting).
 */
async function startCompiled (dir: string, workers: number): Promise<Served> {
  const { url, child } = await spawnService(['dist/main.js'], { DATABASE_URL: `sqlite:${join(dir, `workers-${workers}.db`)}`, WORKERS: String(workers) })
  const pid = child.pid as number
  if (workers > 1) {
    const deadline = Date.now() + 60_000
    while (children(pid).length < workers && Date.now() < deadline) await sleep(50)
    let before = cpuSeconds(pid)
    while (Date.now() < deadline) {
      await sleep(500)
      const now = cpuSeconds(pid)
      if (now - before < 0.05) break
      before = now
    }
  }
  return { name: `sourcepool, WORKERS=${workers}`, url, pid, stop: async () => { await stopChild(child) } }
}

/** A 3-member pool whose members are the upstream; the URL to load. */
async function seedPool (service: Served, upstream: string): Promise<string> {
  const pool = (await call('POST', `${service.url}/api/pools`, { name: 'proxied', category: 'bench' })).pool_id
  for (let m = 0; m < 3; m++) {
    const provider = (await call('POST', `${service.url}/api/providers`, { name: `upstream-${m}`, base_url: upstream })).provider_id
    await call('POST', `${service.url}/api/pools/${pool}/members`, { provider_id: provider })
  }
  const url = `${service.url}/api/pools/${pool}/proxy${PATH}`
  const res = await fetch(url)
  const body = await res.text()
  if (res.status !== 200 || body.length !== 1024) throw new Error(`the proxy answered ${res.status} with ${body.length} bytes, not the upstream's 1024`)
  return url
}

/** NGINX with `workers` worker processes in front of `upstream` (bench/nginx.ts), as a server under load. */
async function servedNginx (dir: string, upstream: string, workers: number): Promise<Served> {
  const nginx = await startNginx(dir, upstream, workers)
  if (nginx === undefined) throw new Error('nginx is not installed')
  return { name: `NGINX, ${workers} worker${workers === 1 ? '' : 's'}`, url: `${nginx.url}${PATH}`, pid: nginx.pid, stop: nginx.stop }
}

/** Loads `url` of `served` at each connection count, after a short warm-up; CPU read over the server's processes. */
async function loadRuns (served: Served, url: string): Promise<WorkersRow[]> {
  await runLoad({ url }, 10, 2)
  const rows: WorkersRow[] = []
  for (const connections of CONNECTION_COUNTS) {
    process.stderr.write(`bench: ${served.name}, ${connections} connections, ${DURATION} s\n`)
    const cpuBefore = cpuSeconds(served.pid)
    const result = await runLoad({ url }, connections, DURATION)
    const cpu = cpuSeconds(served.pid) - cpuBefore
    rows.push({ name: served.name, connections, result, cpuUsPerRequest: result.requests === 0 ? 0 : cpu / result.requests * 1e6 })
  }
  return rows
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] as number
}

/** Startup to first answer of the compiled entry and of the TypeScript one through tsx, alternated, on a database already migrated. */
async function measureStartup (dir: string): Promise<WorkersReport['startup']> {
  const env = { DATABASE_URL: `sqlite:${join(dir, 'startup.db')}` }
  const first = await spawnService(['dist/main.js'], env)
  await stopChild(first.child)
  const times = { compiled: [] as number[], tsx: [] as number[] }
  for (let run = 0; run < STARTUP_RUNS; run++) {
    for (const [kind, args] of [['compiled', ['dist/main.js']], ['tsx', ['--import', 'tsx', 'src/main.ts']]] as const) {
      process.stderr.write(`bench: startup to first answer, ${kind}, run ${run + 1}/${STARTUP_RUNS}\n`)
      const started = await spawnService([...args], env)
      times[kind].push(started.ms)
      await stopChild(started.child)
    }
  }
  return { compiled: median(times.compiled), tsx: median(times.tsx), runs: STARTUP_RUNS }
}

/** Builds dist/ (incremental), then measures throughput with the worker counts and the startup; files of the run in `dir`. */
export async function measureWorkers (dir: string): Promise<WorkersReport> {
  const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8' })
  if (build.status !== 0) throw new Error(`npm run build failed: ${build.stdout}${build.stderr}`)
  const rows: WorkersRow[] = []
  const upstream = await startScript('bench/upstream-server.ts', {}, 'load')
  try {
    for (const workers of [1, 2]) {
      const service = await startCompiled(dir, workers)
      try {
        rows.push(...await loadRuns(service, await seedPool(service, upstream.url)))
      } finally {
        await service.stop()
      }
    }
    if (NGINX_INSTALLED) {
      for (const workers of [1, 2]) {
        const nginx = await servedNginx(dir, upstream.url, workers)
        try {
          rows.push(...await loadRuns(nginx, nginx.url))
        } finally {
          await nginx.stop()
        }
      }
    }
  } finally {
    await upstream.stop()
  }
  return { rows, startup: await measureStartup(dir) }
}

/** The report as Markdown tables. */
export function printWorkers (report: WorkersReport): void {
  console.log('\n## WORKERS: proxy throughput with 1 and 2 serving processes, beside NGINX with 1 and 2 workers\n')
  console.log(`- ${CPUS} CPUs, Node ${process.version}; load: ${describeLoadTool()}, ${DURATION} s per run after a 2 s warm-up; ${describePinning()}, ` +
    'except the servers of this table, which are not pinned; 3-member pool, 1 KiB answers; the service compiled (`node dist/main.js`), SQLite, LOG_LEVEL=warn')
  console.log(`- NGINX: ${NGINX_INSTALLED ? `${nginxVersion()}, upstream keepalive 32, default accept settings` : 'not installed: its rows are missing'}`)
  console.log(`- machine load average ${loadavg()[0]?.toFixed(2)} at the end (1 min)\n`)
  console.log('| server | connections | requests/s | p50 ms | p99 ms | errors | CPU µs / request |')
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  for (const row of report.rows) {
    console.log(`| ${row.name} | ${row.connections} | ${Math.round(row.result.rps)} | ${row.result.p50.toFixed(2)} | ${row.result.p99.toFixed(2)} | ${row.result.errors} | ${Math.round(row.cpuUsPerRequest)} |`)
  }
  const rps = (name: string, connections: number) => report.rows.find((row) => row.name === name && row.connections === connections)?.result.rps
  console.log('\n| ratio | ' + CONNECTION_COUNTS.map((c) => `${c} connections`).join(' | ') + ' |')
  console.log('|---|' + CONNECTION_COUNTS.map(() => '---:').join('|') + '|')
  const ratios: Array<[string, string, string]> = [
    ['sourcepool WORKERS=2 / WORKERS=1', 'sourcepool, WORKERS=2', 'sourcepool, WORKERS=1'],
    ['NGINX 2 workers / 1 worker', 'NGINX, 2 workers', 'NGINX, 1 worker'],
    ['sourcepool WORKERS=1 / NGINX 1 worker', 'sourcepool, WORKERS=1', 'NGINX, 1 worker'],
    ['sourcepool WORKERS=2 / NGINX 2 workers', 'sourcepool, WORKERS=2', 'NGINX, 2 workers']
  ]
  for (const [label, top, bottom] of ratios) {
    console.log(`| ${label} | ` + CONNECTION_COUNTS.map((c) => {
      const a = rps(top, c)
      const b = rps(bottom, c)
      return a === undefined || b === undefined ? '-' : (a / b).toFixed(2)
    }).join(' | ') + ' |')
  }
  const { compiled, tsx, runs } = report.startup
  console.log(`\nStartup to first answer (spawn to the first 200 of /healthz, SQLite already migrated, median of ${runs}): ` +
    `\`node dist/main.js\` ${Math.round(compiled)} ms, \`node --import tsx src/main.ts\` ${Math.round(tsx)} ms`)
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-bench-workers-'))
  try {
    printWorkers(await measureWorkers(dir))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
