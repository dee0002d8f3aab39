/**
 * The load generator of the target table: `wrk` when it is installed (Debian
 * package `wrk`), else autocannon's command line, each as its own process pinned
 * to the load generator's CPU (see options.ts). Both report requests/s, p50 and
 * p99 in milliseconds (wrk to the microsecond, autocannon in whole milliseconds)
 * and every failed request: connection errors, timeouts and non-2xx answers.
 */
import { spawn, spawnSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { PINNING, pinned } from './options.js'

/** A request to repeat. */
export interface LoadTarget {
  readonly url: string
  readonly method?: 'GET' | 'POST'
  /** A JSON body (sent with content-type application/json). */
  readonly body?: string
}

/** What one run measured; latencies in milliseconds. */
export interface LoadResult {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly requests: number
  readonly errors: number
  /** Latencies counted in whole milliseconds (autocannon). */
  readonly wholeMs?: boolean
}

/** The tool in use. */
export const LOAD_TOOL: 'wrk' | 'autocannon' = spawnSync('wrk', ['--version']).error === undefined ? 'wrk' : 'autocannon'

/** wrk's threads: one when the generator has a CPU of its own, two (like the runs) otherwise. */
const WRK_THREADS = PINNING === undefined ? 2 : 1

/** One line naming the tool and how it is run. */
export function describeLoadTool (): string {
  return LOAD_TOOL === 'wrk'
    ? `wrk (${WRK_THREADS} thread${WRK_THREADS === 1 ? '' : 's'})`
    : 'autocannon (command line; wrk not installed: apt-get install wrk; its percentiles are whole milliseconds)'
}

/** Loads `target` with `connections` connections for `seconds` seconds. */
export async function runLoad (target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> {
  return LOAD_TOOL === 'wrk' ? await runWrk(target, connections, seconds) : await runAutocannon(target, connections, seconds)
}

/**
 * Requests one at a time on one keep-alive connection for `seconds` seconds:
 * wrk with one connection, or (autocannon counting whole milliseconds only)
 * timed in this process with node:http, to the microsecond.
 */
export async function runSequential (url: string, seconds: number): Promise<LoadResult> {
  if (LOAD_TOOL === 'wrk') return await runLoad({ url }, 1, seconds)
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const times: number[] = []
  let errors = 0
  const started = performance.now()
  const end = started + seconds * 1000
  try {
    while (performance.now() < end) {
      const sent = performance.now()
      const status = await new Promise<number>((resolve, reject) => {
        request(url, { agent }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode ?? 0)) }).on('error', reject).end()
      }).catch(() => 0)
      if (status < 200 || status > 299) errors++
      times.push(performance.now() - sent)
    }
  } finally {
    agent.destroy()
  }
  times.sort((a, b) => a - b)
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] as number
  return { rps: times.length / ((performance.now() - started) / 1000), p50: at(0.5), p99: at(0.99), requests: times.length, errors }
}

let scripts = 0

async function runWrk (target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> {
  const script = join(tmpdir(), `sourcepool-bench-${process.pid}-${scripts++}.lua`)
  // The body travels in the environment, so no Lua quoting is needed for it.
  writeFileSync(script, `
wrk.method = "${target.method ?? 'GET'}"
local body = os.getenv("BENCH_BODY")
if body ~= nil and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("BENCH_RESULT %d %d %d %d %d\\n", summary.requests, summary.duration,
    latency:percentile(50), latency:percentile(99), e.connect + e.read + e.write + e.status + e.timeout))
end
`)
  try {
    const threads = String(Math.min(WRK_THREADS, connections))
    const [command, args] = pinned('load', 'wrk', ['-t', threads, '-c', String(connections), '-d', `${seconds}s`, '--timeout', '5s', '-s', script, target.url])
    const out = await output(command, args, { BENCH_BODY: target.body ?? '' })
    const match = /BENCH_RESULT (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(out)
    if (match === null) throw new Error(`wrk printed no result: ${out}`)
    const [requests, durationUs, p50Us, p99Us, errors] = match.slice(1).map(Number) as [number, number, number, number, number]
    return { rps: requests / (durationUs / 1e6), p50: p50Us / 1000, p99: p99Us / 1000, requests, errors }
  } finally {
    rmSync(script, { force: true })
  }
}

const AUTOCANNON = join(dirname(createRequire(import.meta.url).resolve('autocannon')), 'autocannon.js')

async function runAutocannon (target: LoadTarget, connections: number, seconds: number): Promise<LoadResult> {
  const args = [AUTOCANNON, '-j', '-n', '-c', String(connections), '-d', String(seconds), '-m', target.method ?? 'GET']
  if (target.body !== undefined) args.push('-H', 'content-type=application/json', '-b', target.body)
  const [command, rest] = pinned('load', process.execPath, [...args, target.url])
  const result = JSON.parse(await output(command, rest))
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.timeouts + result.non2xx,
    wholeMs: true
  }
}

/** Runs a command to its end and resolves with its stdout; a non-zero exit rejects with its stderr. */
function output (command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => { out += String(chunk) })
    child.stderr.on('data', (chunk) => { err += String(chunk) })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0) resolve(out)
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${err.trim()}`))
    })
  })
}
