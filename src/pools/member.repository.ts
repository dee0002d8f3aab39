/**
 * Pool member rows, read together with their provider's name: plain generator
 * functions taking the query builder first (db/work.ts).
 */
import type { Insertable, Selectable, Updateable } from 'kysely'
import { prepared } from '../db/prepared.js'
import type { Db, PoolMemberTable } from '../db/types.js'
import { all, execute, first, type Work } from '../db/work.js'

export type MemberRow = Selectable<PoolMemberTable>
export type MemberWithName = MemberRow & { provider_name: string | null }

function selectMembersWithNames (db: Db) {
  return db.selectFrom('pool_members')
    .leftJoin('providers', 'providers.id', 'pool_members.provider_id')
    .selectAll('pool_members')
    .select('providers.name as provider_name')
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

/** Counts one failure of a member. */
export function * markMemberFailed (db: Db, memberId: number): Work<void> {
  yield * execute(db.updateTable('pool_members')
    .set((eb) => ({ failure_count: eb('failure_count', '+', 1) }))
    .where('id', '=', memberId))
}

/** Removes the member; returns the deleted row or undefined. */
export function * deleteMember (db: Db, poolId: number, providerId: number): Work<MemberRow | undefined> {
  return yield * first(db.deleteFrom('pool_members')
    .where('pool_id', '=', poolId).where('provider_id', '=', providerId)
    .returningAll())
}
