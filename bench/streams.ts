/**
 * Issue 37's benchmark (`npm run bench -- --only streams`): what relaying WebSocket streams through an
 * `http` pool costs, one run, one table, every figure beside its peer from the same run. Five processes,
 * none sharing an event loop: the service (`dist/main.js`, SQLite file, probed-service.ts), the load
 * generator (ws-load.ts), the bare relay, and two copies of a `ws` upstream (ws-upstream-server.ts:
 * echo, and a firehose on `/firehose`), one behind the pool and the bare relay (on the load generator's
 * CPU, as the proxy bench's upstream), one the clients reach directly (on the server's CPU, so the direct
 * rows pay the same hop between the CPUs). The bare relay (ws-relay-server.ts) is the limit of the job.
 * 1. Closed-loop echo at 10 and 100 clients (a 100-byte message, its echo, the next): messages/s through
 *    the pool against the upstream directly (target ≥ 0.8) and against the bare relay; the CPU per round trip.
 *    A firehose to 1 client (against directly and the bare relay) and to 100 clients that send nothing
 *    (against directly; one shared upstream through the pool).
 * 2. One client, one message at a time: median and p99 round trip, through the pool against directly
 *    (target ≤ +0.2 ms median).
 * 3. 1,000 streams open at once (each its own path, so its own upstream): the service's RSS and heap (after
 *    full collections) per stream; then 5,000 messages/s among them for BENCH_DURATION: CPU per message.
 *    It runs first, after 100 streams opened and closed, so the code is compiled and nothing else has grown
 *    the process yet.
 * BENCH_STREAMS_PROFILE=<folder> adds a CPU profile of the service for each run through the pool, and their
 * summaries (figures taken so are not comparable).
 */
import { cpus, loadavg } from 'node:os'
import { printProfileSummary } from './cpu-profile-summary.js'
import { CPUS, DURATION, describePinning } from './options.js'
import { call } from './pool-jobs.js'
import { startScript, type Running } from './processes.js'
import { metric, PROFILES, startProbedService, until, type Memory, type Service } from './probed-service.js'
import { cpuLine, int, latencyLine, printLines, printRuns, rateLine, record, reportedLine, type Line, type Run } from './streams-table.js'
import { cpuWindow, LoadProcess, runWindowed } from './ws-load-process.js'
import type { LoadSpec } from './ws-load.js'

const WARM_S = Math.min(2, DURATION)
const ALONE_S = Math.max(2, Math.round(DURATION / 2))
const STREAMS = 1000
const STREAMS_RATE = 5000
const POOL = 'streams-bench'
/** The processes and addresses every run uses. */
interface Bench { readonly service: Service, readonly poolId: number, readonly direct: Running, readonly relay: Running }
type Via = 'direct' | 'relay' | 'pool'

const NAMES: Record<Via, string> = { direct: 'the upstream directly', relay: 'bare ws relay', pool: 'sourcepool, http pool' }
const httpToWs = (url: string) => url.replace(/^http/, 'ws')
const urlOf = (bench: Bench, via: Via, path: string) =>
  via === 'pool' ? `${httpToWs(bench.service.url)}/p/${POOL}${path}` : `${httpToWs((via === 'direct' ? bench.direct : bench.relay).url)}${path}`
const pidOf = (bench: Bench, via: Via) => via === 'pool' ? bench.service.pid : (via === 'direct' ? bench.direct : bench.relay).pid as number

/** One measured run of `spec` through `via`; a profile of the service around it when profiles are on. */
async function measure (bench: Bench, via: Via, label: string, spec: Omit<LoadSpec, 'url'>, path: string): Promise<Run> {
  const name = `${NAMES[via]}, ${label}`
  process.stderr.write(`bench: streams: ${name}, ${spec.seconds} s\n`)
  const profiled = via === 'pool' && PROFILES !== ''
  if (profiled) await bench.service.probe({ profile: label.replace(/\W+/g, '-') })
  const window = await runWindowed({ ...spec, url: urlOf(bench, via, path) }, pidOf(bench, via))
  if (profiled) profiles.push([name, (await bench.service.probe({})).saved as string])
  return record(name, spec.connections, window)
}
const profiles: Array<[string, string]> = []

