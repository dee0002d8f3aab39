/**
 * Assembles pool status records (operations 1 and 3) from pool, member and
 * history rows: two prepared, indexed queries per pool (the history query reads
 * only the newest rows, however long the history; the members query only the
 * columns the record shows). Per-pool queries keep one
 * compiled statement each; on SQLite they run inside one read transaction.
 *
 * Besides the record, a build says what the read model (read-model.ts) needs to
 * keep it: the providers it shows and the first instant it would read differently
 * with no write (a cooldown ending, a quota window starting; for an `evm` pool, whose
 * members show their nodes' heads, HEADS_VALID_MS after it was built: member-heads.ts).
 */
import type { Db } from '../db/types.js'
import type { Work } from '../db/work.js'
import { RECENT_ROTATIONS_SHOWN } from '../db/unit-of-work.js'
import { listHistory } from './history.repository.js'
import { toHistoryRecords } from './history.mapper.js'
import type { HistoryRecordValue } from './pool.schemas.js'
import { assess } from '../rules/eligibility.js'
import { healthAt, successRate } from '../rules/health.js'
import { quotaAt, rateLimitUsage } from '../rules/quota.js'
import { shownReplay } from '../rules/stream-settings.js'
import { listMemberStatuses, type MemberStatusRow } from './member.repository.js'
import { HEADS_VALID_MS, NO_HEADS, headFieldsOf, type MemberHeads } from './member-heads.js'
import { NO_STREAMS, STREAMS_VALID_MS, streamsField, type PoolStreamCounts, type StreamCountsOf } from './pool-streams.js'
import type { PoolWithCurrent } from './pool.repository.js'
import type { PoolStatusValue, PoolSummaryValue, Protocol } from './pool.schemas.js'

/** How many history records a status record carries. */
export const RECENT_ROTATIONS = RECENT_ROTATIONS_SHOWN

/** A status record and what keeping it in memory depends on. */
export interface BuiltStatus {
  readonly record: PoolStatusValue
  /** The pool's change_seq as read before anything else of it (so the record is at least that new). */
  readonly changeSeq: number
  /** Every provider the record shows: members, the current provider, providers named in its history. */
  readonly providerIds: ReadonlySet<number>
  /** The first instant (ms since the epoch) at which the record reads differently without a write; Infinity for none. */
  readonly validUntil: number
}

function toStatus (pool: PoolWithCurrent, members: readonly MemberStatusRow[], history: HistoryRecordValue[], now: Date, heads: MemberHeads, streams: PoolStreamCounts | undefined): PoolStatusValue {
  // Only an evm pool's members carry heads: other pools keep the members' shape the original service's clients read.
  const headsOf = pool.protocol === 'evm' ? headFieldsOf(heads(pool.id), pool.max_block_lag) : undefined
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
      ? { id: pool.current_provider_id, provider_id: pool.current_provider_id, name: pool.current_provider_name, status: 'active' }
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
      forbidden_ttl_seconds: pool.forbidden_ttl_seconds,
      cache_ttl_seconds: pool.cache_ttl_seconds,
      cache_stale_seconds: pool.cache_stale_seconds,
      max_wait_ms: pool.max_wait_ms,
      deadline_ms: pool.deadline_ms,
      retry_budget_percent: pool.retry_budget_percent,
      retry_backoff_ms: pool.retry_backoff_ms,
      hedge_after_ms: pool.hedge_after_ms === 0 ? null : pool.hedge_after_ms,
      protocol: pool.protocol as Protocol,
      finality_depth: pool.finality_depth,
      cache_unfinalized_ms: pool.cache_unfinalized_ms,
      head_check_interval_s: pool.head_check_interval_s,
      max_block_lag: pool.max_block_lag,
      broadcast_writes: pool.broadcast_writes === 1,
      ws_ping_interval_ms: pool.ws_ping_interval_ms,
      ws_replay: shownReplay(pool.ws_replay),
      ws_max_streams: pool.ws_max_streams,
      ws_max_streams_per_client: pool.ws_max_streams_per_client,
      ws_max_message_bytes: pool.ws_max_message_bytes,
      ws_send_buffer_bytes: pool.ws_send_buffer_bytes,
      ws_idle_timeout_ms: pool.ws_idle_timeout_ms
    },
    cache: cacheOf(pool),
    retries: { made: pool.proxy_retries, hedges: pool.proxy_hedges, budget_exhausted: pool.retry_budget_exhausted },
    streams: streamsField(streams),
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
      ...quotaFields(m, now),
      last_check: m.last_check === null ? null : JSON.parse(m.last_check) as PoolStatusValue['members'][number]['last_check'],
      ...eligibilityFields(m, now),
      ...headsOf?.(m.provider_id)
    })),
    recent_rotations: history
  }
}

type MemberStatusValue = PoolStatusValue['members'][number]

/** Whether rotations may choose the member at `now`, as `/next` judges it (rules/eligibility.ts). */
function eligibilityFields (member: MemberStatusRow, now: Date): Pick<MemberStatusValue, 'eligible' | 'ineligible_reason' | 'eligible_again_at'> {
  const { eligible, reason, until } = assess(member, now)
  return { eligible, ineligible_reason: reason, eligible_again_at: until }
}

