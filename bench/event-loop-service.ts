/**
 * The measuring side of the `event-loop` part of the bench: the service as its
 * own process with the event-loop probe loaded (read over IPC), a `/healthz`
 * poller like a load balancer's (one request at a time, every 20 ms), and a
 * window around one scenario: reset the histogram, poll, run the scenario, keep
 * polling until the service has settled, read the histogram.
 */
import { readFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { READ_TYPE, RESOLUTION_MS, type DelayReading, type ReadMessage } from './event-loop-reading.js'
import { spawnService, stopChild } from './processes.js'

/** How often the poller asks (from one request's start to the next one's). */
export const POLL_MS = 20
/** An answer slower than this during the tail means the service has not settled yet. */
const SETTLED_BELOW_MS = 50
/** The tail: at least this long after the scenario, and this long with every answer quick. */
const SETTLE_MS = 1000
/** The longest tail; a service still slow after it is read as it is. */
const SETTLE_LIMIT_MS = 30_000
/**
 * A /healthz that has not answered after this counts as failed, as a load
 * balancer's probe would (and the poller goes on with a new request).
 */
export const HEALTH_TIMEOUT_MS = 2000

/** The service under test, with its probe. */
export interface ProbedService {
  readonly url: string
  readonly pid: number
  /** The delays since the last read (which resets them); `profile` names a CPU profile to take until the next read. */
  readDelay(profile?: string): Promise<DelayReading>
  stop(): Promise<void>
}

/**
 * Starts `src/main.ts` with the probe, on the server's CPU, and resolves once
 * `GET /healthz` answers 200.
 */
export async function startProbedService (env: Record<string, string>, timeoutMs = 60_000): Promise<ProbedService> {
  const { url, child, stderr: stderrText } = await spawnService(['./bench/event-loop-probe.ts'], env, timeoutMs, { ipc: true })
  const readDelay = async (profile?: string): Promise<DelayReading> => await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the probe did not answer within 60 s: ${stderrText().trim()}`)), 60_000)
    child.once('message', (reading) => {
      clearTimeout(timer)
      resolve(reading as DelayReading)
    })
    const message: ReadMessage = { type: READ_TYPE, ...(profile === undefined ? {} : { profile }) }
    child.send(message)
  })
  return {
    url,
    pid: child.pid as number,
    readDelay,
    stop: async () => {
      if (child.connected) child.disconnect()
      await stopChild(child)
    }
  }
}

/** What the poller saw. */
export interface HealthRecord {
  readonly answers: number
  /** Answers other than 200, and requests not answered within HEALTH_TIMEOUT_MS. */
  readonly failures: number
  /** The failures by kind: `timed out`, or the status (`503`). */
  readonly failed: ReadonlyMap<string, number>
  readonly slowestMs: number
  /** The service's largest resident set seen (from /proc, at each poll), bytes. */
  readonly peakRss: number
}

/** The process's resident set from /proc, bytes (0 where /proc is not there). */
export function rssOf (pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match === null ? 0 : Number(match[1]) * 1024
  } catch {
    return 0
  }
}

interface Poller {
  /** Resolves once every answer for SETTLE_MS has been quicker than SETTLED_BELOW_MS (or after SETTLE_LIMIT_MS). */
  settled(): Promise<void>
  stop(): Promise<HealthRecord>
}

/** GETs `url` on `agent`: the status (0 for no answer within HEALTH_TIMEOUT_MS or an error). */
function status (url: string, agent: Agent): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { agent, timeout: HEALTH_TIMEOUT_MS }, (res) => {
      res.resume()
      res.on('end', () => resolve(res.statusCode ?? 0))
      res.on('error', () => resolve(0))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', () => resolve(0))
    req.end()
  })
}

/** Polls `/healthz` one request at a time, every POLL_MS, until stopped. */
function startPoller (service: ProbedService): Poller {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const times: Array<{ at: number, ms: number }> = []
  const failed = new Map<string, number>()
  let peakRss = rssOf(service.pid)
  const state = { stopped: false }
  const loop = (async () => {
    while (!state.stopped) {
      const sent = performance.now()
      const code = await status(`${service.url}/healthz`, agent)
      const took = performance.now() - sent
      times.push({ at: performance.now(), ms: took })
      if (code !== 200) {
        const kind = code === 0 ? 'timed out' : String(code)
        failed.set(kind, (failed.get(kind) ?? 0) + 1)
      }
      peakRss = Math.max(peakRss, rssOf(service.pid))
      await sleep(Math.max(0, POLL_MS - took))
    }
  })()
  return {
    async settled () {
      const from = performance.now()
      while (performance.now() - from < SETTLE_LIMIT_MS) {
        await sleep(POLL_MS)
        const now = performance.now()
        if (now - from < SETTLE_MS) continue
        const recent = times.filter((t) => t.at >= now - SETTLE_MS)
        // The answer still awaited counts too: a service stuck for the whole tail has none.
        const last = times[times.length - 1]
        if (recent.length > 0 && recent.every((t) => t.ms < SETTLED_BELOW_MS) && last !== undefined && now - last.at < SETTLED_BELOW_MS + POLL_MS) return
      }
    },
    async stop () {
      state.stopped = true
      await loop
      agent.destroy()
      const failures = [...failed.values()].reduce((sum, n) => sum + n, 0)
      return { answers: times.length, failures, failed, slowestMs: Math.max(0, ...times.map((t) => t.ms)), peakRss }
    }
  }
}

/** One scenario's window: the event-loop delay, /healthz, the scenario's own figures. */
export interface WindowResult<T> {
  readonly delay: DelayReading
  readonly health: HealthRecord
  /** From the scenario's start to its end (not the tail). */
  readonly scenarioMs: number
  /** From the scenario's start until the service had settled. */
  readonly windowMs: number
  readonly rssBefore: number
  /** The bench process's own largest event-loop delay in the window, ms: large, and its /healthz times are in doubt. */
  readonly benchMaxMs: number
  readonly figures: T
}

/**
 * Runs `scenario` inside a window on `service`: the histogram is reset and the
 * poller started first; after the scenario the poller goes on until the service
 * has settled, then the histogram is read. `name` names the window's CPU profile
 * (taken when the service was started with PROBE_PROFILE_DIR).
 */
export async function measureWindow<T> (service: ProbedService, name: string, scenario: () => Promise<T>): Promise<WindowResult<T>> {
  const rssBefore = rssOf(service.pid)
  await service.readDelay(name)
  const own = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  own.enable()
  const poller = startPoller(service)
  // A reset histogram records nothing until its first sample sets the time it
  // measures from: a stall that began before that sample would go unseen. Two
  // intervals on, it has been taken.
  await sleep(5 * RESOLUTION_MS)
  const started = performance.now()
  let figures: T
  try {
    figures = await scenario()
  } catch (error) {
    own.disable()
    await poller.stop()
    throw error
  }
  const scenarioMs = performance.now() - started
  await poller.settled()
  const windowMs = performance.now() - started
  const delay = await service.readDelay()
  const health = await poller.stop()
  own.disable()
  return { delay, health, scenarioMs, windowMs, rssBefore, benchMaxMs: own.max / 1e6, figures }
}

export const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms))
