/**
 * The contract between the runtime and its flusher, as values. The runtime adds what
 * proxied traffic does to a Pending (counters per member and pool, history records,
 * refusals learned, latencies per minute); a flush drains it into a FlushBatch that
 * nothing changes any more, the flusher (flusher.ts) writes that batch and answers a
 * FlushResult, and the runtime applies it (runtime-state.ts). A batch that could not
 * be written goes back in front of what came since (mergePending), bounded, so memory
 * stays bounded however long the database refuses flushes.
 */
import type { FailoverRecord } from '../pools/history-records.repository.js'
import { mergeSamples, type MinuteSample } from '../rules/activity.js'
import type { HealthChangeRecord } from '../rules/health.js'
import type { ServiceRecord } from '../rules/history-kind.js'
import type { QuotaReturn } from './quota-leases.js'
import type { HealthWrite } from './runtime.repository.js'

/** One member's counters and health not written down yet. */
export interface PendingMember {
  readonly poolId: number
  uses: number
  successes: number
  failures: number
  lastUsed: string | null
  health: HealthWrite | null
}

/** One pool's counters not written down yet. */
export interface PendingPool {
  rotations: number
  currentProviderId: number | null
  lastRotation: string | null
  /** Proxied requests the response cache answered (hits, stale) or sent upstream (misses). */
  cacheHits: number
  cacheMisses: number
  cacheStale: number
  /** The pool's live cache entries as last counted, or null when not counted since the last flush. */
  cacheEntries: number | null
  /** Proxied attempts after a request's first (hedges among them), hedges, and requests a spent retry budget ended. */
  retries: number
  hedges: number
  budgetExhausted: number
}

/** A history record a proxied request made: a failover inside it, or a health change one of its attempts caused. */
export type PendingRecord =
  | ({ readonly kind: 'failover' } & FailoverRecord)
  | { readonly kind: 'health', readonly poolId: number, readonly record: HealthChangeRecord, readonly at: string }
  | { readonly kind: 'hedge', readonly poolId: number, readonly record: ServiceRecord, readonly at: string }

/** A refusal learned, with the pool whose proxied request met the 403 (or 401/402: `statusCode`). */
export interface PendingRefusal {
  readonly poolId: number
  readonly providerId: number
  readonly resource: string
  readonly at: string
  readonly expiresAt: string
  readonly statusCode: number
}

/** What proxied traffic did since the last flush, added to in place until it is drained. */
export interface Pending {
  readonly members: Map<number, PendingMember>
  readonly pools: Map<number, PendingPool>
  readonly history: PendingRecord[]
  readonly refusals: PendingRefusal[]
  /** Latencies observed, per member and minute (foldSample). */
  readonly latencies: Map<string, MinuteSample>
}

/** What a Pending holds, read only. */
export interface PendingView {
  readonly members: ReadonlyMap<number, Readonly<PendingMember>>
  readonly pools: ReadonlyMap<number, Readonly<PendingPool>>
  readonly history: readonly PendingRecord[]
  readonly refusals: readonly PendingRefusal[]
  readonly latencies: ReadonlyMap<string, Readonly<MinuteSample>>
}

/** A drained Pending and what else one flush writes and reads, as the flusher gets it. */
export interface FlushBatch extends PendingView {
  /** Quota leased and not used, given back. */
  readonly quotaReturns: readonly QuotaReturn[]
  /** The pools this process keeps: their change_seq is read back. */
  readonly knownPools: readonly number[]
  /** When the batch was drained (a cooldown seen ending here is cleared if the stored one has ended by then). */
  readonly at: string
}

/** What the flusher read while it wrote a batch, for the runtime to apply. */
export interface FlushResult {
  /** The change_seq of each known pool that still exists (one missing was deleted). */
  readonly changeSeqs: ReadonlyMap<number, number>
  /** The change_seq this flush's own write gave each pool it wrote to. */
  readonly written: ReadonlyMap<number, number>
}

