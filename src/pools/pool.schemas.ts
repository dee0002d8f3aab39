/**
 * Schemas of the pool and member operations (1–8), and of the pool status record.
 */
import { Type, type Static } from 'typebox'
import { Id, Nullable, Timestamp, wholeListPage } from '../http/schemas.js'
import { LastCheck } from '../providers/provider.schemas.js'
import { MAX_REPLAY_MESSAGES, REPLAY_MODES, STREAM_BOUNDS, STREAM_DEFAULTS, type ReplayMode, type StreamLimit } from '../rules/stream-settings.js'
import { STRATEGIES } from '../rules/strategies.js'

/** A member's health, as the status record and outcome reports show it. */
export const HealthFields = {
  health: Type.Union([Type.Literal('healthy'), Type.Literal('cooling_down'), Type.Literal('probing')]),
  cooldown_until: Nullable(Timestamp),
  cooldown_reason: Nullable(Type.String()),
  consecutive_failures: Type.Integer(),
  latency_ms: Nullable(Type.Number({ description: 'moving average of reported latencies (α = 0.3)' })),
  success_rate: Type.Number({ minimum: 0, maximum: 100, description: 'a percentage: successes / (successes + failures) × 100, two decimals; 0 before any outcome (as the original service)' })
}

export const Quota = Nullable(Type.Object({
  used: Type.Integer({ description: 'used in the current window, in `unit`' }),
  limit: Type.Integer({ description: 'allowed per window, in `unit`' }),
  unit: Type.Union([Type.Literal('requests'), Type.Literal('credits')], { description: 'what the quota counts: requests (hand-outs), or credits (what each call costs: the provider\'s method_costs)' }),
  resets_at: Timestamp
}, { description: 'the provider\'s quota window; null without a rate limit' }))

/** The quota as the original service's `rate_limit` object; null for a provider without a rate limit. */
export const RateLimitUsage = Nullable(Type.Object({
  usage: Type.Integer({ description: 'uses in the current window (credits, for a quota in credits: `quota.unit`)' }),
  limit: Type.Integer({ description: 'uses allowed per window (likewise)' }),
  percentage: Type.Number({ description: 'usage / limit × 100, one decimal' }),
  status: Type.Union([Type.Literal('ok'), Type.Literal('warning'), Type.Literal('blocked')], { description: 'warning from 80 %, blocked from 100 %' })
}, { description: 'the quota window in the original service\'s shape (`quota` has when it resets)' }))

/** One rotation history record (operation 11, and `recent_rotations`). */
export const HistoryRecord = Type.Object({
  id: Type.Integer(),
  timestamp: Timestamp,
  from_provider: Nullable(Type.String()),
  to_provider: Nullable(Type.String()),
  reason: Type.String(),
  success: Type.Boolean(),
  notes: Nullable(Type.String())
})
export type HistoryRecordValue = Static<typeof HistoryRecord>

const Strategy = Type.Unsafe<typeof STRATEGIES[number]>({ type: 'string', enum: [...STRATEGIES] })
const Description = Type.String({ maxLength: 2000 })

const FailureThreshold = Type.Integer({ minimum: 1, maximum: 1000, description: 'consecutive failures that start a cooldown (default 3)' })
const CooldownSeconds = Type.Integer({ minimum: 1, maximum: 86_400, description: 'first cooldown, doubled for each further trip (default 30)' })
const MaxCooldownSeconds = Type.Integer({ minimum: 1, maximum: 604_800, description: 'cap of the doubling (default 300)' })
const AllDown = Type.Unsafe<'soonest' | 'fail'>({ type: 'string', enum: ['soonest', 'fail'], description: 'when every enabled member is cooling down: use the one whose cooldown ends first (default), or answer 404' })

/** What a pool's requests are (issue 36): plain HTTP passed through, JSON-RPC 2.0, or JSON-RPC to Ethereum nodes. */
export const PROTOCOLS = ['http', 'jsonrpc', 'evm'] as const
export type Protocol = typeof PROTOCOLS[number]
// An enum, as Strategy and AllDown: OpenAPI lists the values, Nullable takes it, and a bad value is pydantic's `enum` 422.
const ProtocolField = Type.Unsafe<Protocol>({
  type: 'string',
  enum: [...PROTOCOLS],
  description: 'what the pool\'s requests are: `http` (default) passes them through as they are; `jsonrpc` (JSON-RPC 2.0) and `evm` (JSON-RPC with Ethereum\'s methods) read each POST as JSON-RPC (docs/api.md, RPC pools)'
})