/** Part 1 and 2: echo at 10 and 100 clients, one client alone, and the firehose. */
async function measureRelaying (bench: Bench): Promise<Line[]> {
  const lines: Line[] = []
  const all: Via[] = ['direct', 'relay', 'pool']
  for (const connections of [10, 100]) {
    const got: Partial<Record<Via, Run>> = {}
    for (const via of all) got[via] = await measure(bench, via, `echo, ${connections} clients`, { mode: 'echo', connections, warmS: WARM_S, seconds: DURATION }, '/echo')
    const ours = got.pool as Run
    lines.push(rateLine(`echo, ${connections} clients in a closed loop: round trips/s`, ours, got.direct as Run, 0.8))
    lines.push(rateLine(`echo, ${connections} clients: round trips/s`, ours, got.relay as Run))
    lines.push(cpuLine(`echo, ${connections} clients: CPU per round trip (two messages relayed)`, ours, got.relay as Run))
  }
  const alone: Partial<Record<Via, Run>> = {}
  for (const via of all) alone[via] = await measure(bench, via, 'echo, 1 client, one message at a time', { mode: 'echo', connections: 1, warmS: 1, seconds: ALONE_S }, '/echo')
  const ours = alone.pool as Run
  lines.push(latencyLine('1 client, one message at a time: added median round trip', ours, alone.direct as Run, 'p50', 0.2))
  lines.push(latencyLine('1 client: added median round trip', ours, alone.relay as Run, 'p50'))
  lines.push(latencyLine('1 client: added p99 round trip', ours, alone.direct as Run, 'p99'))
  for (const connections of [1, 100]) {
    // The firehose starts a second after its upstream connection opened, so that the clients sharing it
    // have all joined: while it flows, a service fanning it out may take its time over new handshakes.
    const spec = { mode: 'firehose', connections, warmS: WARM_S, seconds: DURATION } as const
    const path = '/firehose?delay_ms=1000'
    const clients = `${connections} client${connections === 1 ? '' : 's'}`
    const direct = await measure(bench, 'direct', `firehose, ${clients}`, spec, path)
    // The bare relay gives each client an upstream of its own: its peer is the one client's stream only.
    const relay = connections === 1 ? await measure(bench, 'relay', `firehose, ${clients}`, spec, path) : undefined
    const pool = await measure(bench, 'pool', `firehose, ${clients} (one shared upstream)`, spec, path)
    lines.push(rateLine(`firehose, ${clients} sending nothing: messages delivered/s`, pool, direct))
    if (relay !== undefined) lines.push(rateLine(`firehose, ${clients}: messages delivered/s`, pool, relay))
    lines.push(cpuLine(`firehose, ${clients}: CPU per message delivered`, pool, relay ?? direct))
  }
  return lines
}

/** Opens 100 streams, has them send for a second and closes them: the streams' code compiled before part 3 measures. */
async function warmStreams (bench: Bench): Promise<void> {
  const load = new LoadProcess({ mode: 'streams', url: urlOf(bench, 'pool', '/echo'), connections: 100, warmS: 0, seconds: 1, rate: 500 })
  try {
    await load.expect('opened')
    load.go()
    await cpuWindow(load, bench.service.pid, 'sent')
    load.go()
    await load.expect('closed')
  } finally {
    await load.ended()
  }
}

/**
 * Part 3 (run first, so the memory is read before the firehose's buffers have grown the process): 1,000
 * streams open at once, their memory, and their CPU per message at STREAMS_RATE.
 */
