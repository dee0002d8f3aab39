/**
 * The write-behind flusher of the pool runtime: every interval (and at shutdown,
 * and before a read) it writes what proxied traffic did since the last flush in
 * ONE transaction — counters added, health merged, latencies per member and minute
 * (one batched upsert), pool counters, history events, refusals learned (a refusal
 * new to the database goes into the history of every pool its provider serves),
 * unused quota given back — and reads which pools other
 * processes changed since (pools.change_seq), so their cooldowns and admin
 * changes reach this process within an interval. A crash loses at most what
 * was pending: one interval of proxy counters and outcomes.
 */
import type { Insertable } from 'kysely'
import type { ChangeFeed } from '../changes.js'
import type { RotationHistoryTable } from '../db/types.js'
import type { Work, WorkRunner } from '../db/work.js'
import type { Db } from '../db/types.js'
import { insertHistory } from '../pools/history.repository.js'
import { addMemberMinutes } from '../pools/member-minutes.repository.js'
import { lockPool } from '../pools/pool.repository.js'
import { touchPoolsOfProviders } from '../providers/provider.repository.js'
import { recordRefusal } from '../providers/refusal.repository.js'
import type { MinuteSample } from '../rules/activity.js'
import { refusalRecord } from '../rules/history-kind.js'
import type { QuotaLeases, QuotaReturn } from './quota-leases.js'
import { listChangeSeqs, returnQuota, writeMemberDelta, writePoolDelta, type HealthWrite } from './runtime.repository.js'

/** One member's pending counters. */
export interface PendingMember {
  readonly poolId: number
  uses: number
  successes: number
  failures: number
  lastUsed: string | null
  health: HealthWrite | null
}

/** One pool's pending counters. */
export interface PendingPool {
  rotations: number
  currentProviderId: number | null
  lastRotation: string | null
}

/** What proxied traffic did since the last flush. */
export interface Batch {
  readonly members: Map<number, PendingMember>
  readonly pools: Map<number, PendingPool>
  readonly history: Array<Omit<Required<Insertable<RotationHistoryTable>>, 'id'>>
  /** Refusals learned, each with the pool whose proxied request met the 403. */
  readonly refusals: Array<{ poolId: number, providerId: number, resource: string, at: string, expiresAt: string }>
  /** Latencies observed, per member and minute (foldSample). */
  readonly latencies: Map<string, MinuteSample>
}

export const emptyBatch = (): Batch => ({ members: new Map(), pools: new Map(), history: [], refusals: [], latencies: new Map() })

/** True when the batch holds nothing to write. */
export function isEmptyBatch (batch: Batch): boolean {
  return batch.members.size === 0 && batch.pools.size === 0 && batch.history.length === 0 && batch.refusals.length === 0 && batch.latencies.size === 0
}
export const memberDeltaOf = (poolId: number): PendingMember => ({ poolId, uses: 0, successes: 0, failures: 0, lastUsed: null, health: null })
export const poolDeltaOf = (): PendingPool => ({ rotations: 0, currentProviderId: null, lastRotation: null })

/** What the flusher needs of the runtime's pools. */
interface KnownPool {
  pool: { change_seq: number }
  stale: boolean
}

interface Deps {
  database: WorkRunner
  now: () => Date
  pools: Map<number, KnownPool>
  leases: QuotaLeases
  changes: ChangeFeed
  maxRefusalsPerProvider: number
  warn: (error: unknown, message: string) => void
  /** Hands over what is pending (and starts a new batch). */
  take: () => Batch
  /** Takes back a batch that could not be written. */
  putBack: (batch: Batch) => void
}

/**
 * One flush. Rows are locked in the order every API transaction locks them — pools
 * (by id), then providers, then members — so a flush never waits in a circle with
 * a rotation, a report or another process's flush. The pool a refusal is recorded
 * in (the one whose request met it) is locked with the batch's own.
 */
