/**
 * Rotate and fail over (operations 9 and 10), and read the history (11).
 * Each rotation is one transaction that locks the pool's row first, so concurrent
 * rotations, reports and failovers, in one process or several sharing a database,
 * are serialised per pool and the cursor, counters, health and history agree.
 * Only enabled members that are not cooling down and have quota left are chosen
 * (see eligibility.ts); quotas are counted with one conditional UPDATE. What each
 * one changed is declared in its unit of work (db/unit-of-work.ts): the pool (and a
 * metered provider's pools) bumped in the transaction, the change feed told after.
 *
 * Members read are kept per pool in this process (KnownMembers) at the pool's
 * change_seq, read in the lock at every rotation: an unchanged change_seq means
 * nothing else wrote the pool since, and the members are not read again, only edited
 * as this rotation's own writes changed them once it has committed. The cursor is
 * read and committed per call, so processes sharing a database stay exact.
 */
import type { Db } from '../db/types.js'
import { touched, unitOfWork } from '../db/unit-of-work.js'
import type { Work, WorkRunner } from '../db/work.js'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { NotFoundError } from '../errors.js'
import { NO_EVENTS, type RotationEvents } from '../metrics/metrics.js'
import { listMembers, markMemberUsed, updateMemberHealth, type HealthUpdate, type MemberWithName } from '../pools/member.repository.js'
import { findChangeSeq, findPoolForRotation, recordPoolRotation, type RotationPoolRow } from '../pools/pool.repository.js'
import { consumeQuota } from '../providers/provider.repository.js'
import { callCost } from '../rules/method-costs.js'
import { applyOutcome, healthAt, healthChangeRecord } from '../rules/health.js'
import { insertHistory, listHistory } from '../pools/history.repository.js'
import { recordFailover, recordQuotaUsedUp, type QuotaUsedUp } from '../pools/history-records.repository.js'
import { toHistoryRecords } from '../pools/history.mapper.js'
import type { HistoryRecordValue } from '../pools/pool.schemas.js'
import type { ChoiceIndex } from '../rules/choice-index.js'
import { indexMembers, planChoice } from '../rules/plan-rotation.js'
import { parseRotationState } from '../rules/strategies.js'

/** A pool's members as this process last read them, at the pool's change_seq `seq`, with their choice index. */
export interface KnownMembers {
  seq: number
  readonly members: MemberWithName[]
  readonly index: ChoiceIndex<MemberWithName>
}

/** Per database handle (the rotation and explain services share one), pool id → its members as known here. */
const knownByDatabase = new WeakMap<object, Map<number, KnownMembers>>()

/** The members known for the pools of `database` (one map per handle, so two apps in one process never mix). */
export function knownMembersOf (database: object): Map<number, KnownMembers> {
  let known = knownByDatabase.get(database)
  if (known === undefined) knownByDatabase.set(database, known = new Map())
  return known
}

/**
 * The pool's members at its change_seq now: those known here when it has not moved,
 * else read (and kept). Called in the pool's lock by rotations, so nothing writes the
 * pool between the change_seq read and the choice.
 */
