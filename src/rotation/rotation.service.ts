/**
 * Rotate and fail over (operations 9 and 10), and read the history (11).
 * Each rotation is one transaction that locks the pool's row first, so concurrent
 * rotations, in one process or several sharing a database, are serialised and
 * the strategy cursor, counters and history always agree.
 */
import type { Db, Dialect } from '../db/types.js'
import { NotFoundError } from '../errors.js'
import { listMembers, markMemberFailed, markMemberUsed, type MemberWithName } from '../pools/member.repository.js'
import { findPoolForRotation, recordPoolRotation, type PoolRow } from '../pools/pool.repository.js'
import { insertHistory, listHistory } from './history.repository.js'
import { toHistoryRecord } from './history.mapper.js'
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
  db: Db
  dialect: Dialect
  now: () => Date
  random?: () => number
}

/** Builds the rotation service. */
export function createRotationService ({ db, dialect, now, random = Math.random }: Deps) {
  /** Chooses among `eligible` and records the rotation on pool and member; undefined when none. */
  async function rotateWithin (trx: Db, pool: PoolRow, members: MemberWithName[], eligible: MemberWithName[], at: string) {
    const state = pruneRotationState(parseRotationState(pool.rotation_state), members.map((m) => m.id))
    const choice = chooseMember(pool.rotation_strategy as Strategy, eligible.map((m) => ({ ...m, member_id: m.id })), state, random)
    if (choice === undefined) return undefined
    const chosen = eligible.find((m) => m.id === choice.member_id) as MemberWithName
    await markMemberUsed(trx, chosen.id, at)
    await recordPoolRotation(trx, pool.id, { providerId: chosen.provider_id, at, state: JSON.stringify(choice.state) })
    return chosen
  }

  return {
    /** Moves the pool to its next available provider by its strategy. */
    async rotate (poolId: number, reason: string): Promise<Rotation> {
      return await db.transaction().execute(async (trx) => {
        const noneAvailable = new NotFoundError(`No available providers in pool ${poolId}`)
        const pool = await findPoolForRotation(trx, dialect, poolId)
        if (pool === undefined || pool.enabled === 0) throw noneAvailable
        const members = await listMembers(trx, poolId)
        const at = now().toISOString()
        const chosen = await rotateWithin(trx, pool, members, members.filter((m) => m.enabled === 1), at)
        if (chosen === undefined) throw noneAvailable
        if (pool.current_provider_id !== chosen.provider_id) {
          await insertHistory(trx, {
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
      const outcome = await db.transaction().execute(async (trx) => {
        const pool = await findPoolForRotation(trx, dialect, poolId)
        if (pool === undefined) return undefined
        const members = await listMembers(trx, poolId)
        const failed = members.find((m) => m.provider_id === failedProviderId)
        if (failed !== undefined) await markMemberFailed(trx, failed.id)
        const failedName = failed?.provider_name ?? null
        const at = now().toISOString()
        const eligible = pool.enabled === 1 ? members.filter((m) => m.enabled === 1 && m.provider_id !== failedProviderId) : []
        const chosen = await rotateWithin(trx, pool, members, eligible, at)
        await insertHistory(trx, {
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
        return chosen === undefined
          ? undefined
          : { providerId: chosen.provider_id, providerName: chosen.provider_name, timestamp: at, failedProviderName: failedName }
      })
      if (outcome === undefined) throw new NotFoundError(`No alternative providers available in pool ${poolId}`)
      return outcome
    },

    /** The newest `limit` history records; empty (not 404) for an unknown pool. */
    async history (poolId: number, limit: number): Promise<HistoryRecordValue[]> {
      return (await listHistory(db, poolId, limit)).map(toHistoryRecord)
    }
  }
}

export type RotationService = ReturnType<typeof createRotationService>
