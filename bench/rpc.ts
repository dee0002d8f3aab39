/**
 * Issue 36's benchmark (`npm run bench -- --only rpc`): what reading JSON-RPC costs an RPC pool, one run,
 * one table, every figure beside its peer and target. One service (`dist/main.js`, SQLite file in the run's
 * dir) on the server's CPU; a scripted JSON-RPC upstream (rpc-upstream-server.ts, answering at once and
 * counting) on the load generator's CPU; each pool has 3 members, all that upstream; wrk, 10 connections,
 * BENCH_DURATION, each target warmed first and its answer checked before and after its run.
 * 1. One `eth_call` through a `jsonrpc` and an `evm` pool against the same POST through an `http` pool:
 *    requests/s (target ≥ 0.8), server CPU per request (/proc) and upstream calls per request (an evm
 *    pool coalesces identical calls in flight; a jsonrpc pool judges each answer but never coalesces).
 * 2. A 50-call batch (50 `eth_getBalance` of different addresses, the same body on every connection)
 *    through the evm pool, and the jsonrpc pool beside it: CPU per call and batches/s, reported.
 * 3. A finalized block (`eth_getBlockByNumber` 64 blocks below the head, stored for good by an evm pool
 *    with its cache on), against an `http` pool's cache HIT of a GET (small JSON, max-age 3600) from the
 *    same upstream: requests/s (target ≥ 0.5); neither may call the upstream during its run (the evm
 *    pool's head checks are the service's own, not counted).
 */
import { spawnSync } from 'node:child_process'
import { get } from 'node:http'
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { cpuSeconds } from './cache.js'
import { describeLoadTool, runLoad, type LoadResult, type LoadTarget } from './load.js'
import { CONNECTIONS, CPUS, DURATION, describePinning } from './options.js'
import { call } from './pool-jobs.js'
import { startScript, startService, type Running } from './processes.js'
import { printRuns, RunLog } from './target-table.js'

const WARM_S = Math.min(3, DURATION)
const BATCH_SIZE = 50
const address = (i: number) => `0x${(0xbe00 + i).toString(16).padStart(40, '0')}`
const ETH_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: address(0), data: `0x70a08231${address(1).slice(2).padStart(64, '0')}` }, 'latest'] })
const BATCH = JSON.stringify(Array.from({ length: BATCH_SIZE }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'eth_getBalance', params: [address(i + 1), 'latest'] })))
const FINAL_BLOCK = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x800', false] })
const WORD = /^0x[0-9a-f]{64}$/
/** The block's number, as the stored result carries it. */
const BLOCK = /^0x800$/

/** One measured target: its run, the service's CPU per request (µs), and the calls the upstream answered per request. */
interface Figure { readonly run: LoadResult, readonly cpuUs: number, readonly upstreamCalls: number }

interface Bench { readonly log: RunLog, readonly service: Running & { readonly pid: number }, readonly upstream: string }

const proxy = (bench: Bench, pool: number) => `${bench.service.url}/api/pools/${pool}/proxy/`

/** A pool of 3 members, all `upstream`, with `fields` (protocol, cache). */
async function seedPool (service: string, name: string, providers: number[], fields: Record<string, unknown>): Promise<number> {
  const pool = (await call('POST', `${service}/api/pools`, { name, category: 'bench', ...fields })).pool_id as number
  for (const provider of providers) await call('POST', `${service}/api/pools/${pool}/members`, { provider_id: provider })
  return pool
}

/** POSTs `body` and throws unless every call came back with its own id and the result `result` matches; answers x-sourcepool-cache. */
async function checkRpc (url: string, body: string, result: RegExp): Promise<string> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const text = await res.text()
  const sent = JSON.parse(body) as unknown
  const calls = (Array.isArray(sent) ? sent : [sent]) as Array<{ id: number, method: string }>
  let got: unknown
  try { got = JSON.parse(text) } catch { got = undefined }
  const answers = (Array.isArray(sent) ? got : [got]) as Array<{ id?: unknown, result?: unknown } | null> | undefined
  const right = res.status === 200 && Array.isArray(answers) && answers.length === calls.length &&
    answers.every((a, i) => {
      // A word (eth_call, eth_getBalance) or a block (its number).
      const value = typeof a?.result === 'string' ? a.result : (a?.result as { number?: unknown } | null | undefined)?.number
      return a?.id === calls[i]?.id && typeof value === 'string' && result.test(value)
    })
  const what = calls.length === 1 ? (calls[0] as { method: string }).method : `a batch of ${calls.length}`
  if (!right) throw new Error(`POST ${url} (${what}) answered ${res.status} with a wrong answer: ${text.slice(0, 400)}`)
  return res.headers.get('x-sourcepool-cache') ?? '-'
}

