/**
 * Pool rows: plain generator functions taking the query builder first,
 * run by the database's work runner (db/work.ts).
 */
import type { Insertable, Selectable, Updateable } from 'kysely'
import { lockRows } from '../db/create-db.js'
import { prepared } from '../db/prepared.js'
import type { Db, PoolTable } from '../db/types.js'
import { alreadyTouched } from '../db/unit-of-work.js'
import { all, execute, first, type Work } from '../db/work.js'

export type PoolRow = Selectable<PoolTable>
export type PoolWithCurrent = PoolRow & { current_provider_name: string | null }
/** What a rotation needs of its pool. */
export type RotationPoolRow = Pick<PoolRow, 'id' | 'enabled' | 'rotation_strategy' | 'rotation_state' | 'current_provider_id' |
'failure_threshold' | 'cooldown_seconds' | 'max_cooldown_seconds' | 'all_down' | 'max_attempts' | 'retry_non_idempotent' | 'forward_client_auth' | 'forbidden_ttl_seconds' |
'cache_ttl_seconds' | 'cache_stale_seconds' | 'max_wait_ms' | 'deadline_ms' | 'retry_budget_percent' | 'retry_backoff_ms' | 'hedge_after_ms' | 'protocol'>

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

const selectPool = prepared((db, p: { id: number }) => selectPoolsWithCurrent(db).where('pools.id', '=', p.id))

/** The pool with `id` and its current provider's name, or undefined. */
export function * findPool (db: Db, id: number): Work<PoolWithCurrent | undefined> {
  return yield * first(selectPool(db, { id }))
}

const selectAllPools = prepared((db) => selectPoolsWithCurrent(db).orderBy('pools.id'))

/** The id of the pool named `name` (names are unique), or undefined. */
export function * findPoolIdByName (db: Db, name: string): Work<number | undefined> {
  return (yield * first(db.selectFrom('pools').select('id').where('name', '=', name)))?.id
}

/** Every pool by id, with current provider names. */
export function * listPools (db: Db): Work<PoolWithCurrent[]> {
  return yield * all(selectAllPools(db, {}))
}

/**
 * The pool row, locked against concurrent rotations until the transaction ends
 * (a row lock on PostgreSQL; SQLite's immediate transaction already holds the write lock).
 */
export function * findPoolForRotation (db: Db, id: number): Work<RotationPoolRow | undefined> {
  return yield * first(selectPoolForRotation(db, { id }))
}

const selectPoolForRotation = prepared((db, p: { id: number }) =>
  lockRows(db, db.selectFrom('pools')
    .select(['id', 'enabled', 'rotation_strategy', 'rotation_state', 'current_provider_id',
      'failure_threshold', 'cooldown_seconds', 'max_cooldown_seconds', 'all_down', 'max_attempts', 'retry_non_idempotent', 'forward_client_auth', 'forbidden_ttl_seconds',
      'cache_ttl_seconds', 'cache_stale_seconds', 'max_wait_ms', 'deadline_ms', 'retry_budget_percent', 'retry_backoff_ms', 'hedge_after_ms', 'protocol'])
    .where('id', '=', p.id)))

/** Locks the pool's row until the transaction ends (as a rotation does); false when there is no such pool. */
export function * lockPool (db: Db, id: number): Work<boolean> {
  return (yield * first(lockRows(db, db.selectFrom('pools').select('id').where('id', '=', id)))) !== undefined
}

/** Applies `changes`; returns the new row, or undefined when there is no such pool. */
export function * updatePool (db: Db, id: number, changes: Updateable<PoolTable>): Work<PoolRow | undefined> {
  return yield * first(db.updateTable('pools').set(changes).where('id', '=', id).returningAll())
}

/**
 * Records a rotation on the pool: the new current provider, counters and cursor. The
 * same UPDATE moves its change_seq, and the pool is declared touched (db/unit-of-work.ts).
 */
export function * recordPoolRotation (
  db: Db, id: number, change: { providerId: number, at: string, state: string }
): Work<void> {
  yield * execute(updatePoolRotation(db, { id, ...change }))
  yield * alreadyTouched([id])
}

const updatePoolRotation = prepared((db, p: { id: number, providerId: number, at: string, state: string }) =>
  db.updateTable('pools')
    .set((eb) => ({
      current_provider_id: p.providerId,
      total_rotations: eb('total_rotations', '+', 1),
      last_rotation: p.at,
      rotation_state: p.state,
      change_seq: eb('change_seq', '+', 1)
    }))
    .where('id', '=', p.id))

/** Deletes a pool with its members and history; returns the deleted row. */
export function * deletePool (db: Db, id: number): Work<PoolRow | undefined> {
  return yield * first(db.deleteFrom('pools').where('id', '=', id).returningAll())
}

const selectChangeSeq = prepared((db, p: { id: number }) => db.selectFrom('pools').select('change_seq').where('id', '=', p.id))

/** The pool's change_seq (one primary-key read), or undefined when there is no such pool. */
export function * findChangeSeq (db: Db, id: number): Work<number | undefined> {
  return (yield * first(selectChangeSeq(db, { id })))?.change_seq
}

const selectChangeSeqs = prepared((db) => db.selectFrom('pools').select(['id', 'change_seq']).orderBy('id'))

/** Every pool's id and change_seq, by id: which pools exist and which changed. */
export function * listEveryPoolChangeSeq (db: Db): Work<Array<{ id: number, change_seq: number }>> {
  return yield * all(selectChangeSeqs(db, {}))
}

/** The change_seq of each of `ids` that still exists (one read, by primary key). */
export function * listChangeSeqsOf (db: Db, ids: readonly number[]): Work<Array<{ id: number, change_seq: number }>> {
  if (ids.length === 0) return []
  return yield * all(db.selectFrom('pools').select(['id', 'change_seq']).where('id', 'in', ids))
}
