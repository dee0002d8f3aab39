/**
 * Rotate and fail over (operations 9 and 10), and read the history (11).
 * Each rotation is one transaction that locks the pool's row first, so concurrent
 * rotations, reports and failovers, in one process or several sharing a database,
 * are serialised per pool and the cursor, counters, health and history agree.
 * Only enabled members that are not cooling down and have quota left are chosen
 * (see eligibility.ts); quotas are counted with one conditional UPDATE. What each
 * one changed is declared in its unit of work (db/unit-of-work.ts): the pool (and a
 * metered provider's pools) bumped in the transaction, the change feed told after.
 */
import type { Db } from '../db/types.js'
import { touched, unitOfWork } from '../db/unit-of-work.js'
import type { Work, WorkRunner } from '../db/work.js'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { NotFoundError } from '../errors.js'
import { NO_EVENTS, type RotationEvents } from '../metrics/metrics.js'
import { listMembers, markMemberUsed, updateMemberHealth, type MemberWithName } from '../pools/member.repository.js'
import { findPoolForRotation, recordPoolRotation, type RotationPoolRow } from '../pools/pool.repository.js'
import { consumeQuota } from '../providers/provider.repository.js'
import { applyOutcome, healthAt, healthChangeRecord } from '../rules/health.js'
import { insertHistory, listHistory } from '../pools/history.repository.js'
import { recordFailover, recordQuotaUsedUp, type QuotaUsedUp } from '../pools/history-records.repository.js'
import { toHistoryRecords } from '../pools/history.mapper.js'
import type { HistoryRecordValue } from '../pools/pool.schemas.js'
import { planRotation } from '../rules/plan-rotation.js'
import { parseRotationState } from '../rules/strategies.js'

export interface Rotation {
  readonly providerId: number
  readonly providerName: string | null
  readonly timestamp: string
  /** Every eligible member was cooling down; the one whose cooldown ends first was chosen. */
  readonly degraded: boolean
}

export interface Failover extends Rotation {
  readonly failedProviderName: string | null
}

interface Deps {
  database: WorkRunner
  now: () => Date
  random?: () => number
  events?: RotationEvents
  /** Told of every committed change, so memory kept of the pool is dropped at once. */
  changes?: ChangeFeed
}

const noneAvailable = (poolId: number) => new NotFoundError(`No available providers in pool ${poolId}`)

/**
 * Plans by the pool's strategy (rules/plan-rotation.ts) among the eligible members
 * but those of `exclude` and those refusing the resource (`refusals`), takes one from
 * the chosen provider's quota and records the use. A quota another process used up
 * first leaves that member out, and the plan is made again. Quota windows found used
 * up (the chosen one's last use taken, or one another process used up first) are
 * added to `exhausted`.
 */
function * rotateWithin (
  db: Db, random: () => number, pool: RotationPoolRow, members: MemberWithName[], at: Date, exhausted: QuotaUsedUp[],
  exclude: ReadonlySet<number> = new Set(), refusals: ReadonlyMap<number, string> = new Map(), key?: string
): Work<{ chosen: { member: MemberWithName, degraded: boolean } | undefined, retryAfterMs: number | null }> {
  const left = new Set(exclude)
  const state = parseRotationState(pool.rotation_state)
  while (true) {
    const plan = planRotation(pool, members, refusals, at, left, state, random, key)
    const chosen = plan.chosen
    if (chosen === undefined) return { chosen: undefined, retryAfterMs: plan.retryAfterMs }
    const quota = chosen.quota
    if (quota !== null) {
      const used = yield * consumeQuota(db, chosen.member.provider_id, quota.window_start, quota.limit)
      if (used === undefined || used >= quota.limit) {
        const { provider_id: providerId, rate_limit_per: per } = chosen.member
        exhausted.push({ providerId, windowStart: quota.window_start, limit: quota.limit, per, resetsAt: quota.resets_at })
      }
      if (used === undefined) {
        left.add(chosen.member.provider_id)
        continue
      }
    }
    const iso = at.toISOString()
    yield * markMemberUsed(db, chosen.member.id, iso)
    yield * recordPoolRotation(db, pool.id, { providerId: chosen.member.provider_id, at: iso, state: JSON.stringify(plan.state) })
    return { chosen: { member: chosen.member, degraded: plan.degraded }, retryAfterMs: null }
  }
}

/** What a rotation or failover leaves for after its commit: the member it served and the quota windows it found used up. */
interface Aftermath { served: MemberWithName | undefined, exhausted: QuotaUsedUp[] }

/** One rotation (operation 9), in the pool's lock; `after` is filled for touchMetered. */
function * rotateWork (
  db: Db, deps: { now: () => Date, random: () => number }, poolId: number, reason: string, key: string | undefined, after: Aftermath
): Work<Rotation> {
  const pool = yield * findPoolForRotation(db, poolId)
  if (pool === undefined || pool.enabled === 0) throw noneAvailable(poolId)
  const members = yield * listMembers(db, poolId)
  // Read the clock inside the lock, so history timestamps follow commit order.
  const at = deps.now()
  const { chosen } = yield * rotateWithin(db, deps.random, pool, members, at, after.exhausted, new Set(), new Map(), key)
  if (chosen === undefined) throw noneAvailable(poolId)
  const { member, degraded } = chosen
  after.served = member
  if (pool.current_provider_id !== member.provider_id) {
    yield * insertHistory(db, {
      pool_id: poolId,
      from_provider_id: pool.current_provider_id,
      to_provider_id: member.provider_id,
      reason,
      success: 1,
      notes: degraded ? 'degraded: every eligible member was cooling down' : null,
      timestamp: at.toISOString(),
      until: null
    })
  }
  return { providerId: member.provider_id, providerName: member.provider_name, timestamp: at.toISOString(), degraded }
}