/** One GET with no header but Host (as wrk sends it, so the cache key is the same): throws unless the upstream's JSON came back; answers x-sourcepool-cache. */
async function checkGet (url: string): Promise<string> {
  const { status, cache, body } = await new Promise<{ status: number, cache: string, body: string }>((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let text = ''
      res.on('data', (chunk: Buffer) => { text += String(chunk) })
      res.on('end', () => { resolve({ status: res.statusCode ?? 0, cache: String(res.headers['x-sourcepool-cache'] ?? '-'), body: text }) })
    }).on('error', reject)
  })
  if (status !== 200 || !body.includes('"chain_id":1')) throw new Error(`GET ${url} answered ${status}: ${body.slice(0, 300)}`)
  return cache
}

/** Calls `check` until it answers HIT (the first answer fills the cache); throws when it never does. */
async function warmCache (what: string, check: () => Promise<string>): Promise<void> {
  const seen: string[] = []
  for (let i = 0; i < 3; i++) {
    seen.push(await check())
    if (seen[seen.length - 1] === 'HIT') return
  }
  throw new Error(`${what}: x-sourcepool-cache was ${seen.join(', ')}, never HIT`)
}

const upstreamCalls = async (bench: Bench) => {
  const counts = await call('GET', `${bench.upstream}/count`) as { posts: number, calls: number, gets: number }
  return counts.calls + counts.gets
}

/** Warms `target`, loads it, checks its answer again, and reads the service's CPU and the upstream's calls around the run. */
async function measure (bench: Bench, name: string, target: LoadTarget, check: () => Promise<unknown>): Promise<Figure> {
  await check()
  await runLoad(target, CONNECTIONS, WARM_S)
  const cpuBefore = cpuSeconds(bench.service.pid)
  const callsBefore = await upstreamCalls(bench)
  const run = await bench.log.load(name, target)
  const cpu = cpuSeconds(bench.service.pid) - cpuBefore
  const calls = await upstreamCalls(bench) - callsBefore
  await check()
  return { run, cpuUs: (cpu / run.requests) * 1e6, upstreamCalls: calls / run.requests }
}

interface Line { readonly measure: string, readonly figure: string, readonly peer: string, readonly peerFigure: string, readonly ratio: string, readonly target: string, readonly met: string }

const int = (n: number) => Math.round(n).toLocaleString('en-US')
const us = (n: number) => `${n < 100 ? n.toFixed(1) : int(n)} µs`
const per = (n: number) => n.toFixed(n < 0.1 && n > 0 ? 4 : 2)

/** A line with its ratio; `min` makes it a target (met when ratio ≥ min), none makes it reported; failed requests or `trouble` make it invalid. */
function line (measure: string, ours: number, show: (n: number) => string, peer: string, theirs: number, runs: Figure[], min?: number, trouble?: string): Line {
  const ratio = ours / theirs
  const errors = runs.reduce((sum, f) => sum + f.run.errors, 0)
  const met = errors > 0 ? `invalid: ${errors} failed requests` : trouble !== undefined ? `invalid: ${trouble}` : min === undefined ? 'reported' : ratio >= min ? 'met' : '**not met**'
  return { measure, figure: show(ours), peer, peerFigure: show(theirs), ratio: Number.isFinite(ratio) ? ratio.toFixed(2) : '–', target: min === undefined ? '–' : `≥ ${min}`, met }
}

/** Calls that reached the upstream during a run that should have been served from memory alone. */
const leaked = (f: Figure) => f.upstreamCalls > 0 ? `${int(f.upstreamCalls * f.run.requests)} upstream calls during the run` : undefined

