/**
 * The plan that turns what is stored into a declared state (checked and in stored
 * form by declared.desired.ts): creates and updates field by field, deletes only
 * with `prune`. Objects are matched by name (members by pool and provider name).
 * Equal means equal as stored, so applying a state twice changes nothing the
 * second time.
 */
import type { MemberRow } from '../pools/member.repository.js'
import type { PoolRow } from '../pools/pool.repository.js'
import { STREAM_FIELDS, type StoredPool } from '../pools/pool.rules.js'
import type { ProviderRow } from '../providers/provider.repository.js'
import { shownRateLimit, type StoredProvider } from '../providers/provider.rules.js'
import { DEFAULT_BATCH_SIZE } from '../rules/jsonrpc-batch.js'
import { shownReplay } from '../rules/stream-settings.js'
import { CHANGED_MASK, MASK, shownWithChanges } from '../rules/secrets.js'
import { atOnce, type Desired, type DesiredMember, type DesiredPool } from './declared.desired.js'
import type { ChangeValue } from './declared.schemas.js'

// The checked state's type, still imported from here too (main.ts).
export type { Desired } from './declared.desired.js'

/** What is stored now. */
export interface Current {
  readonly providers: readonly ProviderRow[]
  readonly pools: readonly PoolRow[]
  readonly members: ReadonlyArray<Pick<MemberRow, 'id' | 'pool_id' | 'provider_id' | 'priority' | 'weight' | 'enabled'>>
}

/** One step of a plan, with what applying it needs. */
export type Step =
  | { readonly kind: 'provider', readonly action: 'create', readonly desired: StoredProvider }
  | { readonly kind: 'provider', readonly action: 'update', readonly id: number, readonly desired: StoredProvider, readonly current: ProviderRow }
  | { readonly kind: 'provider', readonly action: 'delete', readonly id: number, readonly current: ProviderRow }
  | { readonly kind: 'pool', readonly action: 'create', readonly desired: DesiredPool }
  | { readonly kind: 'pool', readonly action: 'update', readonly id: number, readonly desired: DesiredPool, readonly current: PoolRow }
  | { readonly kind: 'pool', readonly action: 'delete', readonly id: number, readonly current: PoolRow }
  | { readonly kind: 'member', readonly action: 'create', readonly pool: string, readonly desired: DesiredMember }
  | { readonly kind: 'member', readonly action: 'update', readonly id: number, readonly pool: string, readonly desired: DesiredMember, readonly current: Current['members'][number] }
  | { readonly kind: 'member', readonly action: 'delete', readonly id: number, readonly pool: string, readonly provider: string, readonly poolId: number, readonly providerId: number }

/** Credential headers as shown in a plan: names, values masked (every value is a credential); a changed value says so. */
function shownHeaders (stored: string | null | undefined, other: string | null | undefined): Record<string, string> | null {
  if (stored == null) return null
  const mine = JSON.parse(stored) as Record<string, string>
  const theirs = other == null ? {} : JSON.parse(other) as Record<string, string>
  return Object.fromEntries(Object.keys(mine).sort().map((name) => [name, name in theirs && theirs[name] !== mine[name] ? CHANGED_MASK : MASK]))
}

/** Credential headers in a form that compares equal whatever the order of their names. */
function headerKey (stored: string | null | undefined): string {
  if (stored == null) return 'null'
  return JSON.stringify(Object.entries(JSON.parse(stored) as Record<string, string>).sort(([a], [b]) => a.localeCompare(b)))
}

type ProviderFields = Pick<StoredProvider, 'category' | 'base_url' | 'ws_url' | 'description' | 'rate_limit_requests' | 'rate_limit_unit' | 'rate_limit_per' | 'timeout_ms' |
'auth_headers' | 'health_check' | 'methods' | 'max_logs_range' | 'max_batch_size' | 'method_costs'>

/**
 * A provider's fields as they are compared (sameProvider): as stored, but for the
 * credential headers, compared by headerKey (`other`: what they are compared with).
 * Never shown: a plan shows shownProvider.
 */
function providerView (p: ProviderFields, other: ProviderFields | null): Record<string, unknown> {
  return {
    category: p.category ?? null,
    base_url: p.base_url ?? null,
    ws_url: p.ws_url ?? null,
    description: p.description ?? null,
    rate_limit: shownRateLimit({ rate_limit_requests: p.rate_limit_requests ?? null, rate_limit_unit: p.rate_limit_unit, rate_limit_per: p.rate_limit_per ?? null }),
    timeout_ms: p.timeout_ms ?? null,
    auth_headers: shownHeaders(p.auth_headers, other?.auth_headers),
    health_check: p.health_check == null ? null : JSON.parse(p.health_check),
    methods: p.methods == null ? null : JSON.parse(p.methods),
    max_logs_range: p.max_logs_range ?? null,
    max_batch_size: p.max_batch_size ?? DEFAULT_BATCH_SIZE,
    // Compared whatever the order of their keys (the order never changes a cost).
    method_costs: p.method_costs == null ? null : Object.fromEntries(Object.entries(JSON.parse(p.method_costs) as Record<string, number>).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0))
  }
}