// The fields an `evm` pool reads (issue 36); stored and shown for any pool, as the other policy fields.
const FinalityDepth = Type.Integer({ minimum: 0, maximum: 100_000, description: "evm: where a node has no `finalized` tag, the finalized block is the pool's highest head − this many blocks (default 64)" })
const CacheUnfinalizedMs = Type.Integer({ minimum: 0, maximum: 3_600_000, description: 'evm: how long an answer that may still change (at `latest`, `pending` or a block not yet final) is stored (default 0: shared while in flight, not stored)' })
const HeadCheckIntervalS = Type.Integer({ minimum: 1, maximum: 3600, description: "evm: seconds between the `eth_blockNumber` checks of each member's head (default 5)" })
const BroadcastWrites = Type.Boolean({ description: 'evm: send each eth_sendRawTransaction to every eligible member at once and answer with the first acceptance (default false: one member)' })
const MaxBlockLag = Type.Integer({ minimum: 0, maximum: 1_000_000, description: "evm: a member more than this many blocks behind the pool's highest head is left out of calls at `latest` (default 5)" })

// WebSocket streams through the pool (docs/api.md, Streams); stored and shown for any pool, as the other policy fields.
/** A bounded stream setting: an integer within its STREAM_BOUNDS, its default said after `what`. */
const streamLimit = (field: StreamLimit, what: string) =>
  Type.Integer({ ...STREAM_BOUNDS[field], description: `streams: ${what} (default ${STREAM_DEFAULTS[field].toLocaleString('en-US')})` })
const WsPingIntervalMs = streamLimit('ws_ping_interval_ms', 'milliseconds between the pings sent on a stream\'s connections')
const WsMaxStreams = streamLimit('ws_max_streams', 'streams open at once through the pool')
const WsMaxStreamsPerClient = streamLimit('ws_max_streams_per_client', 'streams open at once through the pool from one client address')
const WsMaxMessageBytes = streamLimit('ws_max_message_bytes', 'the largest message a stream carries, either way, in bytes')
const WsSendBufferBytes = streamLimit('ws_send_buffer_bytes', 'bytes a stream may hold on their way to a slow reader')
const WsIdleTimeoutMs = streamLimit('ws_idle_timeout_ms', 'milliseconds a stream may carry no message before it is closed; 0: no limit')
const ReplayModeField = Type.Unsafe<ReplayMode>({ type: 'string', enum: [...REPLAY_MODES] })
const REPLAY_DESCRIPTION = 'streams: what a stream sends its new upstream after a failover: `none`, `first_second` (the client\'s messages of its first second; the default) or N (the client\'s first N messages)'
/**
 * `ws_replay` as sent: a mode, a count, or null (left as it is). Not Nullable: that takes one type, and this is two;
 * null goes with the modes, so a refused value is told in the words of the two kinds only.
 */
const WsReplayInput = Type.Union([
  Type.Unsafe<ReplayMode | null>({ type: ['string', 'null'], enum: [...REPLAY_MODES, null] }),
  Type.Integer({ minimum: 0, maximum: MAX_REPLAY_MESSAGES })
], { description: REPLAY_DESCRIPTION })

