/**
 * The database schema as Kysely sees it. Booleans are stored as 0/1 integers and
 * timestamps as ISO 8601 UTC text in both dialects, so rows read the same everywhere.
 */
import type { Generated, Kysely } from 'kysely'

export interface ProviderTable {
  id: Generated<number>
  name: string
  category: string | null
  base_url: string | null
  /** Its WebSocket URL (ws:// or wss://), or null: streams use base_url with ws:// or wss:// for http:// or https:// (migration 022). */
  ws_url: string | null
  description: string | null
  created_at: string
  updated_at: string
  /** The quota's limit per window, in `rate_limit_unit` (named before credits existed). */
  rate_limit_requests: number | null
  /** What the limit counts: 'requests' (the default) or 'credits' (migration 021). */
  rate_limit_unit: Generated<string>
  /** 'second' | 'minute' | 'hour' | 'day' */
  rate_limit_per: string | null
  /** Start of the fixed window `quota_used` counts in (ISO), or null before the first use. */
  quota_window_start: string | null
  quota_used: Generated<number>
  /** Proxy timeout for this provider; null means the default (10,000 ms). */
  timeout_ms: number | null
  /** JSON object of headers the proxy adds (credentials); never returned by the API. */
  auth_headers: string | null
  /** JSON of the active health check (rules/health-check.ts), or null for none (migration 009). */
  health_check: string | null
  /** When the next check may run: the lease processes claim with a conditional UPDATE. */
  check_due_at: string | null
  /** Passing checks in a row. */
  check_passes: Generated<number>
  /** Failing checks in a row. */
  check_failures: Generated<number>
  /** JSON of the last check's result: {at, ok, status_code | error, latency_ms}. */
  last_check: string | null
  /** The quota window (its start) whose exhaustion is in the history: recorded once per window (migration 010). */
  quota_exhausted_window: string | null
  /** JSON of the methods an RPC pool sends it ({"allow": [...], "deny": [...]}, rules/rpc-methods.ts), or null for every method (migration 016). */
  methods: string | null
  /** The most blocks one eth_getLogs call may span at this provider, or null for no limit (migration 017). */
  max_logs_range: number | null
  /** The most calls of a client batch sent to this provider as one upstream batch; 1: one by one (migration 020). */
  max_batch_size: Generated<number>
  /** JSON of what each JSON-RPC method costs in credits ({"eth_getLogs": 75, "*": 10}, rules/method-costs.ts), or null (migration 021). */
  method_costs: string | null
}

export interface ProviderRefusalTable {
  provider_id: number
  /** The first path segment the provider answered 403 for (or 401/402 to our credentials), e.g. `/despesas`. */
  resource: string
  first_seen: string
  last_seen: string
  expires_at: string
  /** The status that taught it: 403, or 401/402 (our credentials refused for this resource). */
  status_code: Generated<number>
}

export interface PoolTable {
  id: Generated<number>
  name: string
  category: string
  description: string | null
  rotation_strategy: string
  enabled: number
  created_at: string
  updated_at: string
  current_provider_id: number | null
  total_rotations: Generated<number>
  last_rotation: string | null
  /** JSON text: the strategy's cursor (see rotation/strategies.ts). */
  rotation_state: string
  failure_threshold: Generated<number>
  cooldown_seconds: Generated<number>
  max_cooldown_seconds: Generated<number>
  /** 'soonest' | 'fail' */
  all_down: Generated<string>
  /** Proxy: providers tried per request. */
  max_attempts: Generated<number>
  /** Proxy: retry methods that are not idempotent (0/1). */
  retry_non_idempotent: Generated<number>
  /** Proxy: forward the client's Authorization and Cookie headers (0/1). */
  forward_client_auth: Generated<number>
  /** Proxy: how long a provider's refusal (403) of a resource is remembered. */
  forbidden_ttl_seconds: Generated<number>
  /** Proxy: how long a cached answer is fresh; 0 = no cache (migration 012). */
  cache_ttl_seconds: Generated<number>
  /** Proxy: how long after expiry a cached answer may still be served as stale. */
  cache_stale_seconds: Generated<number>
  /** Proxy: how long a request may wait for a member to become eligible instead of a 503. */
  max_wait_ms: Generated<number>
  /** Cache answers counted by the write-behind flush: served fresh, fetched upstream, served stale. */
  cache_hits: Generated<number>
  cache_misses: Generated<number>
  cache_stale: Generated<number>
  /** The cache's live entry count for the pool, as the last flush wrote it. */
  cache_entries: Generated<number>
  /** Proxy: the longest a request may take across its attempts and waits (migration 013). */
  deadline_ms: Generated<number>
  /** Proxy: retries allowed over a sliding 10 s window, as a percent of first attempts (at least 3). */
  retry_budget_percent: Generated<number>
  /** Proxy: base of the full-jitter backoff before a retry; 0 = none. */
  retry_backoff_ms: Generated<number>
  /** Proxy: delay after which a second attempt is hedged; 0 = no hedging (shown as null). */
  hedge_after_ms: Generated<number>
  /** Retries made (hedges included), hedges sent, and requests a spent retry budget ended: counted by the flush. */
  proxy_retries: Generated<number>
  proxy_hedges: Generated<number>
  retry_budget_exhausted: Generated<number>
  /** 'http' | 'jsonrpc' | 'evm': how the proxy reads the pool's requests (migration 015; default 'http'). */
  protocol: Generated<string>
  /** Blocks below the highest head taken as final where a node has no `finalized` tag (migration 018; default 64; read by `evm` pools). */
  finality_depth: Generated<number>
  /** How long an `evm` answer that may still change is stored; 0: shared while in flight, not stored (migration 018; default 0). */
  cache_unfinalized_ms: Generated<number>
  /** Seconds between the `eth_blockNumber` checks of each member of an `evm` pool (migration 018; default 5). */
  head_check_interval_s: Generated<number>
  /** Blocks a member of an `evm` pool may be behind the highest head and still answer at `latest` (migration 018; default 5). */
  max_block_lag: Generated<number>
  /** 1: an `evm` pool sends each eth_sendRawTransaction to every eligible member and answers with the first acceptance (migration 019; default 0). */
  broadcast_writes: Generated<number>
  /** WebSocket streams through the pool (migration 022; defaults and bounds: rules/stream-settings.ts): ms between pings. */
  ws_ping_interval_ms: Generated<number>
  /** What a stream replays to a new upstream after a failover: 'none', 'first_second', or a count of the client's first messages in decimal. */
  ws_replay: Generated<string>
  /** Streams open at once through the pool, and per client address. */
  ws_max_streams: Generated<number>
  ws_max_streams_per_client: Generated<number>
  /** The largest message of a stream, and a stream's send buffer, in bytes. */
  ws_max_message_bytes: Generated<number>
  ws_send_buffer_bytes: Generated<number>
  /** How long a stream may carry no message before it is closed; 0: no limit. */
  ws_idle_timeout_ms: Generated<number>
  /** Bumped by every write that changes the pool's status record (migration 008). */
  change_seq: Generated<number>
}

