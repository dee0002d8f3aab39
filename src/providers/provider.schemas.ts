/**
 * Request and response schemas of `/api/providers`.
 */
import { Type, type Static } from 'typebox'
import { Id, Nullable, Timestamp, wholeListPage } from '../http/schemas.js'
import { MAX_METHOD_COST, MAX_METHOD_COSTS } from '../rules/method-costs.js'
import { QUOTA_PERIODS, type QuotaPeriod } from '../rules/quota.js'
import { DEFAULT_BATCH_SIZE, MAX_BATCH_SIZE } from '../rules/jsonrpc-batch.js'
import { MAX_METHOD_PATTERNS, METHOD_PATTERN } from '../rules/rpc-methods.js'

const Name = Type.String({ minLength: 1, maxLength: 200 })
const Category = Type.String({ maxLength: 100 })
const BaseUrl = Type.String({
  maxLength: 2048,
  pattern: '^https?://[^\\s]+$',
  description: 'http:// or https:// URL, without user:password@ (credentials go in auth_headers); its query parameters are sent with every request, before the client\'s'
})
const WsUrl = Type.String({
  maxLength: 2048,
  pattern: '^wss?://[^\\s]+$',
  description: 'ws:// or wss:// URL the provider\'s WebSocket streams go to, without user:password@ (credentials go in auth_headers); null: base_url with ws:// for http:// and wss:// for https://'
})
const Description = Type.String({ maxLength: 2000 })
const TimeoutMs = Type.Integer({ minimum: 100, maximum: 600_000, description: 'proxy: how long an attempt may wait for the answer to start (default 10,000)' })
const MaxLogsRange = Type.Integer({
  minimum: 1,
  maximum: 1_000_000,
  description: 'evm pools: the most blocks one eth_getLogs call may span at this provider; a wider call is split into ranges of the smallest limit among the pool\'s enabled members (null: no limit)'
})

const MaxBatchSize = Type.Integer({
  minimum: 1,
  maximum: MAX_BATCH_SIZE,
  description: `RPC pools: the most calls of one client batch sent to this provider as one upstream JSON-RPC batch (default ${DEFAULT_BATCH_SIZE}; 1 sends them one by one). A provider that refuses a batch is sent single calls from then on`
})

const Period = Type.Unsafe<QuotaPeriod>({ type: 'string', enum: [...QUOTA_PERIODS] })

/** The most a window may allow, in requests or credits. */
export const MAX_RATE_LIMIT = 1_000_000_000

export const RateLimit = Type.Object({
  requests: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RATE_LIMIT, description: 'hand-outs (proxied attempts, rotations) per window' })),
  credits: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_RATE_LIMIT, description: 'credits per window, each proxied attempt spending what its call costs (method_costs)' })),
  per: Period
}, { description: 'quota per fixed, clock-aligned window: exactly one of `requests` and `credits`, with `per`' })
export type RateLimitValue = Static<typeof RateLimit>

/** A rate limit as answered (null: none): as it was given, its count first. */
const RateLimitShown = Type.Union([
  Type.Object({ requests: Type.Integer(), per: Period }),
  Type.Object({ credits: Type.Integer(), per: Period }),
  Type.Null()
], { description: 'quota per fixed, clock-aligned window, in requests or in credits; null without one' })

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

const ExpectStatus = Type.Array(Type.Union([
  Type.Integer({ minimum: 100, maximum: 599 }),
  Type.String({ maxLength: 20, pattern: '^[1-5][0-9]{2}(\\s*-\\s*[1-5][0-9]{2})?$', description: 'a code, or an inclusive range such as "200-299"' })
]), { minItems: 1, maxItems: 50, description: 'codes and ranges that pass (default ["200-399"]); a redirect is never followed' })