export function * membersOf (db: Db, known: Map<number, KnownMembers>, poolId: number, at: Date): Work<KnownMembers> {
  const seq = yield * findChangeSeq(db, poolId)
  const kept = known.get(poolId)
  if (kept !== undefined && seq !== undefined && kept.seq === seq) return kept
  const members = yield * listMembers(db, poolId)
  const fresh: KnownMembers = { seq: seq ?? -1, members, index: indexMembers(members, at) }
  if (seq !== undefined) known.set(poolId, fresh)
  return fresh
}

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
  db: Db, random: () => number, pool: RotationPoolRow, known: KnownMembers, at: Date, exhausted: QuotaUsedUp[], edits: Edit[],
  exclude: ReadonlySet<number> = new Set(), refusals: ReadonlyMap<number, string> = new Map(), key?: string
): Work<{ chosen: { member: MemberWithName, degraded: boolean } | undefined, retryAfterMs: number | null }> {
  const left = new Set(exclude)
  const state = parseRotationState(pool.rotation_state)
  while (true) {
    const plan = planChoice(pool, known.index, refusals, at, left, state, random, key)
    const chosen = plan.chosen
    if (chosen === undefined) return { chosen: undefined, retryAfterMs: plan.retryAfterMs }
    const quota = chosen.quota
    if (quota !== null) {
      // A rotation hands out a provider for a request of any kind: in credits, the default cost (rules/method-costs.ts).
      const cost = quota.unit === 'credits' ? callCost(chosen.member, undefined) : 1
      const used = yield * consumeQuota(db, chosen.member.provider_id, quota.window_start, quota.limit, cost)
      // Too few credits left for a rotation is not the window used up (the last ones may serve a cheaper proxied call).
      if ((used === undefined && cost === 1) || (used !== undefined && used >= quota.limit)) {
        const { provider_id: providerId, rate_limit_per: per } = chosen.member
        exhausted.push({ providerId, windowStart: quota.window_start, limit: quota.limit, per, resetsAt: quota.resets_at, unit: quota.unit })
      }
      // Too short for a rotation, it is left out of this one alone: what the window has left is not known here.
      if (used !== undefined || cost === 1) edits.push(quotaEdit(chosen.member.provider_id, quota.window_start, quota.limit, used))
      if (used === undefined) {
        left.add(chosen.member.provider_id)
        continue
      }
    }
    const iso = at.toISOString()
    yield * markMemberUsed(db, chosen.member.id, iso)
    edits.push(usedEdit(chosen.member.id, iso))
    yield * recordPoolRotation(db, pool.id, { providerId: chosen.member.provider_id, at: iso, state: JSON.stringify(plan.state) })
    return { chosen: { member: chosen.member, degraded: plan.degraded }, retryAfterMs: null }
  }
}

/** What rotations and failovers are given: the clock, the random source and the members known here. */
interface ChoiceDeps { now: () => Date, random: () => number, known: Map<number, KnownMembers> }

/** A change this unit of work wrote to members, made to the members known here once it has committed. */
type Edit = (known: KnownMembers) => void

const usedEdit = (memberId: number, at: string): Edit => ({ index }) => {
  const member = index.member(memberId)
  if (member === undefined) return
  member.use_count++
  member.last_used = at
}

/** The provider's quota as consumeQuota left it: `used` in the window, or (undefined) found used up by another process. */
const quotaEdit = (providerId: number, windowStart: string, limit: number, used: number | undefined): Edit => ({ members, index }) => {
  for (const m of members) {
    if (m.provider_id !== providerId) continue
    const counted = m.quota_window_start === windowStart ? m.quota_used : 0
    m.quota_used = used ?? Math.max(counted, limit)
    m.quota_window_start = windowStart
    index.suspect(m.id)
  }
}

const healthEdit = (memberId: number, update: HealthUpdate): Edit => ({ index }) => {
  const member = index.member(memberId)
  if (member === undefined) return
  const { successes, failures, ...health } = update
  Object.assign(member, health)
  member.success_count += successes
  member.failure_count += failures
  index.suspect(memberId)
}

/**
 * What a rotation or failover leaves for after its commit: the member it served, the
 * quota windows it found used up, and its writes to the members known here (`from`:
 * the known members it chose from; `seq`: the pool's change_seq once written).
 */
interface Aftermath { served: MemberWithName | undefined, exhausted: QuotaUsedUp[], edits: Edit[], from?: KnownMembers, poolId?: number, seq?: number }

const freshAftermath = (): Aftermath => ({ served: undefined, exhausted: [], edits: [] })

/**
 * Makes a unit's writes to the known members, when they are still those it chose
 * from, at its end in the pool's lock: the next rotation (on SQLite possibly in the
 * same group commit) finds them at the change_seq it reads. A unit that does not
 * commit drops the pool's known members (runKnowing).
 */
function applyEdits (known: Map<number, KnownMembers>, after: Aftermath): void {
  const { from, poolId, seq } = after
  if (from === undefined || poolId === undefined || seq === undefined) return
  if (known.get(poolId) !== from) return
  for (const edit of after.edits) edit(from)
  from.seq = seq
}