export interface PoolMemberTable {
  id: Generated<number>
  pool_id: number
  provider_id: number
  priority: number
  weight: number
  enabled: number
  use_count: Generated<number>
  success_count: Generated<number>
  failure_count: Generated<number>
  last_used: string | null
  created_at: string
  consecutive_failures: Generated<number>
  cooldown_trips: Generated<number>
  cooldown_until: string | null
  cooldown_reason: string | null
  latency_ms: number | null
  /** The error text of the latest failure report, cleared by a success. */
  last_error: string | null
  /** Passing health checks of its provider since its cooldown started (migration 009). */
  check_passes: Generated<number>
  /** The `cooldown_until` those passes were counted for: under another cooldown they count as 0. */
  check_passes_for: string | null
}

export interface RotationHistoryTable {
  id: Generated<number>
  pool_id: number
  from_provider_id: number | null
  to_provider_id: number | null
  reason: string
  success: number
  notes: string | null
  timestamp: string
  /** When the state the record tells of ends (a cooldown, a refusal, a quota window); null for rotations (migration 010). */
  until: string | null
}

/** A member's latency observations in one UTC minute (migration 010). */
export interface MemberMinuteTable {
  member_id: number
  /** The minute's start, ISO: `2026-11-23T22:41:00.000Z`. */
  minute: string
  samples: number
  latency_sum: number
}

export interface AuditTable {
  id: Generated<number>
  timestamp: string
  actor: string
  action: string
  target: string
  /** JSON text of the fields sent, secrets masked. */
  changes: string
  request_id: string
  /** The client's address (the front door's report when trusted); null outside a request and before 011. */
  client_address: string | null
}

export interface ChunkTable {
  chunk_id: string
  content: string
  embedding_model: string
  embedding_dim: number
  /** Little-endian float64, 8 bytes per number (chunks/embedding.ts). */
  embedding: Uint8Array
  parent_id: string
  source: string
  task: string
  sequence: number
  total_chunks: number
  content_type: string
  /** JSON text of the metadata exactly as sent, extra keys included. */
  metadata: string
  /** The model's `version` when this row was last written. */
  revision: number
}

export interface ChunkModelTable {
  embedding_model: string
  /** Fixed while the model has chunks. */
  embedding_dim: number
  chunk_count: number
  /** Bumped by every write that touches the model's chunks. */
  version: number
}

export interface ChunkTombstoneTable {
  embedding_model: string
  chunk_id: string
  revision: number
}

export interface Database {
  providers: ProviderTable
  pools: PoolTable
  pool_members: PoolMemberTable
  rotation_history: RotationHistoryTable
  audit_log: AuditTable
  chunks: ChunkTable
  chunk_models: ChunkModelTable
  chunk_tombstones: ChunkTombstoneTable
  provider_refusals: ProviderRefusalTable
  member_minutes: MemberMinuteTable
}

/** The query handle every repository function takes first; a transaction is one too. */
export type Db = Kysely<Database>

export type Dialect = 'sqlite' | 'postgres'
