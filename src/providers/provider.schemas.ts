/**
 * Request and response schemas of `/api/providers`.
 */
import { Type, type Static } from 'typebox'
import { Id, Nullable, Timestamp } from '../http/schemas.js'
import { QUOTA_PERIODS, type QuotaPeriod } from '../rotation/quota.js'

const Name = Type.String({ minLength: 1, maxLength: 200 })
const Category = Type.String({ maxLength: 100 })
const BaseUrl = Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$', description: 'http:// or https:// URL' })
const Description = Type.String({ maxLength: 2000 })
const TimeoutMs = Type.Integer({ minimum: 100, maximum: 600_000, description: 'proxy: how long an attempt may wait for the answer to start (default 10,000)' })

export const RateLimit = Type.Object({
  requests: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
  per: Type.Unsafe<QuotaPeriod>({ type: 'string', enum: [...QUOTA_PERIODS] })
}, { description: 'quota: at most `requests` hand-outs per fixed, clock-aligned window' })

export const ProviderParams = Type.Object({ provider_id: Id })

export const CreateProviderBody = Type.Object({
  name: Name,
  category: Type.Optional(Nullable(Category)),
  base_url: Type.Optional(Nullable(BaseUrl)),
  description: Type.Optional(Nullable(Description)),
  rate_limit: Type.Optional(Nullable(RateLimit)),
  timeout_ms: Type.Optional(Nullable(TimeoutMs))
})
export type CreateProviderInput = Static<typeof CreateProviderBody>

export const UpdateProviderBody = Type.Object({
  name: Type.Optional(Nullable(Name)),
  category: Type.Optional(Nullable(Category)),
  base_url: Type.Optional(Nullable(BaseUrl)),
  description: Type.Optional(Nullable(Description)),
  rate_limit: Type.Optional(Nullable(RateLimit)),
  timeout_ms: Type.Optional(Nullable(TimeoutMs))
})
export type UpdateProviderInput = Static<typeof UpdateProviderBody>

export const Provider = Type.Object({
  provider_id: Type.Integer(),
  name: Type.String(),
  category: Nullable(Type.String()),
  base_url: Nullable(Type.String()),
  description: Nullable(Type.String()),
  rate_limit: Nullable(RateLimit),
  timeout_ms: Nullable(Type.Integer()),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type ProviderRecord = Static<typeof Provider>

export const ProviderWithMessage = Type.Object({ ...Provider.properties, message: Type.String() })

export const ProviderList = Type.Object({ providers: Type.Array(Provider), total: Type.Integer() })

export const ProviderDeleted = Type.Object({ message: Type.String(), provider_id: Type.Integer() })
