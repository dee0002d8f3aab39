/**
 * The queries of the data plane: loading a pool into a process's runtime, the
 * write-behind flush (counters added, health merged, pool counters, change_seq),
 * and quota leases. Plain generator functions taking the query builder first
 * (db/work.ts), run inside the runtime's transactions.
 */
import type { Selectable } from 'kysely'
import type { Db, PoolTable } from '../db/types.js'
import { all, execute, first, type Work } from '../db/work.js'
import type { PendingPool } from './batch.js'

/** What the runtime keeps of a pool. */
export type RuntimePoolRow = Pick<Selectable<PoolTable>, 'id' | 'name' | 'enabled' | 'rotation_strategy' | 'rotation_state' | 'current_provider_id' |
'failure_threshold' | 'cooldown_seconds' | 'max_cooldown_seconds' | 'all_down' | 'max_attempts' | 'retry_non_idempotent' | 'forward_client_auth' |
'forbidden_ttl_seconds' | 'cache_ttl_seconds' | 'cache_stale_seconds' | 'max_wait_ms' | 'deadline_ms' | 'retry_budget_percent' |
'retry_backoff_ms' | 'hedge_after_ms' | 'protocol' | 'finality_depth' | 'cache_unfinalized_ms' | 'head_check_interval_s' | 'max_block_lag' | 'broadcast_writes' |
'ws_ping_interval_ms' | 'ws_max_streams' | 'ws_max_streams_per_client' | 'ws_max_message_bytes' | 'ws_send_buffer_bytes' | 'ws_idle_timeout_ms' | 'change_seq'> & {
  /** What a stream replays to a new upstream after a failover, as stored: 'none', 'first_second' or a count in decimal (rules/stream-settings.ts shownReplay reads it). */
  readonly ws_replay: string
  /** The smallest `max_logs_range` among the pool's enabled members that set one (null: none does): an evm pool's eth_getLogs split (proxy/rpc-logs.ts). */
  readonly max_logs_range: number | null
  /** The largest `max_batch_size` among the pool's enabled members (null: none): how many of a client batch's calls may be on their way at once (proxy/rpc-batch.ts). */
  readonly max_batch_size: number | null
}

/** The pool's row as the runtime keeps it (no lock taken), or undefined. */
export function * findRuntimePool (db: Db, id: number): Work<RuntimePoolRow | undefined> {
  return yield * first(db.selectFrom('pools')
    .select(['id', 'name', 'enabled', 'rotation_strategy', 'rotation_state', 'current_provider_id', 'failure_threshold', 'cooldown_seconds',
      'max_cooldown_seconds', 'all_down', 'max_attempts', 'retry_non_idempotent', 'forward_client_auth', 'forbidden_ttl_seconds',
      'cache_ttl_seconds', 'cache_stale_seconds', 'max_wait_ms', 'deadline_ms', 'retry_budget_percent', 'retry_backoff_ms', 'hedge_after_ms', 'protocol',
      'finality_depth', 'cache_unfinalized_ms', 'head_check_interval_s', 'max_block_lag', 'broadcast_writes',
      'ws_ping_interval_ms', 'ws_replay', 'ws_max_streams', 'ws_max_streams_per_client', 'ws_max_message_bytes', 'ws_send_buffer_bytes', 'ws_idle_timeout_ms', 'change_seq'])
    // Members and providers changing touch the pool (its change_seq), so this is read again when it may have moved.
    .select((eb) => eb.selectFrom('pool_members').innerJoin('providers', 'providers.id', 'pool_members.provider_id')
      .select((inner) => inner.fn.min<number | null>('providers.max_logs_range').as('smallest'))
      .whereRef('pool_members.pool_id', '=', 'pools.id').where('pool_members.enabled', '=', 1)
      .as('max_logs_range'))
    .select((eb) => eb.selectFrom('pool_members').innerJoin('providers', 'providers.id', 'pool_members.provider_id')
      .select((inner) => inner.fn.max<number | null>('providers.max_batch_size').as('largest'))
      .whereRef('pool_members.pool_id', '=', 'pools.id').where('pool_members.enabled', '=', 1)
      .as('max_batch_size'))
    .where('id', '=', id))
}

