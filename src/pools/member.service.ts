/**
 * Member rules: a provider joins a pool once, with priority and weight defaulting
 * to 1; updates change only what is sent. Every failure of adding a member is
 * reported by the route as a 500 (the spec), so the sentences here must read well there.
 * Every write bumps the pool's change_seq in its transaction and tells the change
 * feed once it has committed.
 */
import type { Updateable } from 'kysely'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { isUniqueViolation } from '../db/errors.js'
import type { PoolMemberTable } from '../db/types.js'
import type { WorkRunner } from '../db/work.js'
import { ConflictError, NotFoundError } from '../errors.js'
import { findProvider } from '../providers/provider.repository.js'
import { audited, type Actor } from '../audit/audit.js'
import * as repo from './member.repository.js'
import { findPool, touchPool } from './pool.repository.js'
import type {
  AddMemberInput, MemberAddedValue, MemberRemovedValue, MemberUpdatedValue, UpdateMemberInput
} from './pool.schemas.js'

const memberNotFound = (poolId: number) => new NotFoundError(`Member not found in pool ${poolId}`)
const target = (row: repo.MemberRow) => `pool:${row.pool_id}/provider:${row.provider_id}`

/** Builds the member service over the database's work runner, a clock and the change feed. */
export function createMemberService ({ database, now, changes = NO_CHANGES }: { database: WorkRunner, now: () => Date, changes?: ChangeFeed }) {
  return {
    async addMember (poolId: number, input: AddMemberInput, actor: Actor): Promise<MemberAddedValue> {
      const at = now()
      let member: repo.MemberRow & { provider_name: string }
      try {
        member = await database.transact(function * (db) {
          if ((yield * findPool(db, poolId)) === undefined) throw new NotFoundError(`pool ${poolId} does not exist`)
          const provider = yield * findProvider(db, input.provider_id)
          if (provider === undefined) throw new NotFoundError(`provider ${input.provider_id} does not exist`)
          const member = (yield * audited(db, actor, { action: 'member.add', target, changes: input, at }, repo.insertMember(db, {
            pool_id: poolId,
            provider_id: input.provider_id,
            priority: input.priority ?? 1,
            weight: input.weight ?? 1,
            enabled: 1,
            last_used: null,
            created_at: at.toISOString()
          }))) as repo.MemberRow
          yield * touchPool(db, poolId)
          return { ...member, provider_name: provider.name }
        })
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new ConflictError(`provider ${input.provider_id} is already a member of pool ${poolId}`)
        }
        throw error
      }
      changes.pool(poolId)
      return {
        member_id: member.id,
        pool_id: member.pool_id,
        provider_id: member.provider_id,
        provider_name: member.provider_name,
        priority: member.priority,
        weight: member.weight,
        message: `Provider '${member.provider_name}' added to pool ${member.pool_id}`
      }
    },

    /** Changes only the fields present and not null. */
    async updateMember (poolId: number, providerId: number, input: UpdateMemberInput, actor: Actor): Promise<MemberUpdatedValue> {
      const fields: Updateable<PoolMemberTable> = {}
      if (input.priority != null) fields.priority = input.priority
      if (input.weight != null) fields.weight = input.weight
      if (input.enabled != null) fields.enabled = input.enabled ? 1 : 0
      const changed = Object.keys(fields).length > 0
      const member = await database.transact(function * (db) {
        if (!changed) return yield * repo.findMember(db, poolId, providerId)
        // The pool's row first: rotations lock it before its members (the same order, no deadlock).
        yield * touchPool(db, poolId)
        return yield * audited(db, actor, { action: 'member.update', target, changes: input, at: now() }, repo.updateMember(db, poolId, providerId, fields))
      })
      if (member === undefined) throw memberNotFound(poolId)
      if (changed) changes.pool(poolId)
      return {
        pool_id: member.pool_id,
        provider_id: member.provider_id,
        priority: member.priority,
        weight: member.weight,
        enabled: member.enabled === 1,
        message: `Member ${providerId} of pool ${poolId} updated successfully`
      }
    },

    async removeMember (poolId: number, providerId: number, actor: Actor): Promise<MemberRemovedValue> {
      const member = await database.transact(function * (db) {
        // The pool's row first: rotations lock it before its members (the same order, no deadlock).
        yield * touchPool(db, poolId)
        return yield * audited(db, actor, { action: 'member.remove', target, changes: {}, at: now() }, repo.deleteMember(db, poolId, providerId))
      })
      if (member === undefined) throw memberNotFound(poolId)
      changes.pool(poolId)
      return { message: `Provider ${providerId} removed from pool ${poolId}`, pool_id: poolId, provider_id: providerId }
    }
  }
}

export type MemberService = ReturnType<typeof createMemberService>