/** The pool's response cache: its policy and the counters the proxy wrote behind. */
function cacheOf (pool: PoolWithCurrent): PoolStatusValue['cache'] {
  const served = pool.cache_hits + pool.cache_stale
  const asked = served + pool.cache_misses
  return {
    ttl_seconds: pool.cache_ttl_seconds,
    stale_seconds: pool.cache_stale_seconds,
    hits: pool.cache_hits,
    misses: pool.cache_misses,
    stale: pool.cache_stale,
    entries: pool.cache_entries,
    hit_ratio: asked === 0 ? 0 : Math.round(served / asked * 10_000) / 10_000
  }
}

/** A member's quota window twice: sourcepool's `quota` (with its reset time) and the original's `rate_limit`. */
function quotaFields (member: MemberStatusRow, now: Date): Pick<MemberStatusValue, 'quota' | 'rate_limit'> {
  const quota = quotaAt(member, now)
  if (quota === null) return { quota: null, rate_limit: null }
  return { quota: { used: quota.used, limit: quota.limit, unit: quota.unit, resets_at: quota.resets_at }, rate_limit: rateLimitUsage(quota) }
}

/**
 * The first instant after `now` at which the members read differently with no
 * write: a cooldown ending (health turns probing) or a quota window ending (used
 * goes back to 0, resets_at moves on). These are also the only ends of an
 * ineligibility (`eligible_again_at`: a cooldown, a rate-limit pause, which is a
 * cooldown, or a used-up quota window); being switched off ends only by a write.
 * Infinity when there is none.
 */
export function nextChangeAt (members: readonly MemberStatusRow[], now: Date): number {
  let next = Infinity
  for (const member of members) {
    if (member.cooldown_until !== null) {
      const ends = Date.parse(member.cooldown_until)
      if (ends > now.getTime()) next = Math.min(next, ends)
    }
    const quota = quotaAt(member, now)
    if (quota !== null) next = Math.min(next, Date.parse(quota.resets_at))
  }
  return next
}

/** The status record of `pool`, with health and quotas as of `now` (and, for an evm pool, its members' heads as `heads` knows them). */
export function * buildPoolStatus (db: Db, pool: PoolWithCurrent, now: Date, heads: MemberHeads = NO_HEADS, streams: StreamCountsOf = NO_STREAMS): Work<BuiltStatus> {
  const members = yield * listMemberStatuses(db, pool.id)
  // Members and the current provider already carry most names the history mentions.
  const known = new Map(members.map((m) => [m.provider_id, m.provider_name]))
  if (pool.current_provider_id !== null) known.set(pool.current_provider_id, pool.current_provider_name)
  const rows = yield * listHistory(db, pool.id, RECENT_ROTATIONS)
  const history = yield * toHistoryRecords(db, rows, known)
  const providerIds = new Set(known.keys())
  for (const row of rows) {
    if (row.from_provider_id !== null) providerIds.add(row.from_provider_id)
    if (row.to_provider_id !== null) providerIds.add(row.to_provider_id)
  }
  const next = nextChangeAt(members, now)
  // Heads move without a write: an evm pool's record is rebuilt after a short while (member-heads.ts).
  const headsValid = pool.protocol === 'evm' ? Math.min(next, now.getTime() + HEADS_VALID_MS) : next
  // So do streams: a pool that has had streams here is rebuilt after a short while too (pool-streams.ts).
  const counts = streams(pool.id)
  const validUntil = counts === undefined ? headsValid : Math.min(headsValid, now.getTime() + STREAMS_VALID_MS)
  return { record: toStatus(pool, members, history, now, heads, counts), changeSeq: pool.change_seq, providerIds, validUntil }
}

/** Status records for `pools`, in their order, with health and quotas as of `now`. */
export function * buildPoolStatuses (db: Db, pools: readonly PoolWithCurrent[], now: Date, heads: MemberHeads = NO_HEADS, streams: StreamCountsOf = NO_STREAMS): Work<PoolStatusValue[]> {
  const statuses: PoolStatusValue[] = []
  for (const pool of pools) statuses.push((yield * buildPoolStatus(db, pool, now, heads, streams)).record)
  return statuses
}

/**
 * The summary of a status record (`GET /api/pools?fields=summary`): the pool's own
 * fields and its members counted by health; a switched-off member counts as
 * `disabled` whatever its health.
 */
export function toPoolSummary (record: PoolStatusValue): PoolSummaryValue {
  const counts = { healthy: 0, probing: 0, cooling_down: 0, disabled: 0 }
  for (const member of record.members) counts[member.enabled ? member.health : 'disabled']++
  return {
    pool_id: record.pool_id,
    name: record.name,
    category: record.category,
    description: record.description,
    rotation_strategy: record.rotation_strategy,
    enabled: record.enabled,
    created_at: record.created_at,
    updated_at: record.updated_at,
    current_provider: record.current_provider,
    total_rotations: record.total_rotations,
    last_rotation: record.last_rotation,
    member_counts: counts
  }
}
