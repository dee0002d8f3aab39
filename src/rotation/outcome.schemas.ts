/**
 * Schemas of outcome reports (`POST /api/pools/{id}/report`): what a caller tells
 * of one call to a member, and the member's health record it is answered with.
 */
import { Type, type Static } from 'typebox'
import { Id, Nullable } from '../http/schemas.js'
import { HealthFields } from '../pools/pool.schemas.js'

export const ReportBody = Type.Object({
  provider_id: Id,
  success: Type.Boolean(),
  status_code: Type.Optional(Nullable(Type.Integer({ minimum: 100, maximum: 599 }))),
  latency_ms: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 86_400_000 }))),
  retry_after_s: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: 604_800 }))),
  error: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
  path: Type.Optional(Nullable(Type.String({
    minLength: 1,
    maxLength: 2048,
    description: "the path (and query) the call asked for, relative to the provider's base_url: a 401/402 is then judged as the proxy judges it, a refusal of that resource alone unless our key is refused across resources"
  }))),
  headers: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 1024 }), {
    maxProperties: 50,
    description: "the provider's answer headers (as many as 50): its rate-limit signals (Retry-After, X-RateLimit-Remaining/Reset, RateLimit-*) are read from them"
  }))
})
export type ReportInput = Static<typeof ReportBody>

export const MemberHealth = Type.Object({
  pool_id: Type.Integer(),
  provider_id: Type.Integer(),
  provider_name: Nullable(Type.String()),
  ...HealthFields,
  success_count: Type.Integer(),
  failure_count: Type.Integer(),
  last_error: Nullable(Type.String())
})
export type MemberHealthValue = Static<typeof MemberHealth>
