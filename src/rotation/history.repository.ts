/**
 * Rotation history rows, read with the names of the providers they mention
 * (null when a provider has since been deleted).
 */
import type { Insertable, Selectable } from 'kysely'
import type { Db, RotationHistoryTable } from '../db/types.js'

export type HistoryRow = Selectable<RotationHistoryTable> & {
  from_provider: string | null
  to_provider: string | null
}

function selectHistory (db: Db) {
  return db.selectFrom('rotation_history as h')
    .leftJoin('providers as pf', 'pf.id', 'h.from_provider_id')
    .leftJoin('providers as pt', 'pt.id', 'h.to_provider_id')
    .selectAll('h')
    .select(['pf.name as from_provider', 'pt.name as to_provider'])
}

/** Appends one history record. */
export async function insertHistory (db: Db, row: Insertable<RotationHistoryTable>): Promise<void> {
  await db.insertInto('rotation_history').values(row).execute()
}

/** The newest `limit` records of a pool: newest timestamp first, ties by id descending. */
export async function listHistory (db: Db, poolId: number, limit: number): Promise<HistoryRow[]> {
  return await selectHistory(db)
    .where('h.pool_id', '=', poolId)
    .orderBy('h.timestamp', 'desc').orderBy('h.id', 'desc')
    .limit(limit)
    .execute()
}

/** The newest `perPool` records of each pool, in one query (a window function). */
export async function listRecentHistoryOfPools (db: Db, poolIds: readonly number[], perPool: number): Promise<HistoryRow[]> {
  if (poolIds.length === 0) return []
  const ranked = selectHistory(db)
    .select((eb) => eb.fn.agg<number>('row_number').over((ob) => ob.partitionBy('h.pool_id').orderBy('h.timestamp', 'desc').orderBy('h.id', 'desc')).as('rank'))
    .where('h.pool_id', 'in', poolIds)
  return await db.selectFrom(ranked.as('r'))
    .selectAll('r')
    .where('r.rank', '<=', perPool)
    .orderBy('r.pool_id').orderBy('r.rank')
    .execute() as unknown as HistoryRow[]
}