/** The per-pool health policy fields, all optional, accepted on create and update. */
const policyFields = {
  failure_threshold: Type.Optional(Nullable(FailureThreshold)),
  cooldown_seconds: Type.Optional(Nullable(CooldownSeconds)),
  max_cooldown_seconds: Type.Optional(Nullable(MaxCooldownSeconds)),
  all_down: Type.Optional(Nullable(AllDown)),
  max_attempts: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 10, description: 'proxy: providers tried per request (default 3)' }))),
  retry_non_idempotent: Type.Optional(Nullable(Type.Boolean({ description: 'proxy: retry POST and PATCH without an Idempotency-Key too (default false)' }))),
  forward_client_auth: Type.Optional(Nullable(Type.Boolean({ description: "proxy: forward the client's Authorization and Cookie headers (default false)" }))),
  forbidden_ttl_seconds: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2_592_000, description: "proxy: how long a provider's 403 for a resource keeps it from that resource (default 3,600)" }))),
  cache_ttl_seconds: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 86_400, description: 'proxy: how long an answer to a GET is served from the cache (default 0: no cache)' }))),
  cache_stale_seconds: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 86_400, description: 'proxy: how long after that a cached answer is still served as STALE, while it is refreshed or when every member fails (default 0)' }))),
  max_wait_ms: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 30_000, description: 'proxy: how long a request may wait for a member to become eligible instead of answering 503 (default 0)' }))),
  deadline_ms: Type.Optional(Nullable(Type.Integer({ minimum: 100, maximum: 600_000, description: 'proxy: the longest a request may take across all its attempts and waits; past it, 504 (default 30,000)' }))),
  retry_budget_percent: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 100, description: "proxy: retries allowed over a sliding 10 s window, as a percent of the pool's first attempts, at least 3 (default 20)" }))),
  retry_backoff_ms: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 10_000, description: 'proxy: before retry n, a random wait up to this × 2^(n−2) (full jitter; default 0: none)' }))),
  hedge_after_ms: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: 60_000, description: 'proxy: a second attempt to another member when the first has not started answering after this long (default off; 0 turns it off)' }))),
  protocol: Type.Optional(Nullable(ProtocolField)),
  finality_depth: Type.Optional(Nullable(FinalityDepth)),
  cache_unfinalized_ms: Type.Optional(Nullable(CacheUnfinalizedMs)),
  head_check_interval_s: Type.Optional(Nullable(HeadCheckIntervalS)),
  max_block_lag: Type.Optional(Nullable(MaxBlockLag)),
  broadcast_writes: Type.Optional(Nullable(BroadcastWrites)),
  ws_ping_interval_ms: Type.Optional(Nullable(WsPingIntervalMs)),
  ws_replay: Type.Optional(WsReplayInput),
  ws_max_streams: Type.Optional(Nullable(WsMaxStreams)),
  ws_max_streams_per_client: Type.Optional(Nullable(WsMaxStreamsPerClient)),
  ws_max_message_bytes: Type.Optional(Nullable(WsMaxMessageBytes)),
  ws_send_buffer_bytes: Type.Optional(Nullable(WsSendBufferBytes)),
  ws_idle_timeout_ms: Type.Optional(Nullable(WsIdleTimeoutMs))
}

export const PoolParams = Type.Object({ pool_id: Id })
export const MemberParams = Type.Object({ pool_id: Id, provider_id: Id })

export const CreatePoolBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  category: Type.String({ minLength: 1, maxLength: 100 }),
  description: Type.Optional(Nullable(Description)),
  rotation_strategy: Type.Optional(Nullable(Strategy)),
  ...policyFields
})
export type CreatePoolInput = Static<typeof CreatePoolBody>

export const PoolCreated = Type.Object({
  pool_id: Type.Integer(),
  name: Type.String(),
  category: Type.String(),
  rotation_strategy: Type.String(),
  created_at: Timestamp,
  message: Type.String()
})
export type PoolCreatedValue = Static<typeof PoolCreated>

export const UpdatePoolBody = Type.Object({
  rotation_strategy: Type.Optional(Nullable(Strategy)),
  enabled: Type.Optional(Nullable(Type.Boolean())),
  description: Type.Optional(Nullable(Description)),
  ...policyFields
})
export type UpdatePoolInput = Static<typeof UpdatePoolBody>

export const PoolUpdated = Type.Object({
  pool_id: Type.Integer(),
  name: Type.String(),
  rotation_strategy: Type.String(),
  enabled: Type.Boolean(),
  updated_at: Timestamp,
  message: Type.String()
})
export type PoolUpdatedValue = Static<typeof PoolUpdated>

export const PoolDeleted = Type.Object({ message: Type.String(), pool_id: Type.Integer() })
export type PoolDeletedValue = Static<typeof PoolDeleted>

const CurrentProvider = Nullable(Type.Object({
  id: Type.Integer({ description: 'the provider\'s id (as the original service named it)' }),
  provider_id: Type.Integer(),
  name: Type.String(),
  status: Type.Literal('active', { description: 'always active: the provider rotated to last (its health is in members)' })
}))

/**
 * An `evm` pool's member's node head, as this process tracks it (docs/api.md, "Heads
 * and lagging nodes"); present only in evm pools' records.
 */
export const HeadStatusFields = {
  head_block: Type.Optional(Nullable(Type.String({ pattern: '^[0-9]+$', description: 'evm pools only: the node\'s head block number, in decimal; null while unknown (the pool not used lately, the member switched off, no check answered yet)' }))),
  block_lag: Type.Optional(Nullable(Type.Integer({ minimum: 0, description: 'evm pools only: blocks behind the pool\'s highest head; null while unknown' }))),
  lagging: Type.Optional(Type.Boolean({ description: 'evm pools only: more than the pool\'s max_block_lag behind, so left out of calls at latest or pending, above its head, and head-dependent reads' }))
}

