/**
 * The data plane's pool runtime: for each pool the proxy uses, its members, the
 * strategy's cursor, health, refusals and quota leases kept in this process's
 * memory. A proxied attempt is chosen here without a database round trip (only a
 * quota block is ever leased on the way) and its outcome is folded into counters
 * that the flusher writes down in one transaction per interval. Explicit API calls
 * do not come through here: they commit before they answer (rotation/), and this
 * runtime follows them through the change feed (this process) and
 * `pools.change_seq` (other processes, read at every flush).
 *
 * Assembled here from its parts: the state (runtime-state.ts, loaded by
 * pool-loader.ts), choosing (choosing.ts), accounting (accounting.ts, leasing.ts),
 * what our credentials met (credential-evidence.ts),
 * the flush (flush-loop.ts: drain → write with flusher.ts → apply) and the change
 * feed and change_seq outside the flush's own writes (change-news.ts).
 */
import type { ChangeFeed } from '../changes.js'
import type { WorkRunner } from '../db/work.js'
import { NO_EVENTS, type RotationEvents } from '../metrics/metrics.js'
import { createAccounting } from './accounting.js'
import { createChangeNews } from './change-news.js'
import { createChoosing } from './choosing.js'
import { createCredentialEvidence } from './credential-evidence.js'
import { createFlushLoop } from './flush-loop.js'
import { writeBatch } from './flusher.js'
import { createLeasing } from './leasing.js'
import { noMemberAllows } from './method-routing.js'
import { createPoolLoader } from './pool-loader.js'
import { createRuntimeState } from './runtime-state.js'

export type { FailedAttempt } from './accounting.js'
export type { ProxyChoice, ProxyRefusal } from './choosing.js'
export type { PoolState } from './runtime-state.js'

interface Deps {
  database: WorkRunner
  now: () => Date
  random?: () => number
  events?: RotationEvents
  changes: ChangeFeed
  flushIntervalMs: number
  maxRefusalsPerProvider: number
  /** Where a failed flush or lease is logged. */
  warn?: (error: unknown, message: string) => void
}

/** Builds the runtime; `close` stops the flusher after a last flush. */
export function createPoolRuntime ({
  database, now, random = Math.random, events = NO_EVENTS, changes, flushIntervalMs, maxRefusalsPerProvider, warn = () => {}
}: Deps) {
  const memory = createRuntimeState()
  const news = createChangeNews({ database, changes, warn, markChanged: memory.markChanged })
  const flusher = createFlushLoop({ now, memory, news, warn, write: async (batch) => await writeBatch(news.writer, batch, maxRefusalsPerProvider) })
  const leasing = createLeasing({ database, now, warn, leases: memory.leases, news, returning: memory.returning, idle: flusher.idle })
  const accounting = createAccounting({ now, events, memory })
  const stateOf = createPoolLoader({ database, now, memory, idle: flusher.idle })
  const evidence = createCredentialEvidence()

  return {
    choose: createChoosing({ now, random, memory, stateOf, lease: leasing.lease, accounting }),
    report: accounting.report,
    learnRefusal: accounting.learnRefusal,
    credentialsWorked: evidence.worked,
    judgeRefusal: evidence.judge,
    release: accounting.release,
    cacheCounted: accounting.cacheCounted,
    retriesCounted: accounting.retriesCounted,

    /** The pool's row as this runtime keeps it (its policy), or undefined for an unknown pool. */
    pool: async (poolId: number) => (await stateOf(poolId))?.pool,

    /** The pool's members as this runtime keeps them, or undefined for an unknown pool. */
    members: async (poolId: number) => (await stateOf(poolId))?.members,

    /** The pool's row when this runtime holds it current, at once; undefined when it must be read (`pool`). */
    poolNow: (poolId: number) => memory.current(poolId)?.pool,

    /**
     * True when the pool, held current here, has members and none allows the RPC method
     * (method-routing.ts); undefined when the pool must be read first (`methodUnserved`).
     */
    methodUnservedNow: (poolId: number, method: string): boolean | undefined => {
      const state = memory.current(poolId)
      return state === undefined ? undefined : noMemberAllows(state, method)
    },

    /** As `methodUnservedNow`, reading the pool when needed (false for an unknown pool: the attempts answer its 404). */
    methodUnserved: async (poolId: number, method: string): Promise<boolean> => {
      const state = await stateOf(poolId)
      return state !== undefined && noMemberAllows(state, method)
    },

    /** True when proxied traffic is not written down yet (pending, a flush under way, or a write beside a lease). */
    unsettled: (): boolean => memory.unsettled() || leasing.busy(),

    /** Writes down what is pending now (API calls wait for it, so a client reads its own proxied requests). */
    settle: async (): Promise<void> => {
      await leasing.done()
      if (memory.hasPending()) await flusher.flush()
      else await flusher.idle()
    },

    /** Writes down what is pending and reads what other processes changed. */
    flush: async (): Promise<void> => { await flusher.flush() },

    /** Starts flushing every `flushIntervalMs`. */
    start (): void { flusher.start(flushIntervalMs) },

    /** Stops the timer and writes down what is left (leases given back). */
    close: async (): Promise<void> => {
      news.close()
      await leasing.done()
      await flusher.stop()
    }
  }
}

export type PoolRuntime = ReturnType<typeof createPoolRuntime>
