/**
 * Rotation history rows, read with the names of the providers they mention
 * (null when a provider has since been deleted): generator functions (db/work.ts).
 */
import type { Insertable, Selectable } from 'kysely'
import type { Db, RotationHistoryTable } from '../db/types.js'
import { all, execute, type Work } from '../db/work.js'

export type HistoryRow = Selectable<RotationHistoryTable> & {
  from_provider: string | null
  to_provider: string | null
}

/** Appends one history record. */
export function * insertHistory (db: Db, row: Insertable<RotationHistoryTable>): Work<void> {
  yield * execute(db.insertInto('rotation_history').values(row))
}

/**
 * The newest `limit` records of a pool: newest timestamp first, ties by id
 * descending. Served by the (pool_id, timestamp, id) index, so its cost does not
 * grow with the length of the history.
 */
export function * listHistory (db: Db, poolId: number, limit: number): Work<HistoryRow[]> {
  return yield * all(db.selectFrom('rotation_history as h')
    .leftJoin('providers as pf', 'pf.id', 'h.from_provider_id')
    .leftJoin('providers as pt', 'pt.id', 'h.to_provider_id')
    .selectAll('h')
    .select(['pf.name as from_provider', 'pt.name as to_provider'])
    .where('h.pool_id', '=', poolId)
    .orderBy('h.timestamp', 'desc').orderBy('h.id', 'desc')
    .limit(limit))
}