export const MemberStatus = Type.Object({
  member_id: Type.Integer(),
  provider_id: Type.Integer(),
  provider_name: Nullable(Type.String()),
  priority: Type.Integer(),
  weight: Type.Integer(),
  enabled: Type.Boolean(),
  use_count: Type.Integer(),
  success_count: Type.Integer(),
  failure_count: Type.Integer(),
  last_used: Nullable(Timestamp),
  ...HealthFields,
  quota: Quota,
  rate_limit: RateLimitUsage,
  last_check: LastCheck,
  eligible: Type.Boolean({ description: 'whether a rotation or the proxy may choose it now (as `/next` says)' }),
  ineligible_reason: Nullable(Type.String({ description: 'why not, as `/next`\'s `reason` (disabled, cooling_down, rate_limited, quota_exhausted); null when eligible' })),
  eligible_again_at: Nullable(Type.String({ description: 'ISO 8601 UTC: when its cooldown, rate-limit pause or quota window ends; null when eligible, switched off or not known' })),
  ...HeadStatusFields
})

/** What the pool's response cache did, counted since the pool was created (the proxy's counters, written behind). */
export const PoolCache = Type.Object({
  ttl_seconds: Type.Integer(),
  stale_seconds: Type.Integer(),
  hits: Type.Integer({ description: 'answers served fresh from the cache' }),
  misses: Type.Integer({ description: 'proxied requests of the pool that went upstream: misses and bypasses (not cacheable, no-cache, other methods)' }),
  stale: Type.Integer({ description: 'answers served stale' }),
  entries: Type.Integer({ description: 'live entries, as last counted' }),
  hit_ratio: Type.Number({ minimum: 0, maximum: 1, description: '(hits + stale) / (hits + stale + misses), four decimals; 0 before any' })
})

export const PoolRetries = Type.Object({
  made: Type.Integer({ description: "proxied attempts after a request's first, hedges included (all processes, written behind)" }),
  hedges: Type.Integer({ description: 'hedged second attempts sent (hedge_after_ms)' }),
  budget_exhausted: Type.Integer({ description: 'requests whose failing attempt could not be retried because the retry budget was spent' })
})

export const PoolStreams = Type.Object({
  open: Type.Integer({ description: 'WebSocket client streams open in the pool on the process that answered' }),
  subscriptions: Type.Integer({ description: "upstream eth_subscribe subscriptions, each shared by its clients (an RPC pool's)" }),
  failovers: Type.Integer({ description: 'streams moved to another member after their upstream was lost, since the process started' }),
  messages_to_clients: Type.Integer({ description: 'messages relayed to clients (each client counted), since the process started' }),
  messages_to_upstreams: Type.Integer({ description: 'messages sent to upstreams, since the process started' }),
  upstreams: Type.Array(Type.Object({ provider_id: Type.Integer(), open: Type.Integer() }), { description: 'upstream WebSocket connections open, by provider' })
}, { description: 'WebSocket streams through the pool on the process that answered (see Streams); exact to within a second' })

export const PoolStatus = Type.Object({
  pool_id: Type.Integer(),
  name: Type.String(),
  pool_name: Type.String({ description: 'Same as name (the original service returned this field)' }),
  category: Type.String(),
  description: Nullable(Type.String()),
  rotation_strategy: Type.String(),
  enabled: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  current_provider: CurrentProvider,
  total_rotations: Type.Integer(),
  last_rotation: Nullable(Timestamp),
  policy: Type.Object({
    failure_threshold: Type.Integer(),
    cooldown_seconds: Type.Integer(),
    max_cooldown_seconds: Type.Integer(),
    all_down: Type.String(),
    max_attempts: Type.Integer(),
    retry_non_idempotent: Type.Boolean(),
    forward_client_auth: Type.Boolean(),
    forbidden_ttl_seconds: Type.Integer(),
    cache_ttl_seconds: Type.Integer(),
    cache_stale_seconds: Type.Integer(),
    max_wait_ms: Type.Integer(),
    deadline_ms: Type.Integer(),
    retry_budget_percent: Type.Integer(),
    retry_backoff_ms: Type.Integer(),
    hedge_after_ms: Nullable(Type.Integer()),
    protocol: ProtocolField,
    finality_depth: Type.Integer(),
    cache_unfinalized_ms: Type.Integer(),
    head_check_interval_s: Type.Integer(),
    max_block_lag: Type.Integer(),
    broadcast_writes: Type.Boolean(),
    ws_ping_interval_ms: Type.Integer(),
    ws_replay: Type.Union([ReplayModeField, Type.Integer()], { description: REPLAY_DESCRIPTION }),
    ws_max_streams: Type.Integer(),
    ws_max_streams_per_client: Type.Integer(),
    ws_max_message_bytes: Type.Integer(),
    ws_send_buffer_bytes: Type.Integer(),
    ws_idle_timeout_ms: Type.Integer()
  }),
  cache: PoolCache,
  retries: PoolRetries,
  streams: PoolStreams,
  members: Type.Array(MemberStatus),
  recent_rotations: Type.Array(HistoryRecord)
})
export type PoolStatusValue = Static<typeof PoolStatus>