/**
 * One failover (operation 10), in the pool's lock: the failed member's failure counted
 * (its cooldown, if one starts, added to `cooldowns`), then a rotation without it.
 * Undefined for an unknown pool; the failed provider's name alone when no alternative exists.
 */
function * failoverWork (
  db: Db, deps: { now: () => Date, random: () => number }, poolId: number, failedProviderId: number, reason: string,
  after: Aftermath, cooldowns: string[]
): Work<Failover | { failedProviderName: string | null } | undefined> {
  const pool = yield * findPoolForRotation(db, poolId)
  if (pool === undefined) return undefined
  const members = yield * listMembers(db, poolId)
  const at = deps.now()
  const failed = members.find((m) => m.provider_id === failedProviderId)
  if (failed === undefined) throw new NotFoundError(`Member not found in pool ${poolId}`)
  const effect = applyOutcome(failed, { success: false }, pool, at)
  const { state, cooldownStarted } = effect
  yield * updateMemberHealth(db, failed.id, { ...state, last_error: `failover: ${reason}`, successes: 0, failures: 1 })
  yield * touched(db, { pools: [poolId] })
  if (cooldownStarted !== null) cooldowns.push(cooldownStarted)
  const record = healthChangeRecord(failedProviderId, healthAt(failed, at), effect, `failover: ${reason}`)
  if (record !== null) yield * insertHistory(db, { pool_id: poolId, ...record, timestamp: at.toISOString() })
  const chosen = pool.enabled === 1 ? (yield * rotateWithin(db, deps.random, pool, members, at, after.exhausted, new Set([failedProviderId]))).chosen : undefined
  after.served = chosen?.member
  yield * recordFailover(db, {
    poolId,
    failedProviderId,
    chosen: chosen === undefined ? null : { providerId: chosen.member.provider_id, degraded: chosen.degraded },
    reason,
    at: at.toISOString()
  })
  const failedProviderName = failed.provider_name
  if (chosen === undefined) return { failedProviderName }
  return {
    providerId: chosen.member.provider_id,
    providerName: chosen.member.provider_name,
    timestamp: at.toISOString(),
    degraded: chosen.degraded,
    failedProviderName
  }
}

/** Builds the rotation service. */
export function createRotationService ({
  database: handle, now, random = Math.random, events = NO_EVENTS, changes = NO_CHANGES
}: Deps) {
  const database = unitOfWork(handle, changes)
  const deps = { now, random }

  /**
   * The quota used shows in every pool the provider serves: those pools are marked
   * changed in a transaction of their own after the rotation commits. Inside it, the
   * other pools' rows would be locked after this pool's, and two rotations of two
   * pools sharing a metered provider would wait for each other (a deadlock on PostgreSQL).
   * A quota window the rotation found used up goes into the history of those pools
   * in the same transaction (once per window, whoever finds it).
   */
  async function touchMetered ({ served: member, exhausted }: Aftermath): Promise<void> {
    const providers = new Set(exhausted.map((e) => e.providerId))
    if (member !== undefined && member.rate_limit_requests !== null) providers.add(member.provider_id)
    if (providers.size === 0) return
    await database.transact(function * (db) {
      const pools = yield * touched(db, { providers: [...providers] })
      yield * recordQuotaUsedUp(db, exhausted, pools, now().toISOString())
    })
  }

  return {
    /** Moves the pool to its next available provider by its strategy. */
    async rotate (poolId: number, reason: string, key?: string): Promise<Rotation> {
      let after: Aftermath = { served: undefined, exhausted: [] }
      const rotation = await database.transact((db) => {
        // A transaction run again (PostgreSQL, after a deadlock) starts from nothing.
        after = { served: undefined, exhausted: [] }
        return rotateWork(db, deps, poolId, reason, key, after)
      })
      await touchMetered(after)
      events.rotated(poolId, rotation.providerName)
      return rotation
    },

    /**
     * Counts a failure of `failedProviderId` (as an outcome report would) and moves the
     * pool to another provider. The failure and a history record are kept even when no
     * alternative exists; a provider that is not a member of the pool is a 404 and
     * nothing is written.
     */
    async failover (poolId: number, failedProviderId: number, reason: string): Promise<Failover> {
      let after: Aftermath = { served: undefined, exhausted: [] }
      let cooldowns: string[] = []
      const outcome = await database.transact((db) => {
        // A transaction run again (PostgreSQL, after a deadlock) starts from nothing.
        after = { served: undefined, exhausted: [] }
        cooldowns = []
        return failoverWork(db, deps, poolId, failedProviderId, reason, after, cooldowns)
      })
      await touchMetered(after)
      for (const cooldown of cooldowns) events.cooldownStarted(cooldown)
      if (outcome !== undefined) events.failedOver(poolId, outcome.failedProviderName)
      if (outcome === undefined || !('providerId' in outcome)) {
        throw new NotFoundError(`No alternative providers available in pool ${poolId}`)
      }
      events.rotated(poolId, outcome.providerName)
      return outcome
    },

    /** The newest `limit` history records; empty (not 404) for an unknown pool. */
    async history (poolId: number, limit: number): Promise<HistoryRecordValue[]> {
      return await database.read(function * (db) {
        return yield * toHistoryRecords(db, yield * listHistory(db, poolId, limit))
      })
    }
  }
}

export type RotationService = ReturnType<typeof createRotationService>
