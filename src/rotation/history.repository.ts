/**
 * Rotation history rows, read with the names of the providers they mention
 * (null when a provider has since been deleted): generator functions (db/work.ts).
 */
import type { Insertable, Selectable } from 'kysely'
import { prepared } from '../db/prepared.js'
import type { Db, RotationHistoryTable } from '../db/types.js'
import { all, execute, type Work } from '../db/work.js'

/** A history record as read back: what the API shows, with provider names resolved. */
export type HistoryRow = Pick<Selectable<RotationHistoryTable>, 'id' | 'timestamp' | 'reason' | 'success' | 'notes'> & {
  from_provider: string | null
  to_provider: string | null
}

type NewHistory = Required<Insertable<RotationHistoryTable>>

const insertHistoryRow = prepared((db, row: Omit<NewHistory, 'id'>) => db.insertInto('rotation_history').values({
  pool_id: row.pool_id,
  from_provider_id: row.from_provider_id,
  to_provider_id: row.to_provider_id,
  reason: row.reason,
  success: row.success,
  notes: row.notes,
  timestamp: row.timestamp
}))

/** Appends one history record. */
export function * insertHistory (db: Db, row: Omit<NewHistory, 'id'>): Work<void> {
  yield * execute(insertHistoryRow(db, row))
}

/**
 * The newest `limit` records of a pool: newest timestamp first, ties by id
 * descending. Served by the (pool_id, timestamp, id) index, so its cost does not
 * grow with the length of the history.
 */
export function * listHistory (db: Db, poolId: number, limit: number): Work<HistoryRow[]> {
  return yield * all(selectHistory(db, { poolId, limit }))
}

const selectHistory = prepared((db, p: { poolId: number, limit: number }) => db.selectFrom('rotation_history as h')
  .leftJoin('providers as pf', 'pf.id', 'h.from_provider_id')
  .leftJoin('providers as pt', 'pt.id', 'h.to_provider_id')
  .select(['h.id', 'h.timestamp', 'h.reason', 'h.success', 'h.notes', 'pf.name as from_provider', 'pt.name as to_provider'])
  .where('h.pool_id', '=', p.poolId)
  .orderBy('h.timestamp', 'desc').orderBy('h.id', 'desc')
  .limit(p.limit))
