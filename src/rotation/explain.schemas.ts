/**
 * Schemas of the explain endpoint (`GET /api/pools/{id}/next`): what the next
 * rotation would choose, and why every member is or is not eligible (and, in an
 * `evm` pool, each node's head and whether it is left out of calls at the head).
 */
import { HashKey } from './rotation.schemas.js'
import { LastCheck } from '../providers/provider.schemas.js'
import { Type, type Static } from 'typebox'
import { Nullable, Timestamp } from '../http/schemas.js'
import { HeadStatusFields, HealthFields, Quota } from '../pools/pool.schemas.js'

export const ExplainQuery = Type.Object({
  resource: Type.Optional(Type.String({ maxLength: 1000, description: 'a resource (first path segment, e.g. /despesas): members that refuse it are not eligible' })),
  key: Type.Optional(HashKey)
})

export const Explanation = Type.Object({
  pool_id: Type.Integer(),
  resource: Nullable(Type.String()),
  pool_enabled: Type.Boolean(),
  rotation_strategy: Type.String(),
  provider_id: Nullable(Type.Integer({ description: 'the provider the next rotation would choose; null when none, or when the strategy is random' })),
  provider_name: Nullable(Type.String()),
  degraded: Type.Boolean(),
  candidates: Type.Array(Type.Integer(), { description: 'provider ids the next rotation chooses among' }),
  explanation: Type.String(),
  members: Type.Array(Type.Object({
    member_id: Type.Integer(),
    provider_id: Type.Integer(),
    provider_name: Nullable(Type.String()),
    eligible: Type.Boolean(),
    reason: Nullable(Type.String({ description: 'disabled, cooling_down, quota_exhausted or refuses_resource' })),
    until: Nullable(Timestamp),
    refuses_resource: Type.Boolean({ description: 'the provider answered 403 for the resource asked about, and that refusal is in force' }),
    health: HealthFields.health,
    cooldown_reason: Nullable(Type.String({ description: 'why its cooldown started (consecutive_failures, probe_failed, rate_limited, health_check)' })),
    quota: Quota,
    last_check: LastCheck,
    ...HeadStatusFields
  }))
})
export type ExplanationValue = Static<typeof Explanation>