async function measureThousand (bench: Bench): Promise<Line[]> {
  const { service, poolId } = bench
  const open = async () => await metric(service, poolId, 'sourcepool_streams_open')
  const upstreams = async () => await metric(service, poolId, 'sourcepool_stream_upstreams_open')
  process.stderr.write(`bench: streams: 100 streams opened, used and closed (warm-up), then ${int(STREAMS)} streams, then ${int(STREAMS_RATE)} messages/s among them for ${DURATION} s\n`)
  await warmStreams(bench)
  await until('no stream open', async () => await open() === 0)
  const before = (await service.probe({ gc: true })).memory
  const load = new LoadProcess({ mode: 'streams', url: urlOf(bench, 'pool', '/echo'), connections: STREAMS, warmS: 0, seconds: DURATION, rate: STREAMS_RATE })
  try {
    const opened = await load.expect('opened')
    await until(`${STREAMS} streams and upstreams open`, async () => await open() === STREAMS && await upstreams() === STREAMS)
    const held = (await service.probe({ gc: true })).memory
    if (PROFILES !== '') await service.probe({ profile: 'streams-1000' })
    load.go()
    const window = await cpuWindow(load, service.pid, 'sent')
    if (PROFILES !== '') profiles.push([`sourcepool, ${int(STREAMS)} streams at ${int(STREAMS_RATE)} messages/s`, (await service.probe({})).saved as string])
    const run = record(`sourcepool, http pool, ${int(STREAMS)} streams, ${int(STREAMS_RATE)} messages/s in all`, STREAMS, window)
    load.go()
    await load.expect('closed')
    await until('every stream closed', async () => await open() === 0)
    const after = (await service.probe({ gc: true })).memory
    const per = (k: keyof Memory) => `${((held[k] - before[k]) / STREAMS / 1024).toFixed(1)} KiB`
    const mb = (m: Memory, k: keyof Memory) => `${(m[k] / 1048576).toFixed(1)} MB`
    const note = (k: keyof Memory) => `${mb(before, k)} before, ${mb(held, k)} with ${int(STREAMS)} open, ${mb(after, k)} after they closed`
    const n = int(STREAMS)
    return [
      reportedLine(`${n} streams open (each its own upstream): RSS per stream`, per('rss'), note('rss')),
      reportedLine(`${n} streams open: V8 heap used per stream (after full collections)`, per('heapUsed'), note('heapUsed')),
      reportedLine(`${n} streams open: memory outside the heap (Buffers) per stream`, per('external'), note('external')),
      reportedLine(`${n} streams opened, 50 at a time: time to open all`, `${int(Number(opened.ms))} ms`),
      reportedLine(`${n} streams, ${int(STREAMS_RATE)} messages/s in all (each echoed): service CPU per message and its echo`, `${run.cpuUs.toFixed(1)} µs`,
        `${((run.cpuUs * run.rate) / 1e4).toFixed(1)} % of a core; round trip p50 ${run.p50?.toFixed(3) ?? '–'} ms, p99 ${run.p99?.toFixed(3) ?? '–'} ms`, run.trouble)
    ]
  } finally {
    await load.ended()
  }
}

function printEnvironment (): void {
  console.log('\n## Issue 37: streams through an http pool, one run\n')
  console.log(`- ${new Date().toISOString()}; machine: ${CPUS} CPUs (${cpus()[0]?.model.trim() ?? 'unknown model'}), Node ${process.version}`)
  console.log(`- ${describePinning()}; the load generator's clients (ws-load.ts, \`ws\`) on the load generator's CPU`)
  console.log(`- ${DURATION} s per run (BENCH_DURATION), each warmed by ${WARM_S} s of the same load on the same connections first; the one-client runs ${ALONE_S} s`)
  console.log('- service: `node dist/main.js`, SQLite file, LOG_LEVEL=warn; the pool: 3 members, all one `ws` upstream; messages of 100 bytes of text')
  console.log(`- load average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} at the start (1 / 5 / 15 min)`)
}

/** Runs the three parts on one service (SQLite file in `dir`) and prints the table, then the runs behind it. */
export async function measureStreams (dir: string): Promise<void> {
  const running: Running[] = []
  try {
    const upstream = await startScript('bench/ws-upstream-server.ts', {}, 'load')
    running.push(upstream)
    const direct = await startScript('bench/ws-upstream-server.ts', {}, 'server')
    running.push(direct)
    const relay = await startScript('bench/ws-relay-server.ts', { UPSTREAM_URL: upstream.url }, 'server')
    running.push(relay)
    const service = await startProbedService(dir, 'streams.db')
    running.push(service)
    const poolId = (await call('POST', `${service.url}/api/pools`, { name: POOL, category: 'bench', ws_max_streams: 2 * STREAMS, ws_max_streams_per_client: 2 * STREAMS })).pool_id as number
    for (let m = 0; m < 3; m++) {
      const provider = (await call('POST', `${service.url}/api/providers`, { name: `ws-upstream-${m}`, base_url: upstream.url })).provider_id
      await call('POST', `${service.url}/api/pools/${poolId}/members`, { provider_id: provider })
    }
    const bench: Bench = { service, poolId, direct, relay }
    printEnvironment()
    const thousand = await measureThousand(bench)
    printLines([...await measureRelaying(bench), ...thousand])
    printRuns()
    for (const [name, file] of profiles) printProfileSummary(`CPU profile of the service: ${name}`, file)
    console.log(`\nload average ${loadavg().map((x) => x.toFixed(2)).join(' / ')} at the end; near or above ${CPUS} means other work shared the machine`)
  } finally {
    for (const process of running.reverse()) await process.stop()
  }
}