/** A pool without its members list, history and policy (`fields=summary`). */
export const PoolSummary = Type.Object({
  pool_id: Type.Integer(),
  name: Type.String(),
  category: Type.String(),
  description: Nullable(Type.String()),
  rotation_strategy: Type.String(),
  enabled: Type.Boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
  current_provider: CurrentProvider,
  total_rotations: Type.Integer(),
  last_rotation: Nullable(Timestamp),
  member_counts: Type.Object({
    healthy: Type.Integer(),
    probing: Type.Integer(),
    cooling_down: Type.Integer(),
    disabled: Type.Integer({ description: 'members switched off (enabled false), whatever their health' })
  }, { description: 'members by health; the four add up to the number of members' })
})
export type PoolSummaryValue = Static<typeof PoolSummary>

const ListTotal = Type.Integer({ description: 'every pool, whatever limit and offset (without them, the number of entries in pools)' })
const ListTimestamp = Timestamp

export const PoolList = Type.Object({
  pools: Type.Array(PoolStatus),
  total: ListTotal,
  timestamp: ListTimestamp
}, { title: 'PoolList', description: 'status records (the default)' })

export const PoolSummaryList = Type.Object({
  pools: Type.Array(PoolSummary),
  total: ListTotal,
  timestamp: ListTimestamp
}, { title: 'PoolSummaryList', description: 'summaries (fields=summary)' })

/** Query of `GET /api/pools`: every pool, by pool_id, unless limit and offset choose a page. */
export const PoolListQuery = Type.Object({
  ...wholeListPage('pools', 'pool_id'),
  fields: Type.Optional(Type.Unsafe<'full' | 'summary'>({ type: 'string', enum: ['full', 'summary'], default: 'full', description: 'summary: pool fields and members counted by health, without members, policy and history' }))
})
export type PoolListQueryValue = Static<typeof PoolListQuery>

const Priority = Type.Integer({ minimum: 0, maximum: 1000000 })
const Weight = Type.Integer({ minimum: 1, maximum: 1000000 })

export const AddMemberBody = Type.Object({
  provider_id: Id,
  priority: Type.Optional(Nullable(Priority)),
  weight: Type.Optional(Nullable(Weight))
})
export type AddMemberInput = Static<typeof AddMemberBody>

export const MemberAdded = Type.Object({
  member_id: Type.Integer(),
  pool_id: Type.Integer(),
  provider_id: Type.Integer(),
  provider_name: Nullable(Type.String()),
  priority: Type.Integer(),
  weight: Type.Integer(),
  message: Type.String()
})
export type MemberAddedValue = Static<typeof MemberAdded>

export const UpdateMemberBody = Type.Object({
  priority: Type.Optional(Nullable(Priority)),
  weight: Type.Optional(Nullable(Weight)),
  enabled: Type.Optional(Nullable(Type.Boolean()))
})
export type UpdateMemberInput = Static<typeof UpdateMemberBody>

export const MemberUpdated = Type.Object({
  pool_id: Type.Integer(),
  provider_id: Type.Integer(),
  priority: Type.Integer(),
  weight: Type.Integer(),
  enabled: Type.Boolean(),
  message: Type.String()
})
export type MemberUpdatedValue = Static<typeof MemberUpdated>

export const MemberRemoved = Type.Object({ message: Type.String(), pool_id: Type.Integer(), provider_id: Type.Integer() })
export type MemberRemovedValue = Static<typeof MemberRemoved>