/** One rotation (operation 9), in the pool's lock; `after` is filled for touchMetered. */
function * rotateWork (
  db: Db, deps: ChoiceDeps, poolId: number, reason: string, key: string | undefined, after: Aftermath
): Work<Rotation> {
  const pool = yield * findPoolForRotation(db, poolId)
  if (pool === undefined || pool.enabled === 0) throw noneAvailable(poolId)
  // Read the clock inside the lock, so history timestamps follow commit order.
  const at = deps.now()
  const known = yield * membersOf(db, deps.known, poolId, at)
  const { chosen } = yield * rotateWithin(db, deps.random, pool, known, at, after.exhausted, after.edits, new Set(), new Map(), key)
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
  Object.assign(after, { from: known, poolId, seq: yield * findChangeSeq(db, poolId) })
  applyEdits(deps.known, after)
  return { providerId: member.provider_id, providerName: member.provider_name, timestamp: at.toISOString(), degraded }
}

/**
 * One failover (operation 10), in the pool's lock: the failed member's failure counted
 * (its cooldown, if one starts, added to `cooldowns`), then a rotation without it.
 * Undefined for an unknown pool; the failed provider's name alone when no alternative exists.
 */
function * failoverWork (
  db: Db, deps: ChoiceDeps, poolId: number, failedProviderId: number, reason: string,
  after: Aftermath, cooldowns: string[]
): Work<Failover | { failedProviderName: string | null } | undefined> {
  const pool = yield * findPoolForRotation(db, poolId)
  if (pool === undefined) return undefined
  const at = deps.now()
  const known = yield * membersOf(db, deps.known, poolId, at)
  const failed = known.members.find((m) => m.provider_id === failedProviderId)
  if (failed === undefined) throw new NotFoundError(`Member not found in pool ${poolId}`)
  const effect = applyOutcome(failed, { success: false }, pool, at)
  const { state, cooldownStarted } = effect
  const health: HealthUpdate = { ...state, last_error: `failover: ${reason}`, successes: 0, failures: 1 }
  yield * updateMemberHealth(db, failed.id, health)
  // The failed member's health as written, seen by the choice below (it is excluded from it anyway).
  after.edits.push(healthEdit(failed.id, health))
  yield * touched(db, { pools: [poolId] })
  if (cooldownStarted !== null) cooldowns.push(cooldownStarted)
  const record = healthChangeRecord(failedProviderId, healthAt(failed, at), effect, `failover: ${reason}`)
  if (record !== null) yield * insertHistory(db, { pool_id: poolId, ...record, timestamp: at.toISOString() })
  const chosen = pool.enabled === 1 ? (yield * rotateWithin(db, deps.random, pool, known, at, after.exhausted, after.edits, new Set([failedProviderId]))).chosen : undefined
  after.served = chosen?.member
  yield * recordFailover(db, {
    poolId,
    failedProviderId,
    chosen: chosen === undefined ? null : { providerId: chosen.member.provider_id, degraded: chosen.degraded },
    reason,
    at: at.toISOString()
  })
  Object.assign(after, { from: known, poolId, seq: yield * findChangeSeq(db, poolId) })
  applyEdits(deps.known, after)
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
  const known = knownMembersOf(handle)
  const deps = { now, random, known }

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

  /**
   * Runs a rotation's unit of work; the pool's known members are dropped when an
   * attempt is run again (its edits were rolled back) or the unit fails.
   */
  async function runKnowing<T> (poolId: number, work: (db: Db) => Work<T>): Promise<T> {
    let attempts = 0
    try {
      return await database.transact((db) => {
        if (attempts++ > 0) known.delete(poolId)
        return work(db)
      })
    } catch (error) {
      known.delete(poolId)
      throw error
    }
  }

  return {
    /** Moves the pool to its next available provider by its strategy. */
    async rotate (poolId: number, reason: string, key?: string): Promise<Rotation> {
      let after = freshAftermath()
      const rotation = await runKnowing(poolId, (db) => {
        // A transaction run again (PostgreSQL, after a deadlock) starts from nothing.
        after = freshAftermath()
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
      let after = freshAftermath()
      let cooldowns: string[] = []
      const outcome = await runKnowing(poolId, (db) => {
        // A transaction run again (PostgreSQL, after a deadlock) starts from nothing.
        after = freshAftermath()
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