function * flushWork (db: Db, batch: Batch, returns: readonly QuotaReturn[], known: readonly number[], at: string, maxRefusals: number): Work<{ seqs: Map<number, number>, written: Map<number, number> }> {
  const written = new Map<number, number>()
  const alive = new Set<number>()
  for (const poolId of [...new Set([...batch.pools.keys(), ...batch.refusals.map((r) => r.poolId)])].sort((a, b) => a - b)) {
    const delta = batch.pools.get(poolId)
    if (delta === undefined) {
      if (yield * lockPool(db, poolId)) alive.add(poolId)
      continue
    }
    const seq = yield * writePoolDelta(db, poolId, delta)
    if (seq !== undefined) {
      written.set(poolId, seq)
      alive.add(poolId)
    }
  }
  // Providers are locked by id (refusals, then quota returns), as every other writer locks them.
  for (const r of [...batch.refusals].sort((a, b) => a.providerId - b.providerId)) {
    // Recorded in the history once, by the write that finds no refusal in force (in any
    // process), in the pool whose request met it only: a caller of one pool whose requests a
    // provider refuses cannot fill the history of the provider's other pools.
    if ((yield * recordRefusal(db, r.providerId, r.resource, r.at, r.expiresAt, maxRefusals)) !== 'learned') continue
    if (alive.has(r.poolId)) yield * insertHistory(db, { pool_id: r.poolId, ...refusalRecord(r.providerId, r.resource, r.expiresAt), timestamp: r.at })
  }
  for (const r of [...returns].sort((a, b) => a.providerId - b.providerId)) yield * returnQuota(db, r.providerId, r.window, r.unused)
  const present = new Set<number>()
  for (const [memberId, d] of batch.members) {
    if (yield * writeMemberDelta(db, { memberId, uses: d.uses, successes: d.successes, failures: d.failures, lastUsed: d.lastUsed, health: d.health }, at)) present.add(memberId)
  }
  // Only members still there (a removed member's minutes would refuse the rows).
  yield * addMemberMinutes(db, [...batch.latencies.values()].filter((s) => present.has(s.memberId)))
  // A pool deleted meanwhile takes its history with it (and would refuse the rows).
  for (const row of batch.history) if (written.has(row.pool_id)) yield * insertHistory(db, row)
  return { seqs: yield * listChangeSeqs(db, known), written }
}

/** Builds the flusher; nothing runs until `start` or `flush`. */
export function createFlusher ({ database, now, pools, leases, changes, maxRefusalsPerProvider, warn, take, putBack }: Deps) {
  let running: Promise<void> | undefined
  let inFlight: Batch | undefined
  let timer: NodeJS.Timeout | undefined
  let queued: Promise<void> | undefined
  let notifying = false

  async function touchProviders (providerIds: readonly number[]): Promise<void> {
    try {
      await database.transact((db) => touchPoolsOfProviders(db, providerIds))
    } catch (error) {
      warn(error, 'marking pools changed failed')
    }
  }

  async function once (): Promise<void> {
    const at = now()
    const batch = take()
    const returns = leases.settle(at)
    const known = [...pools.keys()]
    if (isEmptyBatch(batch) && returns.length === 0 && known.length === 0) return
    inFlight = batch
    let result: { seqs: Map<number, number>, written: Map<number, number> }
    try {
      result = await database.transact((db) => flushWork(db, batch, returns, known, at.toISOString(), maxRefusalsPerProvider))
    } catch (error) {
      putBack(batch)
      leases.restore(returns)
      warn(error, 'flush failed; its counters are kept for the next one')
      return
    } finally {
      inFlight = undefined
    }
    for (const id of known) {
      const state = pools.get(id)
      if (state === undefined) continue
      const seq = result.seqs.get(id)
      if (seq === undefined) {
        pools.delete(id)
        continue
      }
      const mine = result.written.get(id)
      // Our own write moved it by one from what we knew, and nobody wrote since: still current.
      if (mine === state.pool.change_seq + 1 && seq === mine) state.pool.change_seq = seq
      else if (seq !== state.pool.change_seq) state.stale = true
    }
    // Refusals and quotas show in every pool of the provider: marked changed on their own.
    const providers = [...new Set([...batch.refusals.map((r) => r.providerId), ...returns.map((r) => r.providerId)])]
    if (providers.length > 0) await touchProviders(providers)
    // Tell this process's other listeners (the read model); the runtime ignores its own news.
    notifying = true
    try {
      for (const id of batch.pools.keys()) changes.pool(id)
      for (const providerId of providers) changes.provider(providerId)
    } finally {
      notifying = false
    }
  }

  /** Resolves when no flush is under way. */
  async function idle (): Promise<void> {
    for (let current = running; current !== undefined; current = running) await current
  }

  function start (): Promise<void> {
    const mine = once().finally(() => { running = undefined })
    running = mine
    return mine
  }

  async function flush (): Promise<void> {
    // One flush at a time; a flush asked for during one runs after it, and that one
    // queued flush serves every caller who asks meanwhile (it takes what is pending when
    // it starts), so a burst of API calls waits for at most two flushes, not one each.
    if (running === undefined) return await start()
    queued ??= (async () => {
      for (let current = running; current !== undefined; current = running) await current.catch(() => {})
      // The check and the start are in one synchronous step: no second flush starts beside it.
      queued = undefined
      await start()
    })()
    await queued
  }

  return {
    flush,
    /** Resolves when no flush is under way. */
    idle,
    /** Marks every pool of the providers changed, in a transaction of its own (a failure is logged). */
    touchProviders,
    /** The batch being written now, if any. */
    inFlight: (): Batch | undefined => inFlight,
    /** True while the flusher tells the change feed about its own writes. */
    notifying: (): boolean => notifying,
    start (intervalMs: number): void {
      if (timer !== undefined) return
      timer = setInterval(() => { flush().catch((error: unknown) => { warn(error, 'flush failed') }) }, intervalMs)
      timer.unref()
    },
    /** Stops the timer and flushes what is left. */
    async stop (): Promise<void> {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      await flush()
    }
  }
}
