/**
 * Pool member rows, read together with their provider's name.
 */
import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Db, PoolMemberTable } from '../db/types.js'

export type MemberRow = Selectable<PoolMemberTable>
export type MemberWithName = MemberRow & { provider_name: string | null }

function selectMembersWithNames (db: Db) {
  return db.selectFrom('pool_members')
    .leftJoin('providers', 'providers.id', 'pool_members.provider_id')
    .selectAll('pool_members')
    .select('providers.name as provider_name')
}

/** Inserts a member and returns its row. */
export async function insertMember (db: Db, row: Insertable<PoolMemberTable>): Promise<MemberRow> {
  return await db.insertInto('pool_members').values(row).returningAll().executeTakeFirstOrThrow()
}

/** The members of one pool, by member id. */
export async function listMembers (db: Db, poolId: number): Promise<MemberWithName[]> {
  return await selectMembersWithNames(db).where('pool_members.pool_id', '=', poolId).orderBy('pool_members.id').execute()
}

/** The members of several pools, by pool then member id. */
export async function listMembersOfPools (db: Db, poolIds: readonly number[]): Promise<MemberWithName[]> {
  if (poolIds.length === 0) return []
  return await selectMembersWithNames(db)
    .where('pool_members.pool_id', 'in', poolIds)
    .orderBy('pool_members.pool_id').orderBy('pool_members.id')
    .execute()
}

/** The member addressed by (pool, provider), or undefined. */
export async function findMember (db: Db, poolId: number, providerId: number): Promise<MemberRow | undefined> {
  return await db.selectFrom('pool_members').selectAll()
    .where('pool_id', '=', poolId).where('provider_id', '=', providerId)
    .executeTakeFirst()
}

/** Applies `changes` to the member; returns the new row or undefined. */
export async function updateMember (
  db: Db, poolId: number, providerId: number, changes: Updateable<PoolMemberTable>
): Promise<MemberRow | undefined> {
  return await db.updateTable('pool_members').set(changes)
    .where('pool_id', '=', poolId).where('provider_id', '=', providerId)
    .returningAll().executeTakeFirst()
}

/** Counts one use of a member at `at`. */
export async function markMemberUsed (db: Db, memberId: number, at: string): Promise<void> {
  await db.updateTable('pool_members')
    .set((eb) => ({ use_count: eb('use_count', '+', 1), last_used: at }))
    .where('id', '=', memberId)
    .execute()
}

/** Counts one failure of a member. */
export async function markMemberFailed (db: Db, memberId: number): Promise<void> {
  await db.updateTable('pool_members')
    .set((eb) => ({ failure_count: eb('failure_count', '+', 1) }))
    .where('id', '=', memberId)
    .execute()
}

/** Removes the member; returns the deleted row or undefined. */
export async function deleteMember (db: Db, poolId: number, providerId: number): Promise<MemberRow | undefined> {
  return await db.deleteFrom('pool_members')
    .where('pool_id', '=', poolId).where('provider_id', '=', providerId)
    .returningAll().executeTakeFirst()
}
