/**
 * What one upstream attempt costs in CPU, by the way it is sent (issue 28, the
 * forwarding engine): today's client (upstream-client.ts, undici's `request()`:
 * a Readable per answer), the same attempt through `dispatch` and the engine's
 * handler (dispatch-engine.ts: no Readable, the body handed to a sink), a bare
 * `dispatch` handler on undici's raw header arrays doing only what an attempt
 * needs (the floor of that API), and
 * node:http for reference. Every way sends the proxy's upstream headers and reads
 * the 1 KiB answer to its end (headers made ready for the client where the proxy
 * does it), against a local upstream in its own process, so the process CPU
 * measured here (user + system, per attempt) is the client side only.
 *
 *   node --import tsx bench/engine.ts            N=50000 attempts per run, ROUNDS=3
 *   N=20000 ROUNDS=2 CONCURRENCY=16 node --import tsx bench/engine.ts
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent, type Dispatcher } from 'undici'
import { parseBase, upstreamTarget } from '../src/rules/upstream-url.js'
import { dispatchAttempt, type BodySink } from './dispatch-engine.js'
import { downstreamHeaders, upstreamHeaders, type ProxyRequest } from '../src/proxy/forward.js'
import { continueSkippingConnector } from '../src/http/interim-answers.js'
import { createUpstreamClient } from '../src/proxy/upstream-client.js'
import { startScript } from './processes.js'

const N = Number(process.env.N ?? 50_000)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16)
const WARM_UP = Math.min(5_000, N)
const PATH = '/data'

const upstream = await startScript('bench/upstream-server.ts')
const base = parseBase(upstream.url)

/** The client request every attempt forwards, as the route builds it. */
const incoming: ProxyRequest = {
  method: 'GET',
  url: `/api/pools/1/proxy${PATH}`,
  headers: { host: '127.0.0.1:3000', 'user-agent': 'bench/1.0', accept: 'application/json', 'accept-encoding': 'gzip, br', connection: 'keep-alive' },
  body: undefined,
  peer: '127.0.0.1',
  protocol: 'http',
  requestId: 'req-1',
  log: { info: () => {} }
}
const member = { base_url: upstream.url, auth_headers: null, timeout_ms: 10_000 }
const pool = { forward_client_auth: 0 }
const headersUp = () => upstreamHeaders(incoming.headers, { peer: incoming.peer, protocol: incoming.protocol, forwardClientAuth: false, requestId: incoming.requestId })

/** One way of sending an attempt: resolves with the body's length once it has been read to its end. */
type Attempt = () => Promise<number>

/** Today: upstream-client.ts send (request()), the client's headers from the answer's, the body read as the route's stream would be. */
function viaRequest (): { attempt: Attempt, close: () => Promise<void> } {
  const client = createUpstreamClient()
  return {
    close: client.close,
    attempt: async () => {
      const sent = await client.send(incoming, PATH, pool, member)
      if (!('response' in sent)) throw new Error('The attempt failed', { cause: sent.error })
      downstreamHeaders(sent.response.headers, sent.secrets)
      const body = sent.response.body
      return await new Promise<number>((resolve, reject) => {
        let size = 0
        body.on('data', (chunk: Buffer) => { size += chunk.length })
        body.once('end', () => { resolve(size) })
        body.once('error', reject)
      })
    }
  }
}

/** The engine: dispatch with EngineAnswer as the handler, the body piped to a sink. */
function viaEngine (): { attempt: Attempt, close: () => Promise<void> } {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256, connect: continueSkippingConnector() })
  const target = upstreamTarget(base, PATH)
  return {
    close: async () => { await agent.close() },
    attempt: async () => {
      const sent = await dispatchAttempt(agent, { origin: target.origin, path: target.path, method: 'GET', headers: headersUp(), body: null, timeoutMs: 10_000 })
      if (!('response' in sent)) throw new Error('The attempt failed', { cause: sent.error })
      downstreamHeaders(sent.response.headers)
      return await new Promise<number>((resolve, reject) => {
        let size = 0
        const sink: BodySink = { write: (chunk) => { size += chunk.length; return true }, end: () => { resolve(size) }, destroy: (error) => { reject(error) } }
        sent.response.pipe(sink)
      })
    }
  }
}

/**
 * The floor of dispatch: a bare handler of undici's older form, on the raw header
 * arrays, doing only the work an attempt needs (its deadline timer, the headers
 * object read once, the client's headers from it), with no object of its own.
 */
