/**
 * Pool rows: plain generator functions taking the query builder first,
 * run by the database's work runner (db/work.ts).
 */
import type { Insertable, Selectable, Updateable } from 'kysely'
import { lockRows } from '../db/create-db.js'
import type { Db, Dialect, PoolTable } from '../db/types.js'
import { all, execute, first, type Work } from '../db/work.js'

export type PoolRow = Selectable<PoolTable>
export type PoolWithCurrent = PoolRow & { current_provider_name: string | null }

/** Inserts a pool and returns its row. */
export function * insertPool (db: Db, row: Insertable<PoolTable>): Work<PoolRow> {
  return (yield * first(db.insertInto('pools').values(row).returningAll())) as PoolRow
}

function selectPoolsWithCurrent (db: Db) {
  return db.selectFrom('pools')
    .leftJoin('providers', 'providers.id', 'pools.current_provider_id')
    .selectAll('pools')
    .select('providers.name as current_provider_name')
}

/** The pool with `id` and its current provider's name, or undefined. */
export function * findPool (db: Db, id: number): Work<PoolWithCurrent | undefined> {
  return yield * first(selectPoolsWithCurrent(db).where('pools.id', '=', id))
}

/** Every pool by id, with current provider names. */
export function * listPools (db: Db): Work<PoolWithCurrent[]> {
  return yield * all(selectPoolsWithCurrent(db).orderBy('pools.id'))
}

/**
 * The pool row, locked against concurrent rotations until the transaction ends
 * (a row lock on PostgreSQL; SQLite's immediate transaction already holds the write lock).
 */
export function * findPoolForRotation (db: Db, dialect: Dialect, id: number): Work<PoolRow | undefined> {
  return yield * first(lockRows(dialect, db.selectFrom('pools').selectAll().where('id', '=', id)))
}

/** Applies `changes`; returns the new row, or undefined when there is no such pool. */
export function * updatePool (db: Db, id: number, changes: Updateable<PoolTable>): Work<PoolRow | undefined> {
  return yield * first(db.updateTable('pools').set(changes).where('id', '=', id).returningAll())
}

/** Records a rotation on the pool: the new current provider, counters and cursor. */
export function * recordPoolRotation (
  db: Db, id: number, change: { providerId: number, at: string, state: string }
): Work<void> {
  yield * execute(db.updateTable('pools')
    .set((eb) => ({
      current_provider_id: change.providerId,
      total_rotations: eb('total_rotations', '+', 1),
      last_rotation: change.at,
      rotation_state: change.state
    }))
    .where('id', '=', id))
}

/** Deletes a pool with its members and history; returns the deleted row. */
export function * deletePool (db: Db, id: number): Work<PoolRow | undefined> {
  return yield * first(db.deleteFrom('pools').where('id', '=', id).returningAll())
}
