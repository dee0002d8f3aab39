/**
 * The queries of the active health checks: claiming the checks that are due (a
 * lease per provider: `check_due_at` moved one interval on with a conditional
 * UPDATE, so of the processes sharing a database exactly one wins each provider
 * each interval), and writing a result down: the provider's streaks and last
 * check, and each member's health. Plain generator functions taking the query
 * builder first (db/work.ts), run inside the checker's transactions.
 */
import { lockRows } from '../db/create-db.js'
import type { Db } from '../db/types.js'
import { all, execute, first, type Work } from '../db/work.js'
import type { MemberCheckState } from '../rules/health-check.js'

/** A check this process has claimed: what it needs to run it and to write the result. */
export interface ClaimedCheck {
  readonly providerId: number
  readonly providerName: string
  readonly baseUrl: string
  readonly authHeaders: string | null
  /** The check's JSON as claimed: a result is dropped when the check changed meanwhile. */
  readonly healthCheck: string
}

/**
 * Claims up to `limit` checks due at `at` (oldest first): each provider's
 * `check_due_at` moves to its next slot — one interval after the slot it was due in,
 * or one interval from now when that is already past — only when nobody moved it
 * since it was read. On PostgreSQL the due rows are locked as they are read, skipping
 * those another process is claiming, so several processes share a backlog instead
 * of waiting for each other's rows.
 */
export function * claimDueChecks (db: Db, at: Date, limit: number): Work<ClaimedCheck[]> {
  const iso = at.toISOString()
  const due = yield * all(lockRows(db, db.selectFrom('providers')
    .select(['id', 'name', 'base_url', 'auth_headers', 'health_check', 'check_due_at'])
    .where('check_due_at', '<=', iso)
    .where('health_check', 'is not', null)
    .where('base_url', 'is not', null)
    .orderBy('check_due_at').orderBy('id')
    .limit(limit), { skipLocked: true }))
  const claimed: ClaimedCheck[] = []
  for (const row of due) {
    const check = row.health_check as string
    const intervalMs = (JSON.parse(check) as { interval_s: number }).interval_s * 1000
    const slot = Date.parse(row.check_due_at as string) + intervalMs
    const next = new Date(slot > at.getTime() ? slot : at.getTime() + intervalMs).toISOString()
    const won = yield * first(db.updateTable('providers').set({ check_due_at: next })
      .where('id', '=', row.id).where('check_due_at', '=', row.check_due_at).where('health_check', '=', check)
      .returning('id'))
    if (won !== undefined) {
      claimed.push({ providerId: row.id, providerName: row.name, baseUrl: row.base_url as string, authHeaders: row.auth_headers, healthCheck: check })
    }
  }
  return claimed
}

/** The provider's streaks (its row locked), when its check is still `healthCheck` (else undefined: the result is stale). */
export function * findCheckStreaks (db: Db, providerId: number, healthCheck: string): Work<{ passes: number, failures: number } | undefined> {
  const row = yield * first(lockRows(db, db.selectFrom('providers').select(['check_passes', 'check_failures'])
    .where('id', '=', providerId).where('health_check', '=', healthCheck)))
  return row === undefined ? undefined : { passes: row.check_passes, failures: row.check_failures }
}

/**
 * Stores the provider's new streaks and its last check (JSON), when its check is still
 * `healthCheck`; false when it changed or went since (the result is dropped).
 */
export function * saveCheckStreaks (
  db: Db, providerId: number, healthCheck: string, streaks: { passes: number, failures: number }, lastCheck: string
): Work<boolean> {
  return (yield * first(db.updateTable('providers')
    .set({ check_passes: streaks.passes, check_failures: streaks.failures, last_check: lastCheck })
    .where('id', '=', providerId).where('health_check', '=', healthCheck)
    .returning('id'))) !== undefined
}

/** A member of a checked provider, with its pool's cooldown policy. */
export interface CheckedMember extends MemberCheckState {
  readonly id: number
  readonly pool_id: number
  readonly failure_threshold: number
  readonly cooldown_seconds: number
  readonly max_cooldown_seconds: number
}

/** The provider's memberships in `poolIds` (the pools the writer has locked), by member id. */
export function * listCheckedMembers (db: Db, providerId: number, poolIds: readonly number[]): Work<CheckedMember[]> {
  if (poolIds.length === 0) return []
  return yield * all(db.selectFrom('pool_members')
    .innerJoin('pools', 'pools.id', 'pool_members.pool_id')
    .select([
      'pool_members.id', 'pool_members.pool_id', 'pool_members.consecutive_failures', 'pool_members.cooldown_trips',
      'pool_members.cooldown_until', 'pool_members.cooldown_reason', 'pool_members.latency_ms', 'pool_members.check_passes', 'pool_members.check_passes_for',
      'pools.failure_threshold', 'pools.cooldown_seconds', 'pools.max_cooldown_seconds'
    ])
    .where('pool_members.provider_id', '=', providerId)
    .where('pool_members.pool_id', 'in', poolIds)
    .orderBy('pool_members.id'))
}

/** Writes a member's health as a check left it. */
export function * saveMemberCheck (db: Db, memberId: number, state: MemberCheckState): Work<void> {
  yield * execute(db.updateTable('pool_members').set({
    consecutive_failures: state.consecutive_failures,
    cooldown_trips: state.cooldown_trips,
    cooldown_until: state.cooldown_until,
    cooldown_reason: state.cooldown_reason,
    latency_ms: state.latency_ms,
    check_passes: state.check_passes,
    check_passes_for: state.check_passes_for
  }).where('id', '=', memberId))
}
