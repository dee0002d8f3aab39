/**
 * Schemas of rotate, failover and history (operations 9, 10, 11).
 */
import { Type } from 'typebox'
import { Id, Nullable, Timestamp } from '../http/schemas.js'
import { MAX_HASH_KEY_LENGTH } from '../rules/strategies.js'
import { HistoryRecord } from '../pools/pool.schemas.js'

const Reason = Type.String({ minLength: 1, maxLength: 200 })

/** The consistent_hash strategy's key: the same key goes to the same member while the membership is stable. */
export const HashKey = Type.String({ minLength: 1, maxLength: MAX_HASH_KEY_LENGTH, description: 'consistent_hash: the same key gets the same member while the membership is stable (other strategies ignore it)' })

export const RotateBody = Type.Object({ reason: Type.Optional(Nullable(Reason)), key: Type.Optional(HashKey) })

const Degraded = Type.Optional(Type.Boolean({ description: 'Present (true) when every eligible member was cooling down and the one whose cooldown ends first was chosen' }))

export const RotateResult = Type.Object({
  pool_id: Type.Integer(),
  provider_id: Type.Integer(),
  provider_name: Nullable(Type.String()),
  timestamp: Timestamp,
  message: Type.String(),
  degraded: Degraded
})

export const FailoverBody = Type.Object({
  failed_provider_id: Id,
  reason: Type.Optional(Nullable(Reason))
})

export const FailoverResult = Type.Object({
  pool_id: Type.Integer(),
  failed_provider_id: Type.Integer(),
  new_provider_id: Type.Integer(),
  new_provider_name: Nullable(Type.String()),
  timestamp: Timestamp,
  message: Type.String(),
  degraded: Degraded
})

export const HistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 50 }))
})

export const HistoryResult = Type.Object({
  pool_id: Type.Integer(),
  history: Type.Array(HistoryRecord),
  total: Type.Integer()
})