/** History records and refusals kept in memory while flushes fail (the newest). */
const MAX_PENDING_EVENTS = 10_000

export const emptyPending = (): Pending => ({ members: new Map(), pools: new Map(), history: [], refusals: [], latencies: new Map() })

/** True when there is nothing to write. */
export function isEmptyPending (pending: PendingView): boolean {
  return pending.members.size === 0 && pending.pools.size === 0 && pending.history.length === 0 && pending.refusals.length === 0 && pending.latencies.size === 0
}

/** The member's pending counters, started when it has none. */
export function memberPendingOf (pending: Pending, poolId: number, memberId: number): PendingMember {
  let delta = pending.members.get(memberId)
  if (delta === undefined) pending.members.set(memberId, delta = { poolId, uses: 0, successes: 0, failures: 0, lastUsed: null, health: null })
  return delta
}

/** The pool's pending counters, started when it has none. */
export function poolPendingOf (pending: Pending, poolId: number): PendingPool {
  let delta = pending.pools.get(poolId)
  if (delta === undefined) pending.pools.set(poolId, delta = { rotations: 0, currentProviderId: null, lastRotation: null, cacheHits: 0, cacheMisses: 0, cacheStale: 0, cacheEntries: null, retries: 0, hedges: 0, budgetExhausted: 0 })
  return delta
}

/** The providers whose every pool a written batch changed: refusals learned, quota given back. */
export function providersOf (batch: FlushBatch): number[] {
  return [...new Set([...batch.refusals.map((r) => r.providerId), ...batch.quotaReturns.map((r) => r.providerId)])]
}

/** `first` then `later`, as one new Pending (a failed flush's batch goes back in front of what came since). */
export function mergePending (first: PendingView, later: PendingView): Pending {
  const merged = emptyPending()
  for (const batch of [first, later]) {
    for (const [id, d] of batch.members) {
      const m = merged.members.get(id)
      if (m === undefined) merged.members.set(id, { ...d })
      else {
        m.uses += d.uses
        m.successes += d.successes
        m.failures += d.failures
        if (d.lastUsed !== null) m.lastUsed = d.lastUsed
        // A cooldown a probe ended early stays ended in the later health, unless that names one of its own.
        const ended = m.health?.ended_cooldown
        if (d.health !== null) m.health = ended === undefined || d.health.ended_cooldown !== undefined ? d.health : { ...d.health, ended_cooldown: ended }
      }
    }
    for (const [id, d] of batch.pools) {
      const p = merged.pools.get(id)
      if (p === undefined) merged.pools.set(id, { ...d })
      else {
        p.rotations += d.rotations
        p.cacheHits += d.cacheHits
        p.cacheMisses += d.cacheMisses
        p.cacheStale += d.cacheStale
        p.retries += d.retries
        p.hedges += d.hedges
        p.budgetExhausted += d.budgetExhausted
        if (d.cacheEntries !== null) p.cacheEntries = d.cacheEntries
        if (d.currentProviderId !== null) p.currentProviderId = d.currentProviderId
        if (d.lastRotation !== null) p.lastRotation = d.lastRotation
      }
    }
    merged.history.push(...batch.history)
    merged.refusals.push(...batch.refusals)
    mergeSamples(merged.latencies, batch.latencies)
  }
  // While the database refuses flushes, counters keep adding up in place; records are kept
  // up to a bound (the newest), so memory stays bounded however long it lasts.
  if (merged.history.length > MAX_PENDING_EVENTS) merged.history.splice(0, merged.history.length - MAX_PENDING_EVENTS)
  if (merged.refusals.length > MAX_PENDING_EVENTS) merged.refusals.splice(0, merged.refusals.length - MAX_PENDING_EVENTS)
  // Minutes too, oldest first (by when they were first added).
  for (const key of merged.latencies.keys()) {
    if (merged.latencies.size <= MAX_PENDING_EVENTS) break
    merged.latencies.delete(key)
  }
  return merged
}
