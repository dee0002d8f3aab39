/**
 * Pool rows: plain functions taking the database (or a transaction) first.
 */
import type { Insertable, Selectable, Updateable } from 'kysely'
import { lockRows } from '../db/create-db.js'
import type { Db, Dialect, PoolTable } from '../db/types.js'

export type PoolRow = Selectable<PoolTable>
export type PoolWithCurrent = PoolRow & { current_provider_name: string | null }

/** Inserts a pool and returns its row. */
export async function insertPool (db: Db, row: Insertable<PoolTable>): Promise<PoolRow> {
  return await db.insertInto('pools').values(row).returningAll().executeTakeFirstOrThrow()
}

function selectPoolsWithCurrent (db: Db) {
  return db.selectFrom('pools')
    .leftJoin('providers', 'providers.id', 'pools.current_provider_id')
    .selectAll('pools')
    .select('providers.name as current_provider_name')
}

/** The pool with `id` and its current provider's name, or undefined. */
export async function findPool (db: Db, id: number): Promise<PoolWithCurrent | undefined> {
  return await selectPoolsWithCurrent(db).where('pools.id', '=', id).executeTakeFirst()
}

/** Every pool by id, with current provider names. */
export async function listPools (db: Db): Promise<PoolWithCurrent[]> {
  return await selectPoolsWithCurrent(db).orderBy('pools.id').execute()
}

/**
 * The pool row, locked against concurrent rotations until the transaction ends
 * (a row lock on PostgreSQL; SQLite's immediate transaction already holds the write lock).
 */
export async function findPoolForRotation (db: Db, dialect: Dialect, id: number): Promise<PoolRow | undefined> {
  return await lockRows(dialect, db.selectFrom('pools').selectAll().where('id', '=', id)).executeTakeFirst()
}

/** Applies `changes`; returns the new row, or undefined when there is no such pool. */
export async function updatePool (db: Db, id: number, changes: Updateable<PoolTable>): Promise<PoolRow | undefined> {
  return await db.updateTable('pools').set(changes).where('id', '=', id).returningAll().executeTakeFirst()
}

/** Records a rotation on the pool: the new current provider, counters and cursor. */
export async function recordPoolRotation (
  db: Db, id: number, change: { providerId: number, at: string, state: string }
): Promise<void> {
  await db.updateTable('pools')
    .set((eb) => ({
      current_provider_id: change.providerId,
      total_rotations: eb('total_rotations', '+', 1),
      last_rotation: change.at,
      rotation_state: change.state
    }))
    .where('id', '=', id)
    .execute()
}

/** Deletes a pool with its members and history; returns the deleted row. */
export async function deletePool (db: Db, id: number): Promise<PoolRow | undefined> {
  return await db.deleteFrom('pools').where('id', '=', id).returningAll().executeTakeFirst()
}
