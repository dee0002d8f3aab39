/**
 * Rotate and fail over (operations 9 and 10), and read the history (11).
 * Each rotation is one transaction that locks the pool's row first, so concurrent
 * rotations, in one process or several sharing a database, are serialised and
 * the strategy cursor, counters and history always agree.
 */
import type { Db } from '../db/types.js'
import type { Work, WorkRunner } from '../db/work.js'
import { NotFoundError } from '../errors.js'
import { listMembers, markMemberFailed, markMemberUsed, type MemberWithName } from '../pools/member.repository.js'
import { findPoolForRotation, recordPoolRotation, type RotationPoolRow } from '../pools/pool.repository.js'
import { insertHistory, listHistory } from './history.repository.js'
import { toHistoryRecords } from './history.mapper.js'
import type { HistoryRecordValue } from './rotation.schemas.js'
import { chooseMember, parseRotationState, pruneRotationState, type Strategy } from './strategies.js'

export interface Rotation {
  readonly providerId: number
  readonly providerName: string | null
  readonly timestamp: string
}

export interface Failover extends Rotation {
  readonly failedProviderName: string | null
}

interface Deps {
  database: WorkRunner
  now: () => Date
  random?: () => number
}

const noneAvailable = (poolId: number) => new NotFoundError(`No available providers in pool ${poolId}`)

/** Builds the rotation service. */
export function createRotationService ({ database, now, random = Math.random }: Deps) {
  /** Chooses among `eligible` by the pool's strategy and records the use; undefined when none. */
  function * rotateWithin (
    db: Db, pool: RotationPoolRow, members: MemberWithName[], eligible: MemberWithName[], at: string
  ): Work<MemberWithName | undefined> {
    const state = pruneRotationState(parseRotationState(pool.rotation_state), members.map((m) => m.id))
    const candidates = eligible.map((m) => ({ member_id: m.id, priority: m.priority, weight: m.weight, use_count: m.use_count }))
    const choice = chooseMember(pool.rotation_strategy as Strategy, candidates, state, random)
    if (choice === undefined) return undefined
    const chosen = eligible.find((m) => m.id === choice.member_id) as MemberWithName
    yield * markMemberUsed(db, chosen.id, at)
    yield * recordPoolRotation(db, pool.id, { providerId: chosen.provider_id, at, state: JSON.stringify(choice.state) })
    return chosen
  }

  return {
    /** Moves the pool to its next available provider by its strategy. */
    async rotate (poolId: number, reason: string): Promise<Rotation> {
      return await database.transact(function * (db) {
        const pool = yield * findPoolForRotation(db, poolId)
        if (pool === undefined || pool.enabled === 0) throw noneAvailable(poolId)
        const members = yield * listMembers(db, poolId)
        // Read the clock inside the lock, so history timestamps follow commit order.
        const at = now().toISOString()
        const chosen = yield * rotateWithin(db, pool, members, members.filter((m) => m.enabled === 1), at)
        if (chosen === undefined) throw noneAvailable(poolId)
        if (pool.current_provider_id !== chosen.provider_id) {
          yield * insertHistory(db, {
            pool_id: poolId,
            from_provider_id: pool.current_provider_id,
            to_provider_id: chosen.provider_id,
            reason,
            success: 1,
            notes: null,
            timestamp: at
          })
        }
        return { providerId: chosen.provider_id, providerName: chosen.provider_name, timestamp: at }
      })
    },

    /**
     * Counts a failure of `failedProviderId` and moves the pool to another provider.
     * The failure and a history record are kept even when no alternative exists.
     */
    async failover (poolId: number, failedProviderId: number, reason: string): Promise<Failover> {
      const outcome = await database.transact(function * (db): Work<Failover | undefined> {
        const pool = yield * findPoolForRotation(db, poolId)
        if (pool === undefined) return undefined
        const members = yield * listMembers(db, poolId)
        const failed = members.find((m) => m.provider_id === failedProviderId)
        if (failed !== undefined) yield * markMemberFailed(db, failed.id)
        const at = now().toISOString()
        const eligible = pool.enabled === 1 ? members.filter((m) => m.enabled === 1 && m.provider_id !== failedProviderId) : []
        const chosen = yield * rotateWithin(db, pool, members, eligible, at)
        yield * insertHistory(db, {
          pool_id: poolId,
          from_provider_id: failedProviderId,
          to_provider_id: chosen?.provider_id ?? null,
          reason,
          success: chosen === undefined ? 0 : 1,
          notes: chosen === undefined
            ? `Provider ${failedProviderId} failed; no alternative provider was available`
            : `Failover from failed provider ${failedProviderId}`,
          timestamp: at
        })
        if (chosen === undefined) return undefined
        return { providerId: chosen.provider_id, providerName: chosen.provider_name, timestamp: at, failedProviderName: failed?.provider_name ?? null }
      })
      if (outcome === undefined) throw new NotFoundError(`No alternative providers available in pool ${poolId}`)
      return outcome
    },

    /** The newest `limit` history records; empty (not 404) for an unknown pool. */
    async history (poolId: number, limit: number): Promise<HistoryRecordValue[]> {
      return await database.read(function * (db) {
        return yield * toHistoryRecords(db, yield * listHistory(db, poolId, limit))
      })
    }
  }
}

export type RotationService = ReturnType<typeof createRotationService>