/** The active health check as sent: only `path` is required. */
const HealthCheckInput = Type.Object({
  path: Type.String({ minLength: 1, maxLength: 1000, pattern: '^/', description: 'requested with GET, relative to base_url (its path and query come first), e.g. /health' }),
  interval_s: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400, description: 'seconds between checks (default 10), across every instance sharing the database' })),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 60_000, description: 'the whole check, answer and body (default 2,000); at most interval_s' })),
  expect_status: Type.Optional(ExpectStatus),
  healthy_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'passing checks that bring a member back from a cooldown (default 2)' })),
  unhealthy_threshold: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'failing checks in a row that start a cooldown, reason health_check (default 3)' }))
}, { additionalProperties: false, description: 'active health check; null turns it off' })
export type HealthCheckInputValue = Static<typeof HealthCheckInput>

const HealthCheck = Type.Object({
  path: Type.String(),
  interval_s: Type.Integer(),
  timeout_ms: Type.Integer(),
  expect_status: Type.Array(Type.Union([Type.Integer(), Type.String()])),
  healthy_threshold: Type.Integer(),
  unhealthy_threshold: Type.Integer()
})

/** The last check's result, on the provider and on each member of a pool's status record. */
export const LastCheck = Nullable(Type.Object({
  at: Timestamp,
  ok: Type.Boolean(),
  status_code: Nullable(Type.Integer({ description: 'the answer\'s status, null when none came' })),
  error: Nullable(Type.String({ description: 'why no answer came (timeout, connection refused…), null when one did' })),
  latency_ms: Nullable(Type.Number())
}))

const MethodPattern = Type.String({ minLength: 1, maxLength: 128, pattern: METHOD_PATTERN, description: 'a JSON-RPC method name, `*` standing for any run of characters (eth_*, *_subscribe, *)' })

/** Which JSON-RPC methods an RPC pool sends the provider (rules/rpc-methods.ts). */
export const Methods = Type.Object({
  allow: Type.Optional(Type.Array(MethodPattern, { minItems: 1, maxItems: MAX_METHOD_PATTERNS, description: 'only the methods these match (default: every method); leave it out rather than empty' })),
  deny: Type.Optional(Type.Array(MethodPattern, { maxItems: MAX_METHOD_PATTERNS, description: 'never the methods these match, even when allowed' }))
}, {
  // Not additionalProperties: false, which the API's validator takes as "drop unknown keys" (pydantic ignores them):
  // a misspelt `alow` would then allow every method in silence. The key itself is refused (422 at [key], as
  // auth_headers' names are), once, by the API and by a declared state alike.
  propertyNames: { enum: ['allow', 'deny'] },
  description: 'RPC pools (protocol jsonrpc or evm): the JSON-RPC methods this provider is sent, deny winning over allow; null for every method (on update, null changes nothing and {} lifts the rules); keys other than allow and deny are refused. A call no member allows is answered -32601'
})
export type MethodsValue = Static<typeof Methods>

/** What each JSON-RPC method costs in the provider's credits (rules/method-costs.ts). */
export const MethodCosts = Type.Unsafe<Record<string, number>>({
  type: 'object',
  maxProperties: MAX_METHOD_COSTS,
  propertyNames: { pattern: METHOD_PATTERN },
  additionalProperties: { type: 'integer', minimum: 1, maximum: MAX_METHOD_COST },
  description: `credits a call costs, by JSON-RPC method name or pattern (\`*\` standing for any run of characters; \`"*"\` alone is the default, else 1): an exact name first, then the most specific pattern. At most ${MAX_METHOD_COSTS} entries of 1 to ${MAX_METHOD_COST.toLocaleString('en-US')} credits. Spent when \`rate_limit\` counts credits; with requests they only inform. null: none (on update, null changes nothing and {} removes them)`
})

export const ProviderParams = Type.Object({ provider_id: Id })

