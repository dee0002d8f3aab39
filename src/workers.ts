/**
 * WORKERS=N: N serving processes on one port, as NGINX runs workers. This process
 * becomes a node:cluster primary that serves nothing itself: it forks the workers
 * (each runs main.ts's serving path with its own runtime, sharing the database as
 * separate instances do), restarts one that dies unexpectedly (with a backoff), and
 * on SIGTERM/SIGINT passes the signal on and exits 0 once every worker has closed
 * cleanly (1 when one did not, or the shutdown timeout passed).
 *
 * The first worker starts alone: it migrates the schema and applies CONFIG_FILE,
 * and the others are forked once it listens, so neither runs twice at once (nor
 * again when a worker is restarted). A worker that fails while the service is
 * starting fails the start: the primary stops the others and exits with its code
 * (2 stays 2, a bad CONFIG_FILE), as a single process would.
 */
import cluster, { type Worker } from 'node:cluster'
import { hostname } from 'node:os'
import { relayCachePurges } from './cache/purge-relay.js'
import type { Config } from './config.js'

/** Set in the environment of every worker but the first: CONFIG_FILE was applied by the first (main.ts reads it). */
export const CONFIG_FILE_APPLIED_ENV = 'SOURCEPOOL_CONFIG_FILE_APPLIED'

/** The restart delay after a crash: doubles with each crash in a row, from the first to the last. */
export const RESTART_FIRST_MS = 100
export const RESTART_MAX_MS = 10_000
/** A worker that served this long before it died starts its slot's backoff over. */
const STEADY_MS = 10_000
/** How long past SHUTDOWN_TIMEOUT_MS the primary waits (a worker exits 1 itself at the timeout) before it kills what is left. */
const SHUTDOWN_GRACE_MS = 2_000

const LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 }

type Log = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, msg: string) => void

/** The primary's log lines, in the shape the workers' (pino's) have, at LOG_LEVEL. */
function primaryLog (logLevel: string): Log {
  const threshold = LEVELS[logLevel] ?? Infinity
  const host = hostname()
  return (level, fields, msg) => {
    const value = LEVELS[level] as number
    if (value < threshold) return
    process.stdout.write(`${JSON.stringify({ level: value, time: Date.now(), pid: process.pid, hostname: host, role: 'primary', ...fields, msg })}\n`)
  }
}

/** One of the N places a worker runs in; a restarted worker takes its predecessor's slot. */
interface Slot {
  readonly number: number
  worker: Worker | null
  startedAt: number
  /** Crashes in a row (workers that died before serving STEADY_MS): the next restart's backoff. */
  crashes: number
  restart: NodeJS.Timeout | null
}

/** Runs the cluster primary for `config.workers` workers; returns at once, the process exits when they are done. */
export function runPrimary (config: Config): void {
  const log = primaryLog(config.logLevel)
  // Each worker's memory cache is its own: a purge asked of one is relayed to all.
  relayCachePurges(log)
  const slots: Slot[] = Array.from({ length: config.workers }, (_, i) => ({ number: i + 1, worker: null, startedAt: 0, crashes: 0, restart: null }))
  let phase: 'starting' | 'serving' | 'stopping' = 'starting'
  let exitCode = 0
  let listening = 0

  const fork = (slot: Slot): void => {
    slot.restart = null
    const worker = cluster.fork(slot.number === 1 && phase === 'starting' ? {} : { [CONFIG_FILE_APPLIED_ENV]: '1' })
    slot.worker = worker
    slot.startedAt = Date.now()
    let served = false
    worker.on('listening', () => {
      if (served) return
      served = true
      log('info', { worker: slot.number, workerPid: worker.process.pid }, 'worker listening')
      if (phase !== 'starting') return
      listening++
      // The first is ready: the schema is migrated and CONFIG_FILE applied; the rest start together.
      if (slot.number === 1) for (const other of slots.slice(1)) fork(other)
      if (listening === slots.length) {
        phase = 'serving'
        log('info', { workers: slots.length, port: config.port }, 'all workers serving')
      }
    })
    worker.on('exit', (code, signal) => { exited(slot, worker, code, signal) })
  }

  const exited = (slot: Slot, worker: Worker, code: number | null, signal: string | null): void => {
    if (slot.worker === worker) slot.worker = null
    const fields = { worker: slot.number, workerPid: worker.process.pid, code, signal }
    if (phase === 'stopping') {
      if (code !== 0) exitCode = 1
      log(code === 0 ? 'info' : 'error', fields, 'worker stopped')
      if (slots.every((s) => s.worker === null)) process.exit(exitCode)
      return
    }
    if (phase === 'starting') {
      // A worker that cannot start would not start on a retry either (a bad CONFIG_FILE, a taken port, no database).
      log('error', fields, 'worker failed while the service was starting')
      stop(null, code === 2 ? 2 : 1)
      return
    }
    if (Date.now() - slot.startedAt >= STEADY_MS) slot.crashes = 0
    const delayMs = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** slot.crashes)
    slot.crashes++
    log('error', { ...fields, restartInMs: delayMs }, 'worker died; restarting it')
    slot.restart = setTimeout(() => { fork(slot) }, delayMs)
  }

  /** Passes `signal` on to every worker (none: they are told SIGTERM) and exits once all are gone. */
  const stop = (signal: NodeJS.Signals | null, code = 0): void => {
    if (phase === 'stopping') return
    phase = 'stopping'
    exitCode = code
    if (signal !== null) log('info', { signal }, 'shutting down')
    for (const slot of slots) {
      if (slot.restart !== null) clearTimeout(slot.restart)
      slot.restart = null
      slot.worker?.process.kill(signal ?? 'SIGTERM')
    }
    if (slots.every((s) => s.worker === null)) process.exit(exitCode)
    setTimeout(() => {
      log('error', { timeoutMs: config.shutdownTimeoutMs }, 'workers did not stop in time')
      for (const slot of slots) slot.worker?.process.kill('SIGKILL')
      process.exit(1)
    }, config.shutdownTimeoutMs + SHUTDOWN_GRACE_MS).unref()
  }

  process.on('SIGTERM', () => { stop('SIGTERM') })
  process.on('SIGINT', () => { stop('SIGINT') })
  log('info', { workers: slots.length }, 'starting workers')
  fork(slots[0] as Slot)
}
