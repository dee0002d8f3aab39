/**
 * WORKERS=N: N serving processes on one port, as NGINX runs workers. This process
 * becomes a node:cluster primary that serves nothing itself: it forks the workers
 * (each runs main.ts's serving path with its own runtime, sharing the database as
 * separate instances do), restarts one that dies unexpectedly (with a backoff), and
 * on SIGTERM/SIGINT passes the signal on and exits 0 once every worker has closed
 * cleanly (1 when one did not, or the shutdown timeout passed).
 *
 * The start (docs/operations.md): every worker is forked at once and loads the
 * service's code, but only the first goes on: it binds the port (a port in use fails
 * the start before anything is written), migrates the schema and applies
 * CONFIG_FILE. Once it is ready the others are told to go on (bind, open the
 * database), so neither runs twice at once (nor again when a worker is restarted).
 * Until every worker is ready, requests wait; then all are told to serve together,
 * and answer what waited on connections they close, so the connections of the first
 * seconds are dealt round all of them. A worker that fails while the service is
 * starting fails the start: the primary stops the others and exits with its code (2
 * stays 2, a bad CONFIG_FILE), as a single process would. A restarted worker binds
 * once it is ready and serves at once.
 */
import cluster, { type Worker } from 'node:cluster'
import { hostname } from 'node:os'
import { relayCachePurges } from './cache/purge-relay.js'
import type { Config } from './config.js'

/**
 * How a worker starts, set in its environment (main.ts reads it through workerStart):
 * `first` binds, migrates and applies CONFIG_FILE; `after-first` waits for the first;
 * `restart` (a worker forked after the start) serves as soon as it is ready.
 */
export const WORKER_START_ENV = 'SOURCEPOOL_WORKER_START'
export type WorkerStart = 'first' | 'after-first' | 'restart'

/** A worker's start messages: after-first waits for GO; READY (and, during the start, SERVE back once all are). */
const WAITING = 'sourcepool:waiting'
const GO = 'sourcepool:go'
const READY = 'sourcepool:ready'
const SERVE = 'sourcepool:serve'

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

/** Sends `cmd` to a worker; one whose channel has just closed is about to exit, and its exit is handled. */
function tell (worker: Worker | null, cmd: string): void {
  worker?.send({ cmd }, () => {})
}

/** One of the N places a worker runs in; a restarted worker takes its predecessor's slot. */
interface Slot {
  readonly number: number
  worker: Worker | null
  startedAt: number
  /** Crashes in a row (workers that died before serving STEADY_MS): the next restart's backoff. */
  crashes: number
  restart: NodeJS.Timeout | null
  /** During the start: this slot's worker is ready to serve, or (after-first) waits to be told to go on. */
  ready: boolean
  waiting: boolean
}

/** Runs the cluster primary for `config.workers` workers; returns at once, the process exits when they are done. */
export function runPrimary (config: Config): void {
  const log = primaryLog(config.logLevel)
  // Each worker's memory cache is its own: a purge asked of one is relayed to all.
  relayCachePurges(log)
  const slots: Slot[] = Array.from({ length: config.workers }, (_, i) => ({ number: i + 1, worker: null, startedAt: 0, crashes: 0, restart: null, ready: false, waiting: false }))
  let phase: 'starting' | 'serving' | 'stopping' = 'starting'
  let exitCode = 0
  const first = slots[0] as Slot

  const fork = (slot: Slot): void => {
    slot.restart = null
    const start: WorkerStart = phase !== 'starting' ? 'restart' : slot.number === 1 ? 'first' : 'after-first'
    const worker = cluster.fork({ [WORKER_START_ENV]: start })
    slot.worker = worker
    slot.startedAt = Date.now()
    let bound = false
    worker.on('listening', () => {
      if (bound) return
      bound = true
      log('info', { worker: slot.number, workerPid: worker.process.pid }, 'worker listening')
    })
    worker.on('message', (message: { cmd?: unknown } | null) => {
      if (message?.cmd === WAITING) slot.waiting = true
      if (message?.cmd === READY) {
        slot.ready = true
        log('info', { worker: slot.number, workerPid: worker.process.pid }, 'worker ready')
      }
      if (phase === 'starting') startStep()
    })
    worker.on('exit', (code, signal) => { exited(slot, worker, code, signal) })
  }

  /** The start's next step: the others go on once the first is ready; all serve once all are. */
  const startStep = (): void => {
    if (first.ready) {
      for (const slot of slots) {
        if (!slot.waiting) continue
        slot.waiting = false
        tell(slot.worker, GO)
      }
    }
    if (slots.every((slot) => slot.ready)) {
      phase = 'serving'
      for (const slot of slots) tell(slot.worker, SERVE)
      log('info', { workers: slots.length, port: config.port }, 'all workers serving')
    }
  }

  const exited = (slot: Slot, worker: Worker, code: number | null, signal: string | null): void => {
    if (slot.worker === worker) slot.worker = null
    const fields = { worker: slot.number, workerPid: worker.process.pid, code, signal }
    if (phase === 'stopping') {
      // A start that failed keeps its worker's code (2 for a bad CONFIG_FILE); the others stopped with it.
      if (code !== 0 && exitCode === 0) exitCode = 1
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
  // All at once: loading the service's code takes most of a start, and only the first goes on alone.
  for (const slot of slots) fork(slot)
}

/** This process's start as a worker (WORKER_START_ENV), or null when it is not one. */
export function workerStart (): WorkerStart | null {
  if (!cluster.isWorker) return null
  const start = process.env[WORKER_START_ENV]
  return start === 'first' || start === 'after-first' ? start : 'restart'
}

/** Sends `cmd` to the primary and resolves once it answers `answer`. */
async function ask (cmd: string, answer: string): Promise<void> {
  await new Promise<void>((resolve) => {
    const listener = (message: { cmd?: unknown } | null) => {
      if (message?.cmd !== answer) return
      process.off('message', listener)
      resolve()
    }
    process.on('message', listener)
    process.send?.({ cmd })
  })
}

/** An after-first worker: resolves once the first is ready (the schema migrated, CONFIG_FILE applied). */
export async function untilFirstReady (): Promise<void> {
  await ask(WAITING, GO)
}

/** Tells the primary this worker is ready; during the start, resolves once every worker is (a restarted worker serves at once). */
export async function untilAllReady (start: WorkerStart): Promise<void> {
  if (start === 'restart') process.send?.({ cmd: READY })
  else await ask(READY, SERVE)
}