export const CreateProviderBody = Type.Object({
  name: Name,
  category: Type.Optional(Nullable(Category)),
  base_url: Type.Optional(Nullable(BaseUrl)),
  ws_url: Type.Optional(Nullable(WsUrl)),
  description: Type.Optional(Nullable(Description)),
  rate_limit: Type.Optional(Nullable(RateLimit)),
  timeout_ms: Type.Optional(Nullable(TimeoutMs)),
  auth_headers: Type.Optional(Nullable(AuthHeaders)),
  health_check: Type.Optional(Nullable(HealthCheckInput)),
  methods: Type.Optional(Nullable(Methods)),
  max_logs_range: Type.Optional(Nullable(MaxLogsRange)),
  max_batch_size: Type.Optional(Nullable(MaxBatchSize)),
  method_costs: Type.Optional(Nullable(MethodCosts))
})
export type CreateProviderInput = Static<typeof CreateProviderBody>

export const UpdateProviderBody = Type.Object({
  name: Type.Optional(Nullable(Name)),
  category: Type.Optional(Nullable(Category)),
  base_url: Type.Optional(Nullable(BaseUrl)),
  // Unlike the fields around it, null is a value here (no URL of its own: streams go to base_url), so null clears it.
  ws_url: Type.Optional(Nullable(WsUrl)),
  description: Type.Optional(Nullable(Description)),
  rate_limit: Type.Optional(Nullable(RateLimit)),
  timeout_ms: Type.Optional(Nullable(TimeoutMs)),
  auth_headers: Type.Optional(Nullable(AuthHeaders)),
  // Unlike the other fields, where null changes nothing, null turns the check off.
  health_check: Type.Optional(Nullable(HealthCheckInput)),
  // As the other fields: null changes nothing; {} lifts the rules (every method).
  methods: Type.Optional(Nullable(Methods)),
  // As health_check: null is this field's own value (no limit), so null lifts the limit.
  max_logs_range: Type.Optional(Nullable(MaxLogsRange)),
  // As timeout_ms: null changes nothing (its default is a number, not the absence of a limit).
  max_batch_size: Type.Optional(Nullable(MaxBatchSize)),
  // As methods: null changes nothing; {} removes the costs.
  method_costs: Type.Optional(Nullable(MethodCosts))
})
export type UpdateProviderInput = Static<typeof UpdateProviderBody>

export const Provider = Type.Object({
  id: Type.Integer({ description: 'the provider\'s id, as the original service named it (same as provider_id)' }),
  provider_id: Type.Integer(),
  name: Type.String(),
  category: Nullable(Type.String()),
  base_url: Nullable(Type.String({ description: 'as stored for admin callers; for others every query value and any password read ***' })),
  ws_url: Nullable(Type.String({ description: 'where its WebSocket streams go, masked as base_url is; null: base_url with ws:// or wss://' })),
  description: Nullable(Type.String()),
  rate_limit: RateLimitShown,
  timeout_ms: Nullable(Type.Integer()),
  auth_headers: Nullable(Type.Record(Type.String(), Type.Literal('***'), { description: 'the names of the credential headers; values are never returned' })),
  health_check: Nullable(HealthCheck),
  last_check: LastCheck,
  methods: Nullable(Methods),
  max_logs_range: Nullable(Type.Integer({ description: 'the most blocks one eth_getLogs call may span at this provider (null: no limit)' })),
  max_batch_size: Type.Integer({ description: 'the most calls of one client batch sent to this provider as one upstream batch (1: one by one)' }),
  batches: Nullable(Type.Literal('refused', {
    description: 'RPC pools: `refused` once this process saw the provider refuse an upstream batch on some path (a 4xx but 413, or a 501, for the list, or one object where a list was due; then the same calls taken one by one): it is sent single calls on that path since, until the provider is updated (any PUT, its max_batch_size sent again included) or the process restarts; null otherwise'
  })),
  method_costs: Nullable(MethodCosts),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type ProviderRecord = Static<typeof Provider>

export const ProviderWithMessage = Type.Object({ ...Provider.properties, message: Type.String() })

/** The list is a bare array, as the original service answered; the number of providers in all is in `X-Total-Count`. */
export const ProviderList = Type.Array(Provider, { description: 'providers by id; X-Total-Count tells how many there are in all' })

export const ProviderListQuery = Type.Object(wholeListPage('providers', 'id'))

export const ProviderDeleted = Type.Object({ message: Type.String(), provider_id: Type.Integer() })
