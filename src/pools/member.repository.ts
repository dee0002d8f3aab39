/**
 * Pool member rows, read together with their provider's name: plain generator
 * functions taking the query builder first (db/work.ts).
 */
import type { Insertable, Selectable, Updateable } from 'kysely'
import { prepared } from '../db/prepared.js'
import type { Db, PoolMemberTable } from '../db/types.js'
import { all, execute, first, type Work } from '../db/work.js'

export type MemberRow = Selectable<PoolMemberTable>
/** A member with what rotation needs of its provider: the name and the quota state. */
export type MemberWithName = MemberRow & {
  provider_name: string | null
  rate_limit_requests: number | null
  /** What the quota counts: `requests` or `credits` (rules/quota.ts). */
  rate_limit_unit: string
  rate_limit_per: string | null
  quota_window_start: string | null
  quota_used: number
  base_url: string | null
  /** The provider's WebSocket URL, or null: streams go to base_url with ws:// or wss:// (streams/). */
  ws_url: string | null
  timeout_ms: number | null
  auth_headers: string | null
  /** The provider's health check (JSON, its `path` first): a 401/402 on that path is our key rejected (rules/credential-refusal.ts). */
  health_check: string | null
  /** The provider's last health check (JSON), shown on each of its members. */
  last_check: string | null
  /** The methods an RPC pool sends the provider (JSON, rules/rpc-methods.ts), null for every one. */
  methods: string | null
  /** The most calls of a client batch an RPC pool sends the provider as one upstream batch (proxy/rpc-batch-group.ts). */
  max_batch_size: number
  /** When the provider was last changed through the API or pools as code: a refusal of batches learned before is forgotten (proxy/rpc-batch-refusals.ts). */
  provider_updated_at: string
  /** What each JSON-RPC method costs in credits (JSON, rules/method-costs.ts), null for 1 each. */
  method_costs: string | null
}

function selectMembersWithNames (db: Db) {
  return db.selectFrom('pool_members')
    .innerJoin('providers', 'providers.id', 'pool_members.provider_id')
    .selectAll('pool_members')
    .select([
      'providers.name as provider_name',
      'providers.rate_limit_requests',
      'providers.rate_limit_unit',
      'providers.rate_limit_per',
      'providers.quota_window_start',
      'providers.quota_used',
      'providers.base_url',
      'providers.ws_url',
      'providers.timeout_ms',
      'providers.auth_headers',
      'providers.health_check',
      'providers.last_check',
      'providers.methods',
      'providers.max_batch_size',
      'providers.updated_at as provider_updated_at',
      'providers.method_costs'
    ])
}

/** Inserts a member and returns its row. */
export function * insertMember (db: Db, row: Insertable<PoolMemberTable>): Work<MemberRow> {
  return (yield * first(db.insertInto('pool_members').values(row).returningAll())) as MemberRow
}

const selectMembersOfPool = prepared((db, p: { poolId: number }) =>
  selectMembersWithNames(db).where('pool_members.pool_id', '=', p.poolId).orderBy('pool_members.id'))

/** The members of one pool, by member id. */
export function * listMembers (db: Db, poolId: number): Work<MemberWithName[]> {
  return yield * all(selectMembersOfPool(db, { poolId }))
}

/** What a pool's status record shows of a member (pool-status.ts), and no more: its list is read for every pool the list rebuilds. */
export type MemberStatusRow = Pick<MemberWithName, 'id' | 'provider_id' | 'provider_name' | 'priority' | 'weight' | 'enabled' |
'use_count' | 'success_count' | 'failure_count' | 'last_used' | 'cooldown_until' | 'cooldown_reason' | 'consecutive_failures' |
'latency_ms' | 'rate_limit_requests' | 'rate_limit_unit' | 'rate_limit_per' | 'quota_window_start' | 'quota_used' | 'last_check'>

const selectMemberStatusesOfPool = prepared((db, p: { poolId: number }) => db.selectFrom('pool_members')
  .innerJoin('providers', 'providers.id', 'pool_members.provider_id')
  .select([
    'pool_members.id', 'pool_members.provider_id', 'providers.name as provider_name', 'pool_members.priority', 'pool_members.weight',
    'pool_members.enabled', 'pool_members.use_count', 'pool_members.success_count', 'pool_members.failure_count', 'pool_members.last_used',
    'pool_members.cooldown_until', 'pool_members.cooldown_reason', 'pool_members.consecutive_failures', 'pool_members.latency_ms',
    'providers.rate_limit_requests', 'providers.rate_limit_unit', 'providers.rate_limit_per', 'providers.quota_window_start', 'providers.quota_used',
    'providers.last_check'
  ])
  .where('pool_members.pool_id', '=', p.poolId).orderBy('pool_members.id'))

