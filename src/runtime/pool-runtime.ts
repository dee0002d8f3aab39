/**
 * The data plane's pool runtime: for each pool the proxy uses, its members, the
 * strategy's cursor, health, refusals and quota leases kept in this process's
 * memory. A proxied attempt is chosen here without a database round trip (only a
 * quota block is ever leased on the way) and its outcome is folded into counters
 * that the flusher (flusher.ts) writes down in one transaction per interval.
 * Explicit API calls do not come through here: they commit before they answer
 * (rotation/), and this runtime follows them through the change feed (this
 * process) and `pools.change_seq` (other processes, read at every flush).
 */
import type { ChangeFeed } from '../changes.js'
import type { WorkRunner } from '../db/work.js'
import { NO_EVENTS, type RotationEvents } from '../metrics/metrics.js'
import { recordQuotaExhaustions } from '../pools/history.repository.js'
import { listMembers, type MemberWithName } from '../pools/member.repository.js'
import { touchPoolsOfProviders } from '../providers/provider.repository.js'
import { MAX_RESOURCE_LENGTH } from '../providers/refusal.service.js'
import { foldSample, mergeSamples } from '../rules/activity.js'
import { applyOutcome, healthAt, healthChangeRecord, type Outcome } from '../rules/health.js'
import { failoverNotes, quotaRecord } from '../rules/history-kind.js'
import { planRotation } from '../rules/plan-rotation.js'
import { parseRotationState, pruneRotationState, type RotationState } from '../rules/strategies.js'
import { createFlusher, emptyBatch, isEmptyBatch, memberDeltaOf, poolDeltaOf, type Batch } from './flusher.js'
import { createQuotaLeases } from './quota-leases.js'
import { findRuntimePool, leaseQuota, listActiveRefusals, type HealthWrite, type RuntimePoolRow } from './runtime.repository.js'

/** A provider's refusal of a resource that kept it out of a proxy choice. */
export interface ProxyRefusal {
  readonly provider_id: number
  readonly provider_name: string | null
  readonly resource: string
  readonly expires_at: string
}

/** What the proxy gets for one attempt: a provider to call, or why there is none. */
export type ProxyChoice =
  | { readonly kind: 'chosen', readonly pool: RuntimePoolRow, readonly member: MemberWithName, readonly degraded: boolean }
  | { readonly kind: 'none', readonly pool: RuntimePoolRow, readonly retryAfterS: number | null, readonly refusals: ProxyRefusal[] }
  | { readonly kind: 'unknown_pool' }

/** The attempt that failed before this choice: the choice is then a failover, recorded in the history. */
export interface FailedAttempt {
  readonly providerId: number
  /** `proxy:<why>`, as the history shows it. */
  readonly reason: string
}

type Member = { -readonly [K in keyof MemberWithName]: MemberWithName[K] }

/** One pool as this process keeps it. */
export interface PoolState {
  pool: RuntimePoolRow
  members: Member[]
  cursor: RotationState
  /** provider id → resource → when the refusal ends. */
  refusals: Map<number, Map<string, string>>
  /** Changed in the database since it was read: read again before the next choice. */
  stale: boolean
}

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

const NO_REFUSALS: ReadonlyMap<number, string> = new Map()

/** A block of a provider's quota window to lease, and what a record of the window used up says. */
interface QuotaBlock {
  readonly window: string
  readonly limit: number
  readonly want: number
  readonly per: string
  readonly resetsAt: string
}

/** History events and refusals kept in memory while flushes fail. */
const MAX_PENDING_EVENTS = 10_000

/** How often one choice may lease a quota block before giving up on that provider. */
const MAX_LEASE_ROUNDS = 4

