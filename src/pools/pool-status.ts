/**
 * Assembles pool status records (operations 1 and 3) from pool, member and
 * history rows: two prepared, indexed queries per pool (the history query reads
 * only the newest rows, however long the history). Per-pool queries keep one
 * compiled statement each; on SQLite they run inside one read transaction.
 */
import type { Db } from '../db/types.js'
import type { Work } from '../db/work.js'
import { listHistory } from './history.repository.js'
import { toHistoryRecords } from './history.mapper.js'
import type { HistoryRecordValue } from './pool.schemas.js'
import { healthAt, successRate } from '../rules/health.js'
import { quotaAt } from '../rules/quota.js'
import { listMembers, type MemberWithName } from './member.repository.js'
import type { PoolWithCurrent } from './pool.repository.js'
import type { PoolStatusValue } from './pool.schemas.js'

/** How many history records a status record carries. */
export const RECENT_ROTATIONS = 10

function toStatus (pool: PoolWithCurrent, members: readonly MemberWithName[], history: HistoryRecordValue[], now: Date): PoolStatusValue {
  return {
    pool_id: pool.id,
    name: pool.name,
    pool_name: pool.name,
    category: pool.category,
    description: pool.description,
    rotation_strategy: pool.rotation_strategy,
    enabled: Boolean(pool.enabled),
    created_at: pool.created_at,
    updated_at: pool.updated_at,
    current_provider: pool.current_provider_id !== null && pool.current_provider_name !== null
      ? { provider_id: pool.current_provider_id, name: pool.current_provider_name }
      : null,
    total_rotations: pool.total_rotations,
    last_rotation: pool.last_rotation,
    policy: {
      failure_threshold: pool.failure_threshold,
      cooldown_seconds: pool.cooldown_seconds,
      max_cooldown_seconds: pool.max_cooldown_seconds,
      all_down: pool.all_down,
      max_attempts: pool.max_attempts,
      retry_non_idempotent: pool.retry_non_idempotent === 1,
      forward_client_auth: pool.forward_client_auth === 1,
      forbidden_ttl_seconds: pool.forbidden_ttl_seconds
    },
    members: members.map((m) => ({
      member_id: m.id,
      provider_id: m.provider_id,
      provider_name: m.provider_name,
      priority: m.priority,
      weight: m.weight,
      enabled: Boolean(m.enabled),
      use_count: m.use_count,
      success_count: m.success_count,
      failure_count: m.failure_count,
      last_used: m.last_used,
      health: healthAt(m, now),
      cooldown_until: m.cooldown_until,
      cooldown_reason: m.cooldown_reason,
      consecutive_failures: m.consecutive_failures,
      latency_ms: m.latency_ms,
      success_rate: successRate(m),
      quota: quotaOf(m, now)
    })),
    recent_rotations: history
  }
}

function quotaOf (member: MemberWithName, now: Date): PoolStatusValue['members'][number]['quota'] {
  const quota = quotaAt(member, now)
  return quota === null ? null : { used: quota.used, limit: quota.limit, resets_at: quota.resets_at }
}

/** Status records for `pools`, in their order, with health and quotas as of `now`. */
export function * buildPoolStatuses (db: Db, pools: readonly PoolWithCurrent[], now: Date): Work<PoolStatusValue[]> {
  const statuses: PoolStatusValue[] = []
  for (const pool of pools) {
    const members = yield * listMembers(db, pool.id)
    // Members and the current provider already carry most names the history mentions.
    const known = new Map(members.map((m) => [m.provider_id, m.provider_name]))
    if (pool.current_provider_id !== null) known.set(pool.current_provider_id, pool.current_provider_name)
    const history = yield * toHistoryRecords(db, yield * listHistory(db, pool.id, RECENT_ROTATIONS), known)
    statuses.push(toStatus(pool, members, history, now))
  }
  return statuses
}
