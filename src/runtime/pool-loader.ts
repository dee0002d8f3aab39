/**
 * Reading a pool into the runtime's state (runtime-state.ts): its row, its members
 * and their refusals in force in one read, with what this process has not written
 * down yet applied on top (counters, health, refusals learned), and the strategy's
 * cursor kept across reads (per-process strategies). One read at a time per pool; a
 * pool marked stale is read again before its next choice.
 */
import type { WorkRunner } from '../db/work.js'
import { listMembers } from '../pools/member.repository.js'
import { refusesCredentials } from '../rules/credential-refusal.js'
import { parseRotationState } from '../rules/strategies.js'
import type { PendingRefusal, PendingView } from './batch.js'
import type { Member, PoolState, RuntimeState } from './runtime-state.js'
import { findRuntimePool, listActiveRefusals, type HealthWrite } from './runtime.repository.js'

interface Deps {
  database: WorkRunner
  now: () => Date
  memory: Pick<RuntimeState, 'pools' | 'unwritten'>
  /** Resolves when no flush is under way (flush-loop.ts). */
  idle: () => Promise<void>
}

/** Builds `stateOf(poolId)`: the pool as kept here, read (again) when unknown or stale; undefined when there is no such pool. */
export function createPoolLoader ({ database, now, memory, idle }: Deps): (poolId: number) => Promise<PoolState | undefined> {
  const { pools } = memory
  const loading = new Map<number, Promise<PoolState | undefined>>()

  async function load (poolId: number): Promise<PoolState | undefined> {
    // A flush under way holds deltas the database may or may not have yet: wait for it.
    await idle()
    const at = now().toISOString()
    // Refusals learned here and not written down yet: those pending now (a flush may
    // write them while the read runs, after its refusal query) and those after the read.
    const unwritten = refusalsIn(memory.unwritten())
    const read = await database.read(function * (db) {
      const pool = yield * findRuntimePool(db, poolId)
      if (pool === undefined) return undefined
      const members = yield * listMembers(db, poolId)
      const refusals = yield * listActiveRefusals(db, members.map((m) => m.provider_id), at)
      return { pool, members, refusals }
    })
    if (read === undefined) {
      pools.delete(poolId)
      return undefined
    }
    const before = pools.get(poolId)
    const members = withPending(poolId, read.members as Member[], at, memory.unwritten())
    const refusals = new Map<number, Map<string, string>>()
    const rejections = new Map<number, Map<string, string>>()
    for (const r of read.refusals) keepRefusal(refusesCredentials(r.status_code) ? rejections : refusals, r.provider_id, r.resource, r.expires_at)
    // Refusals learned here and not written down yet are as true as those read.
    const providerIds = new Set(members.map((m) => m.provider_id))
    for (const r of [...unwritten, ...refusalsIn(memory.unwritten())]) {
      if (!providerIds.has(r.providerId) || r.expiresAt <= at) continue
      keepRefusal(refusesCredentials(r.statusCode) ? rejections : refusals, r.providerId, r.resource, r.expiresAt)
    }
    // The cursor is this process's own (per-process strategies): kept across reloads.
    const cursor = before?.cursor ?? parseRotationState(read.pool.rotation_state)
    const state: PoolState = { pool: read.pool, members, cursor, refusals, rejections, stale: false }
    pools.set(poolId, state)
    return state
  }

  return async function stateOf (poolId: number): Promise<PoolState | undefined> {
    const known = pools.get(poolId)
    if (known !== undefined && !known.stale) return known
    let promise = loading.get(poolId)
    if (promise === undefined) {
      promise = load(poolId).finally(() => loading.delete(poolId))
      loading.set(poolId, promise)
    }
    return await promise
  }
}

/** The refusals learned in `unwritten`, in order. */
function refusalsIn (unwritten: readonly PendingView[]): PendingRefusal[] {
  return unwritten.flatMap((u) => u.refusals)
}

/** Applies what this process has not written down yet to members read from the database. */
function withPending (poolId: number, members: Member[], at: string, unwritten: readonly PendingView[]): Member[] {
  for (const batch of unwritten) {
    for (const m of members) {
      const delta = batch.members.get(m.id)
      if (delta === undefined || delta.poolId !== poolId) continue
      m.use_count += delta.uses
      m.success_count += delta.successes
      m.failure_count += delta.failures
      if (delta.lastUsed !== null && (m.last_used === null || m.last_used < delta.lastUsed)) m.last_used = delta.lastUsed
      if (delta.health !== null) mergeHealth(m, delta.health, at)
    }
  }
  return members
}

/**
 * Health this process saw and has not written down, merged into a member read from
 * the database by the rule the flush writes it with (writeMemberDelta): a cooldown
 * seen here stands unless the stored one ends later; a cooldown seen ending here is
 * cleared only when the stored one has ended too, or is the one a probe here ended
 * early — one started since by another process or a health check stays.
 */
function mergeHealth (member: Member, health: HealthWrite, at: string): void {
  member.consecutive_failures = health.consecutive_failures
  member.cooldown_trips = health.cooldown_trips
  member.latency_ms = health.latency_ms
  member.last_error = health.last_error
  const endedHere = member.cooldown_until !== null && member.cooldown_until === health.ended_cooldown
  if (health.cooldown_until !== null) {
    if (member.cooldown_until === null || member.cooldown_until < health.cooldown_until || endedHere) {
      member.cooldown_until = health.cooldown_until
      member.cooldown_reason = health.cooldown_reason
    }
  } else if (member.cooldown_until !== null && (member.cooldown_until <= at || endedHere)) {
    member.cooldown_until = null
    member.cooldown_reason = null
  }
}

/** Records that the provider refuses `resource` until `expiresAt`, keeping the later end when one is known. */
function keepRefusal (refusals: Map<number, Map<string, string>>, providerId: number, resource: string, expiresAt: string): void {
  let byResource = refusals.get(providerId)
  if (byResource === undefined) refusals.set(providerId, byResource = new Map())
  const known = byResource.get(resource)
  if (known === undefined || known < expiresAt) byResource.set(resource, expiresAt)
}
