/**
 * Member rules: a provider joins a pool once, with priority and weight defaulting
 * to 1; updates change only what is sent. Every failure of adding a member is
 * reported by the route as a 500 (the spec), so the sentences here must read well there.
 * Every write declares the pool touched in its unit of work (db/unit-of-work.ts):
 * its change_seq is bumped in the transaction, the change feed told once it commits.
 */
import type { Updateable } from 'kysely'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { isUniqueViolation } from '../db/errors.js'
import type { Db, PoolMemberTable } from '../db/types.js'
import { touched, unitOfWork } from '../db/unit-of-work.js'
import type { Work, WorkRunner } from '../db/work.js'
import { ConflictError, NotFoundError } from '../errors.js'
import { findProvider } from '../providers/provider.repository.js'
import { audited, type Actor, type Change } from '../audit/audit.js'
import * as repo from './member.repository.js'
import { findPool } from './pool.repository.js'
import type {
  AddMemberInput, MemberAddedValue, MemberRemovedValue, MemberUpdatedValue, UpdateMemberInput
} from './pool.schemas.js'

const memberNotFound = (poolId: number) => new NotFoundError(`Member not found in pool ${poolId}`)
const target = (row: repo.MemberRow) => `pool:${row.pool_id}/provider:${row.provider_id}`
const entry = (action: string, { changes, at }: Change) => ({ action, target, changes, at })

/** What a member is added with. */
export interface NewMember {
  readonly priority: number
  readonly weight: number
  readonly enabled: number
}

// The write rules, as units of work that compose in one transaction: the service's
// methods run each in its own, an apply of declared state (declared/) runs many in one.
// The pool's row is touched before its members are written: rotations lock it first
// (the same order, no deadlock).

/** Adds the provider to the pool; 404 when either does not exist, a unique violation when it is a member already. */
export function * addMemberWork (db: Db, poolId: number, providerId: number, member: NewMember, change: Change): Work<repo.MemberRow & { provider_name: string }> {
  if ((yield * findPool(db, poolId)) === undefined) throw new NotFoundError(`pool ${poolId} does not exist`)
  const provider = yield * findProvider(db, providerId)
  if (provider === undefined) throw new NotFoundError(`provider ${providerId} does not exist`)
  yield * touched(db, { pools: [poolId] })
  const row = (yield * audited(db, change.actor, entry('member.add', change), repo.insertMember(db, {
    pool_id: poolId,
    provider_id: providerId,
    ...member,
    last_used: null,
    created_at: change.at.toISOString()
  }))) as repo.MemberRow
  return { ...row, provider_name: provider.name }
}

/** Changes the member's `fields`; 404 (nothing written) when the pair does not exist. */
export function * updateMemberWork (db: Db, poolId: number, providerId: number, fields: Updateable<PoolMemberTable>, change: Change): Work<repo.MemberRow> {
  yield * touched(db, { pools: [poolId] })
  const updated = yield * audited(db, change.actor, entry('member.update', change), repo.updateMember(db, poolId, providerId, fields))
  if (updated === undefined) throw memberNotFound(poolId)
  return updated
}

/** Takes the provider out of the pool; 404 (nothing written) when the pair does not exist. */
export function * removeMemberWork (db: Db, poolId: number, providerId: number, change: Change): Work<repo.MemberRow> {
  yield * touched(db, { pools: [poolId] })
  const removed = yield * audited(db, change.actor, entry('member.remove', change), repo.deleteMember(db, poolId, providerId))
  if (removed === undefined) throw memberNotFound(poolId)
  return removed
}

/** Builds the member service over the database's work runner, a clock and the change feed. */
export function createMemberService ({ database: handle, now, changes = NO_CHANGES }: { database: WorkRunner, now: () => Date, changes?: ChangeFeed }) {
  const database = unitOfWork(handle, changes)
  return {
    async addMember (poolId: number, input: AddMemberInput, actor: Actor): Promise<MemberAddedValue> {
      const at = now()
      let member: repo.MemberRow & { provider_name: string }
      try {
        member = await database.transact((db) => addMemberWork(db, poolId, input.provider_id,
          { priority: input.priority ?? 1, weight: input.weight ?? 1, enabled: 1 }, { actor, changes: input, at }))
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new ConflictError(`provider ${input.provider_id} is already a member of pool ${poolId}`)
        }
        throw error
      }
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
        return yield * updateMemberWork(db, poolId, providerId, fields, { actor, changes: input, at: now() })
      })
      if (member === undefined) throw memberNotFound(poolId)
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
      await database.transact((db) => removeMemberWork(db, poolId, providerId, { actor, changes: {}, at: now() }))
      return { message: `Provider ${providerId} removed from pool ${poolId}`, pool_id: poolId, provider_id: providerId }
    }
  }
}

export type MemberService = ReturnType<typeof createMemberService>