/** The change counters of the pools `ids` that still exist, by pool id. */
export function * listChangeSeqsOfPools (db: Db, ids: readonly number[]): Work<Map<number, number>> {
  if (ids.length === 0) return new Map()
  const rows = yield * all(db.selectFrom('pools').select(['id', 'change_seq']).where('id', 'in', ids))
  return new Map(rows.map((r) => [r.id, r.change_seq]))
}

/** Refusals of `providerIds` in force at `at`. */
export function * listActiveRefusals (db: Db, providerIds: readonly number[], at: string): Work<Array<{ provider_id: number, resource: string, expires_at: string, status_code: number }>> {
  if (providerIds.length === 0) return []
  return yield * all(db.selectFrom('provider_refusals').select(['provider_id', 'resource', 'expires_at', 'status_code'])
    .where('provider_id', 'in', providerIds).where('expires_at', '>', at))
}

/** A member's health as this process last saw it; written only when it changed here. */
export interface HealthWrite {
  readonly consecutive_failures: number
  readonly cooldown_trips: number
  readonly cooldown_until: string | null
  readonly cooldown_reason: string | null
  readonly latency_ms: number | null
  readonly last_error: string | null
  /** A cooldown this process ended before its time (a probe answered: probe-gates.ts), as it was stored: cleared while it is still the one stored. */
  readonly ended_cooldown?: string
}

/** What one member's proxied traffic adds up to since the last flush. */
export interface MemberDelta {
  readonly memberId: number
  readonly uses: number
  readonly successes: number
  readonly failures: number
  readonly lastUsed: string | null
  readonly health: HealthWrite | null
}

/**
 * Adds a member's counters and merges its health: counters add up across
 * processes; a cooldown this process started stands unless the stored one ends
 * later; a cooldown this process saw end is cleared only when the stored one has
 * ended too (another process may have started a newer one), or is the very one a
 * probe here ended early (`ended_cooldown`). False when the member is gone (removed
 * meanwhile): nothing was written.
 */
export function * writeMemberDelta (db: Db, delta: MemberDelta, at: string): Work<boolean> {
  const { health } = delta
  const ended = health?.ended_cooldown
  return (yield * first(db.updateTable('pool_members').set((eb) => ({
    use_count: eb('use_count', '+', delta.uses),
    success_count: eb('success_count', '+', delta.successes),
    failure_count: eb('failure_count', '+', delta.failures),
    ...(delta.lastUsed === null
      ? {}
      : { last_used: eb.case().when('last_used', 'is', null).then(delta.lastUsed).when('last_used', '<', delta.lastUsed).then(delta.lastUsed).else(eb.ref('last_used')).end() }),
    ...(health === null
      ? {}
      : {
          consecutive_failures: health.consecutive_failures,
          cooldown_trips: health.cooldown_trips,
          latency_ms: health.latency_ms,
          last_error: health.last_error,
          ...(health.cooldown_until !== null
            ? {
                cooldown_until: eb.case().when('cooldown_until', 'is', null).then(health.cooldown_until)
                  .when('cooldown_until', '<', health.cooldown_until).then(health.cooldown_until)
                  .when('cooldown_until', '=', ended ?? null).then(health.cooldown_until).else(eb.ref('cooldown_until')).end(),
                cooldown_reason: eb.case().when('cooldown_until', 'is', null).then(health.cooldown_reason)
                  .when('cooldown_until', '<', health.cooldown_until).then(health.cooldown_reason)
                  .when('cooldown_until', '=', ended ?? null).then(health.cooldown_reason).else(eb.ref('cooldown_reason')).end()
              }
            : {
                cooldown_until: eb.case().when('cooldown_until', '<=', at).then(null).when('cooldown_until', '=', ended ?? null).then(null).else(eb.ref('cooldown_until')).end(),
                cooldown_reason: eb.case().when('cooldown_until', '<=', at).then(null).when('cooldown_until', '=', ended ?? null).then(null).else(eb.ref('cooldown_reason')).end()
              })
        })
  })).where('id', '=', delta.memberId).returning('id'))) !== undefined
}

/**
 * Adds proxied rotations and what the response cache did to the pool and marks it
 * changed; answers the new change_seq (undefined: pool gone).
 */