function viaRawDispatch (): { attempt: Attempt, close: () => Promise<void> } {
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256, connect: continueSkippingConnector() })
  const target = upstreamTarget(base, PATH)
  return {
    close: async () => { await agent.close() },
    attempt: async () => await new Promise<number>((resolve, reject) => {
      let size = 0
      const timer = setTimeout(() => {}, 10_000)
      const handler: Dispatcher.DispatchHandler = {
        onConnect: () => {},
        onHeaders: (statusCode, raw) => {
          if (statusCode < 200) return true
          clearTimeout(timer)
          const headers: Record<string, string | string[]> = {}
          for (let i = 0; i < raw.length; i += 2) {
            const name = (raw[i] as Buffer).toString('latin1').toLowerCase()
            const value = (raw[i + 1] as Buffer).toString('latin1')
            const had = headers[name]
            headers[name] = had === undefined ? value : typeof had === 'string' ? [had, value] : [...had, value]
          }
          downstreamHeaders(headers)
          return true
        },
        onData: (chunk) => { size += chunk.length; return true },
        onComplete: () => { resolve(size) },
        onError: reject
      }
      agent.dispatch({ origin: target.origin, path: target.path, method: 'GET', headers: headersUp(), headersTimeout: 10_000, bodyTimeout: 10_000 }, handler)
    })
  }
}

/** node:http, for reference: a keep-alive agent, the body read as a stream. */
function viaNodeHttp (): { attempt: Attempt, close: () => Promise<void> } {
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 256 })
  const url = new URL(upstream.url)
  return {
    close: async () => { agent.destroy() },
    attempt: async () => await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ agent, host: url.hostname, port: url.port, path: PATH, method: 'GET', headers: headersUp(), timeout: 10_000 }, (res) => {
        downstreamHeaders(res.headers)
        let size = 0
        res.on('data', (chunk: Buffer) => { size += chunk.length })
        res.once('end', () => { resolve(size) })
        res.once('error', reject)
      })
      req.once('error', reject)
      req.end()
    })
  }
}

const ways = [
  ['request() (today)', viaRequest],
  ['dispatch + engine', viaEngine],
  ['dispatch, bare handler (floor)', viaRawDispatch],
  ['node:http', viaNodeHttp]
] as const

/** Runs `count` attempts, `concurrency` at a time; answers CPU µs per attempt and attempts per second. */
async function run (attempt: Attempt, count: number, concurrency: number): Promise<{ cpuUs: number, perSecond: number }> {
  let next = 0
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      next++
      const size = await attempt()
      if (size !== 1024) throw new Error(`read ${size} bytes, expected 1024`)
    }
  }))
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  return { cpuUs: (used.user + used.system) / count, perSecond: count / seconds }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

try {
  const results = new Map<string, { cpu: number[], rate: number[] }>()
  for (const concurrency of [1, CONCURRENCY]) {
    const clients = ways.map(([name, make]) => ({ name, ...make() }))
    for (const client of clients) await run(client.attempt, WARM_UP, concurrency)
    for (let round = 0; round < ROUNDS; round++) {
      // Ways alternate within each round, so a neighbour's load falls on all of them alike.
      for (const client of clients) {
        const key = `${client.name}|${concurrency}`
        const { cpuUs, perSecond } = await run(client.attempt, N, concurrency)
        const entry = results.get(key) ?? { cpu: [], rate: [] }
        entry.cpu.push(cpuUs)
        entry.rate.push(perSecond)
        results.set(key, entry)
        process.stderr.write(`round ${round + 1} ${client.name}, ${concurrency} at a time: ${cpuUs.toFixed(1)} µs CPU/attempt, ${Math.round(perSecond)}/s\n`)
      }
    }
    for (const client of clients) await client.close()
  }
  process.stdout.write(`\nN=${N} attempts per run, ${ROUNDS} rounds (median), 1 KiB answers, upstream in its own process; Node ${process.version}\n\n`)
  process.stdout.write('| way | in flight | CPU µs / attempt | vs request() | attempts/s |\n|---|---:|---:|---:|---:|\n')
  for (const concurrency of [1, CONCURRENCY]) {
    const today = median(results.get(`request() (today)|${concurrency}`)?.cpu ?? [NaN])
    for (const [name] of ways) {
      const entry = results.get(`${name}|${concurrency}`)
      if (entry === undefined) continue
      const cpu = median(entry.cpu)
      process.stdout.write(`| ${name} | ${concurrency} | ${cpu.toFixed(1)} | ${(cpu / today).toFixed(2)} | ${Math.round(median(entry.rate))} |\n`)
    }
  }
} finally {
  await upstream.stop()
}