/** Builds the runtime; `close` stops the flusher after a last flush. */
export function createPoolRuntime ({
  database, now, random = Math.random, events = NO_EVENTS, changes, flushIntervalMs, maxRefusalsPerProvider, warn = () => {}
}: Deps) {
  const pools = new Map<number, PoolState>()
  /** member id → proxied attempts chosen and not yet released (least_outstanding). */
  const inFlight = new Map<number, number>()
  const loading = new Map<number, Promise<PoolState | undefined>>()
  const leasing = new Map<number, Promise<void>>()
  /** provider id → the quota window this process has seen recorded as used up (it asks the database once per window). */
  const exhaustionNoted = new Map<number, string>()
  /** Writes a quota lease made beside its request (awaited at close). */
  const sideWrites = new Set<Promise<void>>()
  const leases = createQuotaLeases()
  let pending: Batch = emptyBatch()
  const flusher = createFlusher({
    database,
    now,
    pools,
    leases,
    changes,
    warn,
    maxRefusalsPerProvider,
    take: () => { const batch = pending; pending = emptyBatch(); return batch },
    putBack: (batch) => { pending = mergeBatches(batch, pending) }
  })

  /** Applies what this process has not written down yet to members read from the database. */
  function withPending (poolId: number, members: Member[], at: string): Member[] {
    for (const batch of [flusher.inFlight(), pending]) {
      if (batch === undefined) continue
      for (const m of members) {
        const delta = batch.members.get(m.id)
        if (delta === undefined || delta.poolId !== poolId) continue
        m.use_count += delta.uses
        m.success_count += delta.successes
        m.failure_count += delta.failures
        if (delta.lastUsed !== null && (m.last_used === null || m.last_used < delta.lastUsed)) m.last_used = delta.lastUsed
        if (delta.health !== null) mergeHealth(m, delta.health, at)
      }
    }
    return members
  }

  /** Refusals learned here that the database may not have yet (being written, or pending). */
  function pendingRefusals (): Batch['refusals'] {
    return [...(flusher.inFlight()?.refusals ?? []), ...pending.refusals]
  }

  async function load (poolId: number): Promise<PoolState | undefined> {
    // A flush under way holds deltas the database may or may not have yet: wait for it.
    await flusher.idle()
    const at = now().toISOString()
    // Refusals learned here and not written down yet: those pending now (a flush may
    // write them while the read runs, after its refusal query) and those after the read.
    const unwritten = pendingRefusals()
    const read = await database.read(function * (db) {
      const pool = yield * findRuntimePool(db, poolId)
      if (pool === undefined) return undefined
      const members = yield * listMembers(db, poolId)
      const refusals = yield * listActiveRefusals(db, members.map((m) => m.provider_id), at)
      return { pool, members, refusals }
    })
    if (read === undefined) {
      pools.delete(poolId)
      return undefined
    }
    const before = pools.get(poolId)
    const members = withPending(poolId, read.members as Member[], at)
    const refusals = new Map<number, Map<string, string>>()
    for (const r of read.refusals) {
      keepRefusal(refusals, r.provider_id, r.resource, r.expires_at)
    }
    // Refusals learned here and not written down yet are as true as those read.
    const providerIds = new Set(members.map((m) => m.provider_id))
    for (const r of [...unwritten, ...pendingRefusals()]) {
      if (!providerIds.has(r.providerId) || r.expiresAt <= at) continue
      keepRefusal(refusals, r.providerId, r.resource, r.expiresAt)
    }
    // The cursor is this process's own (per-process strategies): kept across reloads.
    const cursor = pruneRotationState(before?.cursor ?? parseRotationState(read.pool.rotation_state), members.map((m) => m.id))
    const state: PoolState = { pool: read.pool, members, cursor, refusals, stale: false }
    pools.set(poolId, state)
    return state
  }

  async function stateOf (poolId: number): Promise<PoolState | undefined> {
    const known = pools.get(poolId)
    if (known !== undefined && !known.stale) return known
    let promise = loading.get(poolId)
    if (promise === undefined) {
      promise = load(poolId).finally(() => loading.delete(poolId))
      loading.set(poolId, promise)
    }
    return await promise
  }

  /**
   * Records the provider's window as used up in the history of its pools (once per
   * window across processes: recordQuotaExhaustions), its pools locked first and
   * marked changed; a failure is logged (the quota itself is already counted).
   */
  async function recordExhausted (providerId: number, block: QuotaBlock): Promise<void> {
    exhaustionNoted.set(providerId, block.window)
    const record = quotaRecord(providerId, block.limit, block.per, block.resetsAt)
    try {
      await database.transact(function * (db) {
        const pools = yield * touchPoolsOfProviders(db, [providerId])
        yield * recordQuotaExhaustions(db, [{ providerId, windowStart: block.window, record }], pools, now().toISOString())
      })
    } catch (error) {
      warn(error, 'recording a used-up quota window failed')
    }
  }

  /** Leases a block of the provider's window (one at a time per provider). */
  async function lease (providerId: number, block: QuotaBlock): Promise<void> {
    let promise = leasing.get(providerId)
    if (promise === undefined) {
      promise = database.transact((db) => leaseQuota(db, providerId, block.window, block.limit, block.want))
        .then(({ granted, usedUp }) => {
          leases.granted(providerId, block.window, granted)
          // The quota shows in every pool the provider serves (after the lease: see leaseQuota).
          // Written beside the request, not before it goes on: a flush starting meanwhile would
          // give the fresh block back before the request took its use from it (and the request
          // could then find the window used up by its own block).
          const side = usedUp && exhaustionNoted.get(providerId) !== block.window
            ? recordExhausted(providerId, block)
            : granted > 0 ? flusher.touchProviders([providerId]).catch((error: unknown) => { warn(error, 'marking pools changed after a quota lease failed') }) : undefined
          if (side !== undefined) {
            // Neither rejects (each logs its own failure).
            const tracked = side.finally(() => { sideWrites.delete(tracked) })
            sideWrites.add(tracked)
          }
        })
        .catch((error: unknown) => {
          // Without the database no block can be counted: the provider is out until the next flush.
          warn(error, 'quota lease failed')
          leases.granted(providerId, block.window, 0)
        })
        .finally(() => leasing.delete(providerId))
      leasing.set(providerId, promise)
    }
    await promise
  }

  function poolPending (poolId: number) {
    let delta = pending.pools.get(poolId)
    if (delta === undefined) pending.pools.set(poolId, delta = poolDeltaOf())
    return delta
  }

  function memberPending (poolId: number, memberId: number) {
    let delta = pending.members.get(memberId)
    if (delta === undefined) pending.members.set(memberId, delta = memberDeltaOf(poolId))
    return delta
  }

  function refusalsFor (state: PoolState, resource: string, at: string): ReadonlyMap<number, string> {
    if (state.refusals.size === 0) return NO_REFUSALS
    const found = new Map<number, string>()
    for (const m of state.members) {
      const until = state.refusals.get(m.provider_id)?.get(resource)
      if (until !== undefined && until > at) found.set(m.provider_id, until)
    }
    return found
  }

  const stopListening = changes.listen(({ poolId, providerId }) => {
    if (flusher.notifying()) return
    if (poolId !== undefined) {
      const state = pools.get(poolId)
      if (state !== undefined) state.stale = true
    }
    if (providerId !== undefined) {
      for (const state of pools.values()) if (state.members.some((m) => m.provider_id === providerId)) state.stale = true
    }
  })

  return {
    /**
     * Chooses the provider for one proxy attempt: by the pool's strategy among the
     * eligible members that have a base URL, do not refuse `resource` and are not in
     * `exclude`, with a use of the provider's quota. With `failed`, the choice is a
     * failover and goes into the history. With none eligible, `retryAfterS` tells
     * when the soonest member comes back, and `refusals` which were left out for refusing.
     */
    async choose (poolId: number, resource: string, exclude: ReadonlySet<number>, failed?: FailedAttempt, key?: string): Promise<ProxyChoice> {
      for (let round = 0; ; round++) {
        const state = await stateOf(poolId)
        if (state === undefined) return { kind: 'unknown_pool' }
        const { pool } = state
        if (pool.enabled !== 1) return { kind: 'none', pool, retryAfterS: null, refusals: [] }
        const at = now()
        const iso = at.toISOString()
        // Allocated only when needed: most pools have no quota, no refusal and no member without a URL.
        const metered = state.members.some((m) => m.rate_limit_requests !== null)
        let members = metered ? state.members.map((m) => m.rate_limit_requests === null ? m : { ...m, ...leases.view(m.provider_id, m, at) }) : state.members
        if (pool.rotation_strategy === 'least_outstanding') members = members.map((m) => ({ ...m, outstanding: inFlight.get(m.id) ?? 0 }))
        const refused = refusalsFor(state, resource, iso)
        const unroutable = state.members.some((m) => m.base_url === null)
        const left = metered || unroutable ? new Set(exclude) : exclude as Set<number>
        if (unroutable) for (const m of members) if (m.base_url === null) left.add(m.provider_id)
        let block: (QuotaBlock & { providerId: number }) | undefined
        while (block === undefined) {
          const plan = planRotation(pool, members, refused, at, left, state.cursor, random, key)
          const chosen = plan.chosen?.member
          if (chosen === undefined) {
            const refusals = [...refused].filter(([id]) => !exclude.has(id)).map(([id, until]) => ({
              provider_id: id, provider_name: members.find((m) => m.provider_id === id)?.provider_name ?? null, resource, expires_at: until
            }))
            return { kind: 'none', pool, retryAfterS: plan.retryAfterMs === null ? null : Math.max(1, Math.ceil(plan.retryAfterMs / 1000)), refusals }
          }
          if (chosen.rate_limit_requests !== null && !leases.take(chosen.provider_id, chosen, at)) {
            const want = round < MAX_LEASE_ROUNDS ? leases.want(chosen.provider_id, chosen, at) : undefined
            if (want === undefined) left.add(chosen.provider_id)
            else block = { providerId: chosen.provider_id, per: chosen.rate_limit_per ?? '?', ...want }
            continue
          }
          state.cursor = plan.state
          const member = state.members.find((m) => m.id === chosen.id) as Member
          member.use_count++
          member.last_used = iso
          inFlight.set(member.id, (inFlight.get(member.id) ?? 0) + 1)
          const memberDelta = memberPending(poolId, member.id)
          memberDelta.uses++
          memberDelta.lastUsed = iso
          const poolDelta = poolPending(poolId)
          poolDelta.rotations++
          poolDelta.currentProviderId = member.provider_id
          poolDelta.lastRotation = iso
          if (failed !== undefined) {
            pending.history.push({
              pool_id: poolId,
              from_provider_id: failed.providerId,
              to_provider_id: member.provider_id,
              reason: failed.reason,
              success: 1,
              notes: failoverNotes(failed.providerId, plan.degraded),
              timestamp: iso,
              until: null
            })
          }
          events.rotated(poolId, member.provider_name)
          return { kind: 'chosen', pool, member, degraded: plan.degraded }
        }
        // Lease outside the loop: after the wait, choose again from what is then true.
        await lease(block.providerId, block)
      }
    },

    /**
     * Folds one attempt's outcome into the member's health and counters, in memory;
     * a cooldown started or a member recovered goes into the history. A member
     * removed meanwhile has nothing to report to.
     */
    report (poolId: number, providerId: number, outcome: Outcome & { readonly error?: string | null }): void {
      const state = pools.get(poolId)
      const member = state?.members.find((m) => m.provider_id === providerId)
      if (state === undefined || member === undefined) return
      const at = now()
      const iso = at.toISOString()
      const before = healthAt(member, at)
      const { state: health, cooldownStarted } = applyOutcome(member, outcome, state.pool, at)
      const lastError = outcome.success ? null : outcome.error ?? (outcome.status_code != null ? `HTTP ${outcome.status_code}` : member.last_error)
      Object.assign(member, health, { last_error: lastError })
      const delta = memberPending(poolId, member.id)
      delta.health = { ...health, last_error: lastError }
      // The latency folded into the moving average also counts in its minute (activity charts).
      if (outcome.latency_ms != null) foldSample(pending.latencies, member.id, iso, outcome.latency_ms)
      if (outcome.success) {
        member.success_count++
        delta.successes++
      } else {
        member.failure_count++
        delta.failures++
      }
      poolPending(poolId)
      const record = healthChangeRecord(providerId, before, health, cooldownStarted, lastError)
      if (record !== null) pending.history.push({ pool_id: poolId, ...record, timestamp: iso })
      if (cooldownStarted !== null) events.cooldownStarted(cooldownStarted)
      events.reported(outcome.success)
    },

    /**
     * Remembers that the provider refuses `resource` for `ttlSeconds`, in every pool
     * it serves here at once and in the database at the next flush (its history record
     * in `poolId`, whose request met the 403).
     */
    learnRefusal (poolId: number, providerId: number, resource: string, ttlSeconds: number): void {
      if (resource.length > MAX_RESOURCE_LENGTH) return
      const at = now()
      const expiresAt = new Date(at.getTime() + ttlSeconds * 1000).toISOString()
      for (const state of pools.values()) {
        if (!state.members.some((m) => m.provider_id === providerId)) continue
        // The newest refusal sets the end, as the database's upsert does.
        let byResource = state.refusals.get(providerId)
        if (byResource === undefined) state.refusals.set(providerId, byResource = new Map())
        byResource.set(resource, expiresAt)
      }
      pending.refusals.push({ poolId, providerId, resource, at: at.toISOString(), expiresAt })
    },

    /** Ends an attempt `choose` handed out (its answer is complete, or it failed). */
    release (memberId: number): void {
      const count = inFlight.get(memberId)
      if (count === undefined) return
      if (count <= 1) inFlight.delete(memberId)
      else inFlight.set(memberId, count - 1)
    },

    /** True when proxied traffic is not written down yet (pending, or a flush under way). */
    unsettled: (): boolean => !isEmptyBatch(pending) || flusher.inFlight() !== undefined || sideWrites.size > 0,

    /** Writes down what is pending now (API calls wait for it, so a client reads its own proxied requests). */
    settle: async (): Promise<void> => {
      await Promise.all(sideWrites)
      if (!isEmptyBatch(pending)) await flusher.flush()
      else await flusher.idle()
    },

    /** Writes down what is pending and reads what other processes changed. */
    flush: async (): Promise<void> => { await flusher.flush() },

    /** Starts flushing every `flushIntervalMs`. */
    start (): void { flusher.start(flushIntervalMs) },

    /** Stops the timer and writes down what is left (leases given back). */
    close: async (): Promise<void> => {
      stopListening()
      await Promise.all(sideWrites)
      await flusher.stop()
    }
  }
}

