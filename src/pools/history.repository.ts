/**
 * Rotation history rows: generator functions (db/work.ts). Rows carry provider
 * ids; history.mapper.ts resolves the names (null once a provider is deleted).
 */
import type { Insertable, Selectable } from 'kysely'
import { prepared } from '../db/prepared.js'
import type { Db, RotationHistoryTable } from '../db/types.js'
import { all, execute, type Work } from '../db/work.js'

/** A history record as read back. */
export type HistoryRow = Pick<Selectable<RotationHistoryTable>,
'id' | 'timestamp' | 'reason' | 'success' | 'notes' | 'from_provider_id' | 'to_provider_id'>

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

const selectHistory = prepared((db, p: { poolId: number, limit: number }) => db.selectFrom('rotation_history')
  .select(['id', 'timestamp', 'reason', 'success', 'notes', 'from_provider_id', 'to_provider_id'])
  .where('pool_id', '=', p.poolId)
  .orderBy('timestamp', 'desc').orderBy('id', 'desc')
  .limit(p.limit))