/**
 * A provider's fields as a plan shows them: every credential masked by the one rule
 * (rules/secrets.ts) — header values, and in the base and WebSocket URLs and the check's path the
 * userinfo's password and secret-looking query values — the rest as stored; against
 * `other` (the `from` side of an update) a credential whose value changes reads
 * `*** (changed)`.
 */
function shownProvider (p: ProviderFields, other: ProviderFields | null): Record<string, unknown> {
  const check = p.health_check == null ? null : JSON.parse(p.health_check) as { path: string }
  const otherPath = other?.health_check == null ? null : (JSON.parse(other.health_check) as { path: string }).path
  return {
    ...providerView(p, other),
    base_url: p.base_url == null ? null : shownWithChanges(p.base_url, other?.base_url),
    ws_url: p.ws_url == null ? null : shownWithChanges(p.ws_url, other?.ws_url),
    health_check: check === null ? null : { ...check, path: shownWithChanges(check.path, otherPath) }
  }
}

const POOL_FIELDS = ['category', 'description', 'rotation_strategy', 'enabled', 'failure_threshold', 'cooldown_seconds', 'max_cooldown_seconds',
  'all_down', 'max_attempts', 'retry_non_idempotent', 'forward_client_auth', 'forbidden_ttl_seconds', 'cache_ttl_seconds', 'cache_stale_seconds',
  'max_wait_ms', 'deadline_ms', 'retry_budget_percent', 'retry_backoff_ms', 'hedge_after_ms', 'protocol',
  'finality_depth', 'cache_unfinalized_ms', 'head_check_interval_s', 'max_block_lag', 'broadcast_writes', ...STREAM_FIELDS] as const
const FLAGS = new Set<string>(['enabled', 'retry_non_idempotent', 'forward_client_auth', 'broadcast_writes'])

/** A pool's field as a plan shows and compares it: flags as booleans, `ws_replay` as the API answers it (a count as a number), absent as null. */
function poolField (p: Pick<StoredPool, typeof POOL_FIELDS[number]>, field: typeof POOL_FIELDS[number]): unknown {
  if (FLAGS.has(field)) return p[field] === 1
  if (field === 'ws_replay' && p.ws_replay != null) return shownReplay(p.ws_replay)
  return p[field] ?? null
}

function poolView (p: Pick<StoredPool, typeof POOL_FIELDS[number]>): Record<string, unknown> {
  return Object.fromEntries(POOL_FIELDS.map((field) => [field, poolField(p, field)]))
}

function memberView (m: Pick<DesiredMember, 'priority' | 'weight' | 'enabled'>): Record<string, unknown> {
  return { priority: m.priority, weight: m.weight, enabled: m.enabled === 1 }
}

/** The fields of `to` that differ from `from` (all of them against null). */
function diff (from: Record<string, unknown> | null, to: Record<string, unknown> | null): ChangeValue['fields'] {
  const fields: ChangeValue['fields'] = {}
  for (const key of Object.keys(to ?? from ?? {})) {
    const before = from?.[key] ?? null
    const after = to?.[key] ?? null
    if (JSON.stringify(before) !== JSON.stringify(after)) fields[key] = { from: before, to: after }
  }
  return fields
}

/** A field as `diff` compares it: null and absent alike, objects by their JSON text. */
function sameField (a: unknown, b: unknown): boolean {
  const [from, to] = [a ?? null, b ?? null]
  if (from === to) return true
  return typeof from === 'object' && typeof to === 'object' && JSON.stringify(from) === JSON.stringify(to)
}

/** True when `diff(from, to)` would find nothing, without building it. */
function sameView (from: Record<string, unknown>, to: Record<string, unknown>): boolean {
  for (const key of Object.keys(to)) if (!sameField(from[key], to[key])) return false
  return true
}

/** True when `diff(poolView(a), poolView(b))` would find nothing (every pool field is a plain value). */
function samePool (a: Pick<StoredPool, typeof POOL_FIELDS[number]>, b: Pick<StoredPool, typeof POOL_FIELDS[number]>): boolean {
  for (const field of POOL_FIELDS) if (poolField(a, field) !== poolField(b, field)) return false
  return true
}

/** True when `diff(memberView(a), memberView(b))` would find nothing. */
function sameMember (a: Pick<DesiredMember, 'priority' | 'weight' | 'enabled'>, b: Pick<DesiredMember, 'priority' | 'weight' | 'enabled'>): boolean {
  return a.priority === b.priority && a.weight === b.weight && (a.enabled === 1) === (b.enabled === 1)
}

/** True when a stored provider already is what is declared. */
function sameProvider (current: ProviderRow, desired: StoredProvider): boolean {
  return headerKey(current.auth_headers) === headerKey(desired.auth_headers) &&
    sameView(providerView(current, null), providerView(desired, null))
}

