/**
 * Member rules: a provider joins a pool once, with priority and weight defaulting
 * to 1; updates change only what is sent. Every failure of adding a member is
 * reported by the route as a 500 (the spec), so the sentences here must read well there.
 */
import type { Updateable } from 'kysely'
import { isUniqueViolation } from '../db/errors.js'
import type { PoolMemberTable } from '../db/types.js'
import type { WorkRunner } from '../db/work.js'
import { ConflictError, NotFoundError } from '../errors.js'
import { findProvider } from '../providers/provider.repository.js'
import { audited, type Actor } from '../audit/audit.js'
import * as repo from './member.repository.js'
import { findPool } from './pool.repository.js'
import type { AddMemberInput, UpdateMemberInput } from './pool.schemas.js'

const memberNotFound = (poolId: number) => new NotFoundError(`Member not found in pool ${poolId}`)
const target = (row: repo.MemberRow) => `pool:${row.pool_id}/provider:${row.provider_id}`

/** Builds the member service over the database's work runner and a clock. */
export function createMemberService ({ database, now }: { database: WorkRunner, now: () => Date }) {
  return {
    async addMember (poolId: number, input: AddMemberInput, actor: Actor): Promise<repo.MemberRow & { provider_name: string }> {
      const at = now()
      try {
        return await database.transact(function * (db) {
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
          return { ...member, provider_name: provider.name }
        })
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new ConflictError(`provider ${input.provider_id} is already a member of pool ${poolId}`)
        }
        throw error
      }
    },

    /** Changes only the fields present and not null. */
    async updateMember (poolId: number, providerId: number, input: UpdateMemberInput, actor: Actor): Promise<repo.MemberRow> {
      const changes: Updateable<PoolMemberTable> = {}
      if (input.priority != null) changes.priority = input.priority
      if (input.weight != null) changes.weight = input.weight
      if (input.enabled != null) changes.enabled = input.enabled ? 1 : 0
      const row = await database.transact((db) => Object.keys(changes).length === 0
        ? repo.findMember(db, poolId, providerId)
        : audited(db, actor, { action: 'member.update', target, changes: input, at: now() }, repo.updateMember(db, poolId, providerId, changes)))
      if (row === undefined) throw memberNotFound(poolId)
      return row
    },

    async removeMember (poolId: number, providerId: number, actor: Actor): Promise<repo.MemberRow> {
      const row = await database.transact((db) =>
        audited(db, actor, { action: 'member.remove', target, changes: {}, at: now() }, repo.deleteMember(db, poolId, providerId)))
      if (row === undefined) throw memberNotFound(poolId)
      return row
    }
  }
}

export type MemberService = ReturnType<typeof createMemberService>