/**
 * Health this process saw and has not written down, merged into a member read from
 * the database by the rule the flush writes it with (writeMemberDelta): a cooldown
 * seen here stands unless the stored one ends later; a cooldown seen ending here is
 * cleared only when the stored one has ended too — one started since by another
 * process or a health check stays.
 */
function mergeHealth (member: Member, health: HealthWrite, at: string): void {
  member.consecutive_failures = health.consecutive_failures
  member.cooldown_trips = health.cooldown_trips
  member.latency_ms = health.latency_ms
  member.last_error = health.last_error
  if (health.cooldown_until !== null) {
    if (member.cooldown_until === null || member.cooldown_until < health.cooldown_until) {
      member.cooldown_until = health.cooldown_until
      member.cooldown_reason = health.cooldown_reason
    }
  } else if (member.cooldown_until !== null && member.cooldown_until <= at) {
    member.cooldown_until = null
    member.cooldown_reason = null
  }
}

/** Records that the provider refuses `resource` until `expiresAt`, keeping the later end when one is known. */
function keepRefusal (refusals: Map<number, Map<string, string>>, providerId: number, resource: string, expiresAt: string): void {
  let byResource = refusals.get(providerId)
  if (byResource === undefined) refusals.set(providerId, byResource = new Map())
  const known = byResource.get(resource)
  if (known === undefined || known < expiresAt) byResource.set(resource, expiresAt)
}

/** `first` then `later`, as one batch (a failed flush's batch goes back in front of what came since). */
function mergeBatches (first: Batch, later: Batch): Batch {
  const merged = emptyBatch()
  for (const batch of [first, later]) {
    for (const [id, d] of batch.members) {
      const m = merged.members.get(id)
      if (m === undefined) merged.members.set(id, { ...d })
      else {
        m.uses += d.uses
        m.successes += d.successes
        m.failures += d.failures
        if (d.lastUsed !== null) m.lastUsed = d.lastUsed
        if (d.health !== null) m.health = d.health
      }
    }
    for (const [id, d] of batch.pools) {
      const p = merged.pools.get(id)
      if (p === undefined) merged.pools.set(id, { ...d })
      else {
        p.rotations += d.rotations
        if (d.currentProviderId !== null) p.currentProviderId = d.currentProviderId
        if (d.lastRotation !== null) p.lastRotation = d.lastRotation
      }
    }
    merged.history.push(...batch.history)
    merged.refusals.push(...batch.refusals)
    mergeSamples(merged.latencies, batch.latencies)
  }
  // While the database refuses flushes, counters keep adding up in place; events are kept
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

export type PoolRuntime = ReturnType<typeof createPoolRuntime>