type StoredMember = Current['members'][number]

/** The stored memberships of each pool by provider name, by pool id: one pass over them all. */
function membersByPool (current: Current, providerNames: ReadonlyMap<number, string>): Map<number, Map<string, StoredMember>> {
  const byPool = new Map<number, Map<string, StoredMember>>()
  for (const m of current.members) {
    let members = byPool.get(m.pool_id)
    if (members === undefined) byPool.set(m.pool_id, members = new Map())
    members.set(providerNames.get(m.provider_id) as string, m)
  }
  return byPool
}

/** Pools planned per piece of `planning`: about a millisecond's work. */
const PLANNED_PER_PIECE = 500

/**
 * The steps that make `current` what `desired` declares, creates and updates first,
 * deletes last. Linear in the size of both states: memberships are indexed by pool
 * once, and compared without building the diff a plan shows.
 */
export function planSteps (current: Current, desired: Desired): Step[] {
  return atOnce(planning(current, desired))
}

/**
 * planSteps a piece at a time: yields (nothing) after every PLANNED_PER_PIECE pools,
 * so that a plan of thousands of pools can let the event loop turn (db/work.ts
 * `paced`, or `breathing` inside a unit of work).
 */
export function * planning (current: Current, desired: Desired): Generator<void, Step[], void> {
  const steps: Step[] = []
  const providers = new Map(current.providers.map((p) => [p.name, p]))
  const providerNames = new Map(current.providers.map((p) => [p.id, p.name]))
  const pools = new Map(current.pools.map((p) => [p.name, p]))
  const storedMembers = membersByPool(current, providerNames)
  for (const p of desired.providers) {
    const stored = providers.get(p.name)
    if (stored === undefined) steps.push({ kind: 'provider', action: 'create', desired: p })
    else if (!sameProvider(stored, p)) steps.push({ kind: 'provider', action: 'update', id: stored.id, desired: p, current: stored })
  }
  const deletes: Step[] = []
  for (const [i, p] of desired.pools.entries()) {
    if (i % PLANNED_PER_PIECE === PLANNED_PER_PIECE - 1) yield
    const stored = pools.get(p.name)
    if (stored === undefined) steps.push({ kind: 'pool', action: 'create', desired: p })
    else if (!samePool(stored, p)) steps.push({ kind: 'pool', action: 'update', id: stored.id, desired: p, current: stored })
    // Its own copy: what is left once the declared members are taken out is what prune deletes.
    const members = new Map(stored === undefined ? undefined : storedMembers.get(stored.id))
    for (const m of p.members) {
      const member = members.get(m.provider)
      if (member === undefined) steps.push({ kind: 'member', action: 'create', pool: p.name, desired: m })
      else if (!sameMember(member, m)) steps.push({ kind: 'member', action: 'update', id: member.id, pool: p.name, desired: m, current: member })
      members.delete(m.provider)
    }
    if (desired.prune && stored !== undefined) {
      for (const [provider, m] of members) deletes.push({ kind: 'member', action: 'delete', id: m.id, pool: p.name, provider, poolId: stored.id, providerId: m.provider_id })
    }
  }
  if (desired.prune) {
    const declaredPools = new Set(desired.pools.map((p) => p.name))
    for (const p of current.pools) if (!declaredPools.has(p.name)) deletes.push({ kind: 'pool', action: 'delete', id: p.id, current: p })
    const declaredProviders = new Set(desired.providers.map((p) => p.name))
    for (const p of current.providers) if (!declaredProviders.has(p.name)) deletes.push({ kind: 'provider', action: 'delete', id: p.id, current: p })
  }
  return [...steps, ...deletes]
}

/** A step as a plan shows it (and its audit record records it): credentials masked (shownProvider). */
export function describeStep (step: Step): ChangeValue {
  switch (step.kind) {
    case 'provider':
      return {
        kind: 'provider',
        action: step.action,
        name: step.action === 'create' ? step.desired.name : step.current.name,
        fields: step.action === 'create'
          ? diff(null, shownProvider(step.desired, null))
          : step.action === 'update' ? diff(shownProvider(step.current, null), shownProvider(step.desired, step.current)) : {}
      }
    case 'pool':
      return {
        kind: 'pool',
        action: step.action,
        name: step.action === 'create' ? step.desired.name : step.current.name,
        fields: step.action === 'create' ? diff(null, poolView(step.desired)) : step.action === 'update' ? diff(poolView(step.current), poolView(step.desired)) : {}
      }
    case 'member':
      return {
        kind: 'member',
        action: step.action,
        name: `${step.pool}/${step.action === 'delete' ? step.provider : step.desired.provider}`,
        fields: step.action === 'create' ? diff(null, memberView(step.desired)) : step.action === 'update' ? diff(memberView(step.current), memberView(step.desired)) : {}
      }
  }
}
