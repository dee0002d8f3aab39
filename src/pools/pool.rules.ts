/**
 * What a pool's fields must be and how a new pool is stored, whoever sends them
 * (the API, or a declared state file): the defaults of the strategy and the
 * health and proxy policy (cache and bounded wait off by default, protocol `http`,
 * the `evm` fields' finality depth, unfinalized cache, head checks and block lag,
 * writes sent to one member, the WebSocket streams' settings),
 * and a cooldown cap never below the first cooldown.
 * Errors are 422s whose `loc` the caller chooses.
 */
import type { Insertable } from 'kysely'
import type { PoolTable } from '../db/types.js'
import { RequestValidationError, valueError } from '../errors.js'
import { DEFAULT_POLICY } from '../rules/health.js'
import { DEFAULT_DEADLINE_MS, DEFAULT_RETRY_BUDGET_PERCENT } from '../rules/retry-policy.js'
import { STREAM_DEFAULTS, storedReplay } from '../rules/stream-settings.js'
import type { CreatePoolInput } from './pool.schemas.js'

/** The cooldown cap may not be below the first cooldown (checked on the values that result; the 422's input is the cap). */
export function checkPolicy (cooldown: number, max: number, loc: ReadonlyArray<string | number>): void {
  if (max < cooldown) {
    throw new RequestValidationError([valueError(loc, max, `max_cooldown_seconds must be greater than or equal to cooldown_seconds (${cooldown})`)])
  }
}

/** The defaults of the fields an `evm` pool reads (issue 36), as migration 018 gives existing pools. */
export const EVM_DEFAULTS = { finality_depth: 64, cache_unfinalized_ms: 0, head_check_interval_s: 5, max_block_lag: 5 } as const

/** A pool's settings for WebSocket streams through it (rules/stream-settings.ts). */
export const STREAM_FIELDS = ['ws_ping_interval_ms', 'ws_replay', 'ws_max_streams', 'ws_max_streams_per_client', 'ws_max_message_bytes', 'ws_send_buffer_bytes', 'ws_idle_timeout_ms'] as const
type StreamField = typeof STREAM_FIELDS[number]

/** A pool's settings as stored: everything a client or a file chooses, defaults filled in. */
export type StoredPool = Pick<Insertable<PoolTable>, 'name' | 'category' | 'description' | 'rotation_strategy' | 'failure_threshold' | 'cooldown_seconds' |
'max_cooldown_seconds' | 'all_down' | 'max_attempts' | 'retry_non_idempotent' | 'forward_client_auth' | 'forbidden_ttl_seconds' |
'cache_ttl_seconds' | 'cache_stale_seconds' | 'max_wait_ms' | 'deadline_ms' | 'retry_budget_percent' | 'retry_backoff_ms' | 'hedge_after_ms' | 'protocol' |
'finality_depth' | 'cache_unfinalized_ms' | 'head_check_interval_s' | 'max_block_lag' | 'broadcast_writes' | StreamField> & { enabled: number }

/** The stored form of a pool as sent on create (absent fields: their defaults); `loc` prefixes every error. */
export function storedPool (input: CreatePoolInput & { enabled?: boolean | null }, loc: ReadonlyArray<string | number> = ['body']): StoredPool {
  const cooldown = input.cooldown_seconds ?? DEFAULT_POLICY.cooldown_seconds
  const maxCooldown = input.max_cooldown_seconds ?? Math.max(DEFAULT_POLICY.max_cooldown_seconds, cooldown)
  checkPolicy(cooldown, maxCooldown, [...loc, 'max_cooldown_seconds'])
  return {
    name: input.name,
    category: input.category,
    description: input.description ?? null,
    rotation_strategy: input.rotation_strategy ?? 'round_robin',
    enabled: input.enabled === false ? 0 : 1,
    failure_threshold: input.failure_threshold ?? DEFAULT_POLICY.failure_threshold,
    cooldown_seconds: cooldown,
    max_cooldown_seconds: maxCooldown,
    all_down: input.all_down ?? DEFAULT_POLICY.all_down,
    max_attempts: input.max_attempts ?? 3,
    retry_non_idempotent: input.retry_non_idempotent === true ? 1 : 0,
    forward_client_auth: input.forward_client_auth === true ? 1 : 0,
    forbidden_ttl_seconds: input.forbidden_ttl_seconds ?? 3600,
    cache_ttl_seconds: input.cache_ttl_seconds ?? 0,
    cache_stale_seconds: input.cache_stale_seconds ?? 0,
    max_wait_ms: input.max_wait_ms ?? 0,
    deadline_ms: input.deadline_ms ?? DEFAULT_DEADLINE_MS,
    retry_budget_percent: input.retry_budget_percent ?? DEFAULT_RETRY_BUDGET_PERCENT,
    retry_backoff_ms: input.retry_backoff_ms ?? 0,
    hedge_after_ms: input.hedge_after_ms ?? 0,
    protocol: input.protocol ?? 'http',
    finality_depth: input.finality_depth ?? EVM_DEFAULTS.finality_depth,
    cache_unfinalized_ms: input.cache_unfinalized_ms ?? EVM_DEFAULTS.cache_unfinalized_ms,
    head_check_interval_s: input.head_check_interval_s ?? EVM_DEFAULTS.head_check_interval_s,
    max_block_lag: input.max_block_lag ?? EVM_DEFAULTS.max_block_lag,
    broadcast_writes: input.broadcast_writes === true ? 1 : 0,
    ws_ping_interval_ms: input.ws_ping_interval_ms ?? STREAM_DEFAULTS.ws_ping_interval_ms,
    ws_replay: storedReplay(input.ws_replay ?? STREAM_DEFAULTS.ws_replay),
    ws_max_streams: input.ws_max_streams ?? STREAM_DEFAULTS.ws_max_streams,
    ws_max_streams_per_client: input.ws_max_streams_per_client ?? STREAM_DEFAULTS.ws_max_streams_per_client,
    ws_max_message_bytes: input.ws_max_message_bytes ?? STREAM_DEFAULTS.ws_max_message_bytes,
    ws_send_buffer_bytes: input.ws_send_buffer_bytes ?? STREAM_DEFAULTS.ws_send_buffer_bytes,
    ws_idle_timeout_ms: input.ws_idle_timeout_ms ?? STREAM_DEFAULTS.ws_idle_timeout_ms
  }
}

/** The row of a new pool created at `at`: no provider yet, a fresh cursor. */
export function newPoolRow (fields: StoredPool, at: Date): Insertable<PoolTable> {
  return {
    ...fields,
    created_at: at.toISOString(),
    updated_at: at.toISOString(),
    current_provider_id: null,
    last_rotation: null,
    rotation_state: '{}'
  }
}
