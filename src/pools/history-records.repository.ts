/**
 * The history records two writers make alike, each built and inserted by one
 * function here so they read the same whoever writes them: a failover (through the
 * API, rotation/, and inside a proxied request, runtime/) and a quota window used up
 * (found by a rotation, or by a proxy's quota lease). Below both writers in the
 * folder order, so neither imports the other.
 */
import type { Db } from '../db/types.js'
import type { Work } from '../db/work.js'
import { failoverNotes, noAlternativeNotes, quotaRecord } from '../rules/history-kind.js'
import { insertHistory, recordQuotaExhaustions } from './history.repository.js'

/** A failover: the provider that failed, the one chosen instead (null: there was no alternative), why and when. */
export interface FailoverRecord {
  readonly poolId: number
  readonly failedProviderId: number
  /** The provider chosen instead, and whether every eligible member was cooling down. */
  readonly chosen: { readonly providerId: number, readonly degraded: boolean } | null
  readonly reason: string
  readonly at: string
}

/** Records a failover in its pool's history (kind `failover`, or `failover_failed` when nothing was chosen). */
export function * recordFailover (db: Db, failover: FailoverRecord): Work<void> {
  const { poolId, failedProviderId, chosen, reason, at } = failover
  yield * insertHistory(db, {
    pool_id: poolId,
    from_provider_id: failedProviderId,
    to_provider_id: chosen?.providerId ?? null,
    reason,
    success: chosen === null ? 0 : 1,
    notes: chosen === null ? noAlternativeNotes(failedProviderId) : failoverNotes(failedProviderId, chosen.degraded),
    timestamp: at,
    until: null
  })
}

/** A provider's quota window found used up: when it started, its limit and period (`rate_limit_per`), when it resets. */
export interface QuotaUsedUp {
  readonly providerId: number
  readonly windowStart: string
  readonly limit: number
  readonly per: string | null
  readonly resetsAt: string
  /** What the quota counts (`requests` when absent). */
  readonly unit?: string
}

/**
 * Records each quota window used up (kind `quota`) in every pool of `lockedPools` its
 * provider serves, once per window however many transactions and processes find it
 * (recordQuotaExhaustions: the caller has locked those pools first, declaring them
 * touched: db/unit-of-work.ts `touched(db, { providers })`). Answers the pools written to.
 */
export function * recordQuotaUsedUp (db: Db, found: readonly QuotaUsedUp[], lockedPools: readonly number[], at: string): Work<number[]> {
  return yield * recordQuotaExhaustions(db, found.map((f) => ({
    providerId: f.providerId,
    windowStart: f.windowStart,
    record: quotaRecord(f.providerId, f.limit, f.per ?? '?', f.resetsAt, f.unit)
  })), lockedPools, at)
}
