/**
 * The stored state exported as a declared state: nulls and defaults left out where
 * the file's defaults say the same, and every credential (rules/secrets.ts) written
 * as a `${SOURCEPOOL_<PROVIDER>_<NAME>}` placeholder, never its value — credential
 * headers, a base or WebSocket URL's userinfo password (or lone user name) and the
 * secret-looking query values of those URLs and check paths, percent-encoded names read decoded. The
 * rest is written as stored, so the file applies back to no change once the
 * placeholders are filled in (a base URL with userinfo, from an earlier version, is
 * refused until its credentials move to `auth_headers`).
 */
import { DEFAULT_BATCH_SIZE } from '../rules/jsonrpc-batch.js'
import { shownRateLimit } from '../providers/provider.rules.js'
import { credentialPieces, joinPieces } from '../rules/secrets.js'
import { shownReplay } from '../rules/stream-settings.js'
import type { Current } from './declared.rules.js'
import type { DeclaredStateValue } from './declared.schemas.js'

type ExportedProvider = NonNullable<DeclaredStateValue['providers']>[number]

/** `NAME` as an environment variable's part: upper case, anything else `_`. */
const envPart = (name: string) => name.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_|_$/g, '')

/**
 * Each provider's part of its placeholders' names: its name as a variable's part
 * (`portal-a` → `PORTAL_A`), with its id added when another provider's name gives
 * the same part (`portal-a` and `portal_a`), so no two providers share a variable.
 */
function placeholderParts (providers: ReadonlyArray<{ id: number, name: string }>): Map<number, string> {
  const count = new Map<string, number>()
  for (const p of providers) count.set(envPart(p.name), (count.get(envPart(p.name)) ?? 0) + 1)
  return new Map(providers.map((p) => {
    const part = envPart(p.name)
    return [p.id, part === '' || (count.get(part) ?? 0) > 1 ? `${part === '' ? 'PROVIDER' : part}_${p.id}` : part]
  }))
}

/**
 * One provider's placeholders: `SOURCEPOOL_<part>_<NAME>` for a credential named NAME
 * (a header's or a parameter's name, `PASSWORD` or `USERNAME` for userinfo). Two
 * credentials of the same name and value share it; another value under a name already
 * taken gets `_2`, `_3`…, so filling the file in gives back every value as stored.
 */
function placeholders (part: string): (name: string, value: string) => string {
  const taken = new Map<string, string>()
  return (name, value) => {
    const base = `SOURCEPOOL_${part}_${envPart(name) === '' ? 'CREDENTIAL' : envPart(name)}`
    let variable = base
    for (let n = 2; taken.has(variable) && taken.get(variable) !== value; n++) variable = `${base}_${n}`
    taken.set(variable, value)
    return `\${${variable}}`
  }
}

/** A base URL or check path with its credentials as placeholders, the rest as stored. */
const withPlaceholders = (text: string, placeholder: (name: string, value: string) => string) =>
  joinPieces(credentialPieces(text, { asWritten: true }), ({ name, value }) => placeholder(name, value))

/** One stored provider as exported. */
function exportedProvider (p: Current['providers'][number], part: string): ExportedProvider {
  const placeholder = placeholders(part)
  const headers = p.auth_headers === null ? null : JSON.parse(p.auth_headers) as Record<string, string>
  // Headers first: their placeholders keep the names they always had.
  const authHeaders = headers === null ? null : Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, placeholder(name, value)]))
  const check = p.health_check === null ? null : JSON.parse(p.health_check) as NonNullable<ExportedProvider['health_check']>
  return {
    name: p.name,
    ...(p.category === null ? {} : { category: p.category }),
    ...(p.base_url === null ? {} : { base_url: withPlaceholders(p.base_url, placeholder) }),
    ...(p.ws_url == null ? {} : { ws_url: withPlaceholders(p.ws_url, placeholder) }),
    ...(p.description === null ? {} : { description: p.description }),
    ...(p.rate_limit_requests === null ? {} : { rate_limit: shownRateLimit(p) as NonNullable<ExportedProvider['rate_limit']> }),
    ...(p.timeout_ms === null ? {} : { timeout_ms: p.timeout_ms }),
    ...(authHeaders === null ? {} : { auth_headers: authHeaders }),
    ...(check === null ? {} : { health_check: { ...check, path: withPlaceholders(check.path, placeholder) } }),
    ...(p.methods == null ? {} : { methods: JSON.parse(p.methods) as NonNullable<ExportedProvider['methods']> }),
    ...(p.max_logs_range == null ? {} : { max_logs_range: p.max_logs_range }),
    ...(p.max_batch_size === DEFAULT_BATCH_SIZE ? {} : { max_batch_size: p.max_batch_size }),
    ...(p.method_costs == null ? {} : { method_costs: JSON.parse(p.method_costs) as Record<string, number> })
  }
}

/** The stored state `current` as a declared state (credentials as placeholders). */
export function exportedState (current: Current): DeclaredStateValue {
  const providerNames = new Map(current.providers.map((p) => [p.id, p.name]))
  const parts = placeholderParts(current.providers)
  // Grouped once: a pool's members are not looked for among every member (10,000 pools × 100,000 members).
  const members = new Map<number, Array<Current['members'][number]>>()
  for (const m of current.members) {
    const list = members.get(m.pool_id)
    if (list === undefined) members.set(m.pool_id, [m])
    else list.push(m)
  }
  return {
    providers: current.providers.map((p) => exportedProvider(p, parts.get(p.id) as string)),
    pools: current.pools.map((p) => ({
      name: p.name,
      category: p.category,
      ...(p.description === null ? {} : { description: p.description }),
      rotation_strategy: p.rotation_strategy as 'round_robin',
      enabled: p.enabled === 1,
      failure_threshold: p.failure_threshold,
      cooldown_seconds: p.cooldown_seconds,
      max_cooldown_seconds: p.max_cooldown_seconds,
      all_down: p.all_down as 'soonest',
      max_attempts: p.max_attempts,
      retry_non_idempotent: p.retry_non_idempotent === 1,
      forward_client_auth: p.forward_client_auth === 1,
      forbidden_ttl_seconds: p.forbidden_ttl_seconds,
      cache_ttl_seconds: p.cache_ttl_seconds,
      cache_stale_seconds: p.cache_stale_seconds,
      max_wait_ms: p.max_wait_ms,
      deadline_ms: p.deadline_ms,
      retry_budget_percent: p.retry_budget_percent,
      retry_backoff_ms: p.retry_backoff_ms,
      ...(p.hedge_after_ms === 0 ? {} : { hedge_after_ms: p.hedge_after_ms }),
      protocol: p.protocol as 'http',
      finality_depth: p.finality_depth,
      cache_unfinalized_ms: p.cache_unfinalized_ms,
      head_check_interval_s: p.head_check_interval_s,
      max_block_lag: p.max_block_lag,
      broadcast_writes: p.broadcast_writes === 1,
      ws_ping_interval_ms: p.ws_ping_interval_ms,
      ws_replay: shownReplay(p.ws_replay),
      ws_max_streams: p.ws_max_streams,
      ws_max_streams_per_client: p.ws_max_streams_per_client,
      ws_max_message_bytes: p.ws_max_message_bytes,
      ws_send_buffer_bytes: p.ws_send_buffer_bytes,
      ws_idle_timeout_ms: p.ws_idle_timeout_ms,
      members: (members.get(p.id) ?? []).map((m) => ({
        provider: providerNames.get(m.provider_id) as string, priority: m.priority, weight: m.weight, enabled: m.enabled === 1
      }))
    }))
  }
}