/** This checkout's commit, and whether its src/ (what dist/ is built from) has changes not committed. */
function describeCheckout (): string {
  const git = (...args: string[]) => String(spawnSync('git', args).stdout).trim()
  const commit = git('rev-parse', '--short', 'HEAD') || 'unknown commit'
  return git('status', '--porcelain', '--', 'src') === '' ? commit : `${commit} + uncommitted src/`
}

function printEnvironment (): void {
  console.log('\n## Issue 36: RPC pools against an http pool, one run\n')
  console.log(`- ${new Date().toISOString()}, commit ${describeCheckout()}; machine: ${CPUS} CPUs (${cpus()[0]?.model.trim() ?? 'unknown model'}), Node ${process.version}`)
  console.log(`- load generator: ${describeLoadTool()}, ${CONNECTIONS} connections, ${DURATION} s per run (BENCH_DURATION), each target warmed by ${WARM_S} s of the same load first`)
  console.log(`- ${describePinning()}`)
  console.log('- service: `node dist/main.js`, SQLite file, LOG_LEVEL=warn, memory cache; every pool 3 members, all one scripted JSON-RPC upstream (bench/rpc-upstream-server.ts)')
  console.log(`- load average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} at the start (1 / 5 / 15 min)`)
}

/** Runs the three parts on one service (SQLite file in `dir`) and prints the table, then the runs behind it. */
export async function measureRpc (dir: string): Promise<void> {
  const running: Running[] = []
  try {
    const upstream = await startScript('bench/rpc-upstream-server.ts', {}, 'load')
    running.push(upstream)
    const started = await startService({ DATABASE_URL: `sqlite:${join(dir, 'rpc.db')}`, LOG_LEVEL: 'warn', ADMIN_RATE_LIMIT: '1000000' })
    running.push(started)
    const bench: Bench = { log: new RunLog(), service: { ...started, pid: started.pid as number }, upstream: upstream.url }
    const service = started.url
    const providers: number[] = []
    for (let m = 0; m < 3; m++) providers.push((await call('POST', `${service}/api/providers`, { name: `rpc-upstream-${m}`, base_url: upstream.url })).provider_id)
    const pools = {
      http: await seedPool(service, 'rpc-http', providers, {}),
      jsonrpc: await seedPool(service, 'rpc-jsonrpc', providers, { protocol: 'jsonrpc' }),
      evm: await seedPool(service, 'rpc-evm', providers, { protocol: 'evm' }),
      evmCached: await seedPool(service, 'rpc-evm-cached', providers, { protocol: 'evm', cache_ttl_seconds: 3600 }),
      httpCached: await seedPool(service, 'rpc-http-cached', providers, { cache_ttl_seconds: 3600 })
    }
    printEnvironment()

    const single = async (name: string, pool: number) => {
      const url = proxy(bench, pool)
      return await measure(bench, `eth_call, ${name} pool`, { url, method: 'POST', body: ETH_CALL }, async () => await checkRpc(url, ETH_CALL, WORD))
    }
    const http = await single('http', pools.http)
    const jsonrpc = await single('jsonrpc', pools.jsonrpc)
    const evm = await single('evm', pools.evm)

    const batch = async (name: string, pool: number) => {
      const url = proxy(bench, pool)
      return await measure(bench, `${BATCH_SIZE}-call batch, ${name} pool`, { url, method: 'POST', body: BATCH }, async () => await checkRpc(url, BATCH, WORD))
    }
    const evmBatch = await batch('evm', pools.evm)
    const jsonrpcBatch = await batch('jsonrpc', pools.jsonrpc)

    const hitUrl = `${proxy(bench, pools.httpCached)}chain.json`
    await warmCache('http pool, GET', async () => await checkGet(hitUrl))
    const hit = await measure(bench, 'GET, http pool cache HIT', { url: hitUrl }, async () => {
      if (await checkGet(hitUrl) !== 'HIT') throw new Error(`GET ${hitUrl} was not a cache HIT`)
    })
    const keptUrl = proxy(bench, pools.evmCached)
    await warmCache('evm pool, a finalized block', async () => await checkRpc(keptUrl, FINAL_BLOCK, BLOCK))
    const kept = await measure(bench, 'a finalized block stored, evm pool with its cache on', { url: keptUrl, method: 'POST', body: FINAL_BLOCK }, async () => {
      if (await checkRpc(keptUrl, FINAL_BLOCK, BLOCK) !== 'HIT') throw new Error(`the finalized block at ${keptUrl} was not a HIT`)
    })

    const rps = (n: number) => int(n)
    const perCall = (f: Figure) => f.cpuUs / BATCH_SIZE
    const httpPeer = 'the same POST, http pool'
    printTable([
      line('`eth_call`, jsonrpc pool: requests/s', jsonrpc.run.rps, rps, httpPeer, http.run.rps, [jsonrpc, http], 0.8),
      line('`eth_call`, evm pool: requests/s', evm.run.rps, rps, httpPeer, http.run.rps, [evm, http], 0.8),
      line('`eth_call`, jsonrpc pool: server CPU per request', jsonrpc.cpuUs, us, httpPeer, http.cpuUs, [jsonrpc, http]),
      line('`eth_call`, evm pool: server CPU per request', evm.cpuUs, us, httpPeer, http.cpuUs, [evm, http]),
      line('`eth_call`, jsonrpc pool: upstream calls per request', jsonrpc.upstreamCalls, per, httpPeer, http.upstreamCalls, [jsonrpc, http]),
      line('`eth_call`, evm pool: upstream calls per request (coalesced)', evm.upstreamCalls, per, httpPeer, http.upstreamCalls, [evm, http]),
      line(`${BATCH_SIZE}-call batch, evm pool: calls/s (batches/s × ${BATCH_SIZE})`, evmBatch.run.rps * BATCH_SIZE, rps, 'single `eth_call`, evm pool: requests/s', evm.run.rps, [evmBatch, evm]),
      line(`${BATCH_SIZE}-call batch, evm pool: server CPU per call`, perCall(evmBatch), us, 'single `eth_call`, evm pool: CPU per request', evm.cpuUs, [evmBatch, evm]),
      line(`${BATCH_SIZE}-call batch, evm pool: upstream calls per call`, evmBatch.upstreamCalls / BATCH_SIZE, per, 'single `eth_call`, evm pool', evm.upstreamCalls, [evmBatch, evm]),
      line(`${BATCH_SIZE}-call batch, jsonrpc pool: server CPU per call`, perCall(jsonrpcBatch), us, 'single `eth_call`, jsonrpc pool: CPU per request', jsonrpc.cpuUs, [jsonrpcBatch, jsonrpc]),
      line(`${BATCH_SIZE}-call batch, jsonrpc pool: upstream calls per call`, jsonrpcBatch.upstreamCalls / BATCH_SIZE, per, 'single `eth_call`, jsonrpc pool', jsonrpc.upstreamCalls, [jsonrpcBatch, jsonrpc]),
      line('a finalized block stored, evm pool: requests/s', kept.run.rps, rps, 'GET cache HIT, http pool', hit.run.rps, [kept, hit], 0.5, leaked(kept) ?? leaked(hit)),
      line('a finalized block stored, evm pool: server CPU per request', kept.cpuUs, us, 'GET cache HIT, http pool', hit.cpuUs, [kept, hit], undefined, leaked(kept) ?? leaked(hit))
    ])
    console.log(`\n${BATCH_SIZE}-call batches: evm pool ${int(evmBatch.run.rps)} batches/s, jsonrpc pool ${int(jsonrpcBatch.run.rps)} batches/s ` +
      `(${int(jsonrpcBatch.run.rps * BATCH_SIZE)} calls/s); every connection sends the same batch, so the evm pool's calls in flight at once coalesce across connections`)
    printRuns(bench.log)
    console.log(`\nload average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} at the end; near or above ${CPUS} means other work shared the machine`)
  } finally {
    for (const process of running.reverse()) await process.stop()
  }
}

function printTable (lines: Line[]): void {
  console.log('\n| measure | sourcepool | peer | peer\'s figure | ratio | target | met? |')
  console.log('|---|---:|---|---:|---:|---|---|')
  for (const l of lines) console.log(`| ${l.measure} | ${l.figure} | ${l.peer} | ${l.peerFigure} | ${l.ratio} | ${l.target} | ${l.met} |`)
}
