/**
 * Request and response schemas of `/api/providers`.
 */
import { Type, type Static } from 'typebox'
import { Id, Nullable, Timestamp } from '../http/schemas.js'
import { QUOTA_PERIODS, type QuotaPeriod } from '../rules/quota.js'

const Name = Type.String({ minLength: 1, maxLength: 200 })
const Category = Type.String({ maxLength: 100 })
const BaseUrl = Type.String({
  maxLength: 2048,
  pattern: '^https?://[^\\s]+$',
  description: 'http:// or https:// URL, without user:password@ (credentials go in auth_headers); its query parameters are sent with every request, before the client\'s'
})
const Description = Type.String({ maxLength: 2000 })
const TimeoutMs = Type.Integer({ minimum: 100, maximum: 600_000, description: 'proxy: how long an attempt may wait for the answer to start (default 10,000)' })

export const RateLimit = Type.Object({
  requests: Type.Integer({ minimum: 1, maximum: 1_000_000_000 }),
  per: Type.Unsafe<QuotaPeriod>({ type: 'string', enum: [...QUOTA_PERIODS] })
}, { description: 'quota: at most `requests` hand-outs per fixed, clock-aligned window' })

/** Header names the proxy never lets a provider's credentials set. */
export const RESERVED_HEADERS = ['host', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate', 'expect']

/** Credentials the proxy adds to every request to the provider: header name → value. Write-only. */
const AuthHeaders = Type.Unsafe<Record<string, string>>({
  type: 'object',
  maxProperties: 20,
  propertyNames: { pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$" },
  additionalProperties: { type: 'string', minLength: 1, maxLength: 4096, pattern: '^[\\x20-\\x7e]*$' },
  description: 'headers the proxy adds to every request to this provider (for example an API key); answered with the values masked'
})

export const ProviderParams = Type.Object({ provider_id: Id })

export const CreateProviderBody = Type.Object({
  name: Name,
  category: Type.Optional(Nullable(Category)),
  base_url: Type.Optional(Nullable(BaseUrl)),
  description: Type.Optional(Nullable(Description)),
  rate_limit: Type.Optional(Nullable(RateLimit)),
  timeout_ms: Type.Optional(Nullable(TimeoutMs)),
  auth_headers: Type.Optional(Nullable(AuthHeaders))
})
export type CreateProviderInput = Static<typeof CreateProviderBody>

export const UpdateProviderBody = Type.Object({
  name: Type.Optional(Nullable(Name)),
  category: Type.Optional(Nullable(Category)),
  base_url: Type.Optional(Nullable(BaseUrl)),
  description: Type.Optional(Nullable(Description)),
  rate_limit: Type.Optional(Nullable(RateLimit)),
  timeout_ms: Type.Optional(Nullable(TimeoutMs)),
  auth_headers: Type.Optional(Nullable(AuthHeaders))
})
export type UpdateProviderInput = Static<typeof UpdateProviderBody>

export const Provider = Type.Object({
  provider_id: Type.Integer(),
  name: Type.String(),
  category: Nullable(Type.String()),
  base_url: Nullable(Type.String({ description: 'as stored for admin callers; for others every query value and any password read ***' })),
  description: Nullable(Type.String()),
  rate_limit: Nullable(RateLimit),
  timeout_ms: Nullable(Type.Integer()),
  auth_headers: Nullable(Type.Record(Type.String(), Type.Literal('***'), { description: 'the names of the credential headers; values are never returned' })),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type ProviderRecord = Static<typeof Provider>

export const ProviderWithMessage = Type.Object({ ...Provider.properties, message: Type.String() })

export const ProviderList = Type.Object({ providers: Type.Array(Provider), total: Type.Integer() })

export const ProviderDeleted = Type.Object({ message: Type.String(), provider_id: Type.Integer() })