/** The members of one pool as its status record shows them, by member id. */
export function * listMemberStatuses (db: Db, poolId: number): Work<MemberStatusRow[]> {
  return yield * all(selectMemberStatusesOfPool(db, { poolId }))
}

/** The member addressed by (pool, provider), or undefined. */
export function * findMember (db: Db, poolId: number, providerId: number): Work<MemberRow | undefined> {
  return yield * first(db.selectFrom('pool_members').selectAll()
    .where('pool_id', '=', poolId).where('provider_id', '=', providerId))
}

/** Applies `changes` to the member; returns the new row or undefined. */
export function * updateMember (
  db: Db, poolId: number, providerId: number, changes: Updateable<PoolMemberTable>
): Work<MemberRow | undefined> {
  return yield * first(db.updateTable('pool_members').set(changes)
    .where('pool_id', '=', poolId).where('provider_id', '=', providerId)
    .returningAll())
}

const updateMemberUsed = prepared((db, p: { memberId: number, at: string }) =>
  db.updateTable('pool_members')
    .set((eb) => ({ use_count: eb('use_count', '+', 1), last_used: p.at }))
    .where('id', '=', p.memberId))

/** Counts one use of a member at `at`. */
export function * markMemberUsed (db: Db, memberId: number, at: string): Work<void> {
  yield * execute(updateMemberUsed(db, { memberId, at }))
}

/** One member with its provider's name and quota state, or undefined. */
export function * findMemberWithName (db: Db, poolId: number, providerId: number): Work<MemberWithName | undefined> {
  return yield * first(selectMemberWithName(db, { poolId, providerId }))
}

const selectMemberWithName = prepared((db, p: { poolId: number, providerId: number }) =>
  selectMembersWithNames(db).where('pool_members.pool_id', '=', p.poolId).where('pool_members.provider_id', '=', p.providerId))

export interface HealthUpdate extends Pick<MemberRow, 'consecutive_failures' | 'cooldown_trips' | 'cooldown_until' | 'cooldown_reason' | 'latency_ms' | 'last_error'> {
  /** 1 to count a success, else 0. */
  successes: number
  /** 1 to count a failure, else 0. */
  failures: number
}

/** Stores a member's new health state and counts the outcome. */
export function * updateMemberHealth (db: Db, memberId: number, update: HealthUpdate): Work<void> {
  yield * execute(updateHealth(db, { memberId, ...update }))
}

const updateHealth = prepared((db, p: HealthUpdate & { memberId: number }) => db.updateTable('pool_members')
  .set((eb) => ({
    consecutive_failures: p.consecutive_failures,
    cooldown_trips: p.cooldown_trips,
    cooldown_until: p.cooldown_until,
    cooldown_reason: p.cooldown_reason,
    latency_ms: p.latency_ms,
    last_error: p.last_error,
    success_count: eb('success_count', '+', p.successes),
    failure_count: eb('failure_count', '+', p.failures)
  }))
  .where('id', '=', p.memberId))

/** Removes the member; returns the deleted row or undefined. */
export function * deleteMember (db: Db, poolId: number, providerId: number): Work<MemberRow | undefined> {
  return yield * first(db.deleteFrom('pool_members')
    .where('pool_id', '=', poolId).where('provider_id', '=', providerId)
    .returningAll())
}

/** The pools each of `providerIds` is a member of, by pool. */
export function * listPoolsOfProviders (db: Db, providerIds: readonly number[]): Work<Array<{ pool_id: number, provider_id: number }>> {
  if (providerIds.length === 0) return []
  return yield * all(db.selectFrom('pool_members').select(['pool_id', 'provider_id'])
    .where('provider_id', 'in', providerIds).orderBy('pool_id').orderBy('provider_id'))
}

/** The cooldown end of every member (for counting members by health). */
export function * listCooldowns (db: Db): Work<Array<Pick<MemberRow, 'cooldown_until'>>> {
  return yield * all(db.selectFrom('pool_members').select('cooldown_until'))
}