export function * writePoolDelta (
  db: Db, poolId: number,
  delta: Pick<PendingPool, 'rotations' | 'currentProviderId' | 'lastRotation' | 'cacheHits' | 'cacheMisses' | 'cacheStale' | 'cacheEntries' | 'retries' | 'hedges' | 'budgetExhausted'>
): Work<number | undefined> {
  const row = yield * first(db.updateTable('pools').set((eb) => ({
    total_rotations: eb('total_rotations', '+', delta.rotations),
    ...(delta.cacheHits === 0 ? {} : { cache_hits: eb('cache_hits', '+', delta.cacheHits) }),
    ...(delta.cacheMisses === 0 ? {} : { cache_misses: eb('cache_misses', '+', delta.cacheMisses) }),
    ...(delta.cacheStale === 0 ? {} : { cache_stale: eb('cache_stale', '+', delta.cacheStale) }),
    ...(delta.cacheEntries === null ? {} : { cache_entries: delta.cacheEntries }),
    ...(delta.retries === 0 ? {} : { proxy_retries: eb('proxy_retries', '+', delta.retries) }),
    ...(delta.hedges === 0 ? {} : { proxy_hedges: eb('proxy_hedges', '+', delta.hedges) }),
    ...(delta.budgetExhausted === 0 ? {} : { retry_budget_exhausted: eb('retry_budget_exhausted', '+', delta.budgetExhausted) }),
    ...(delta.currentProviderId === null ? {} : { current_provider_id: delta.currentProviderId }),
    ...(delta.lastRotation === null ? {} : { last_rotation: delta.lastRotation }),
    change_seq: eb('change_seq', '+', 1)
  })).where('id', '=', poolId).returning('change_seq'))
  return row?.change_seq
}

/**
 * Leases up to `want` uses (requests, or credits) of the provider's quota in the
 * window starting at `windowStart` (at most what is left of `limit`), and never fewer
 * than `need` (the credits a call lacks; 1 for requests): one conditional UPDATE takes
 * `want` when that much is left; otherwise what is left is read, and taken when it is
 * `need` or more. Answers how many were granted (0: fewer than `need` are left, and
 * `left` says how many), and whether the window is now used up (this lease took the
 * last uses, or none were left). Across processes the total never exceeds `limit`:
 * every grant is counted in the provider's row. The pools showing the quota are
 * marked changed afterwards, in a transaction of their own (locking them here, after
 * the provider, could deadlock with a rotation).
 */
export function * leaseQuota (db: Db, providerId: number, windowStart: string, limit: number, want: number, need = 1): Work<{ granted: number, usedUp: boolean, left: number }> {
  const take = (n: number) => db.updateTable('providers')
    .set((eb) => ({
      quota_used: eb.case().when('quota_window_start', '=', windowStart).then(eb('quota_used', '+', n)).else(n).end(),
      quota_window_start: windowStart
    }))
    .where('id', '=', providerId)
    .where((eb) => eb.or([
      eb('quota_window_start', 'is', null),
      eb('quota_window_start', '<>', windowStart),
      eb('quota_used', '<=', limit - n)
    ]))
    .returning('quota_used')
  const taken = yield * first(take(want))
  if (taken !== undefined) return { granted: want, usedUp: taken.quota_used >= limit, left: limit - taken.quota_used }
  const row = yield * first(db.selectFrom('providers').select(['quota_used', 'quota_window_start']).where('id', '=', providerId))
  if (row === undefined) return { granted: 0, usedUp: false, left: 0 }
  const left = row.quota_window_start === windowStart ? limit - row.quota_used : limit
  if (left <= 0) return { granted: 0, usedUp: true, left: 0 }
  // Too little for the call: nothing is taken, so that cheaper calls (here or elsewhere) may still have it.
  if (left < need) return { granted: 0, usedUp: false, left }
  const granted = Math.min(left, want)
  const rest = yield * first(take(granted))
  if (rest === undefined) return { granted: 0, usedUp: false, left: 0 }
  return { granted, usedUp: rest.quota_used >= limit, left: limit - rest.quota_used }
}

/** Gives back `unused` leased uses of the window starting at `windowStart` (nothing once that window is over). */
export function * returnQuota (db: Db, providerId: number, windowStart: string, unused: number): Work<void> {
  yield * execute(db.updateTable('providers')
    .set((eb) => ({ quota_used: eb.case().when('quota_used', '>=', unused).then(eb('quota_used', '-', unused)).else(0).end() }))
    .where('id', '=', providerId).where('quota_window_start', '=', windowStart))
}
