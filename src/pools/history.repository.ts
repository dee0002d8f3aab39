/**
 * Rotation history rows: generator functions (db/work.ts). Rows carry provider
 * ids; history.mapper.ts resolves the names (null once a provider is deleted).
 * The deletes at the end serve retention (history-retention.ts): each reads and
 * deletes a pool's oldest records through the (pool_id, timestamp, id) index.
 */
import type { ExpressionBuilder, Insertable, Selectable } from 'kysely'
import { prepared } from '../db/prepared.js'
import type { Database, Db, RotationHistoryTable } from '../db/types.js'
import { all, execute, first, type Work } from '../db/work.js'
import { claimQuotaExhaustion } from '../providers/provider.repository.js'
import type { ServiceRecord } from '../rules/history-kind.js'
import { listPoolsOfProviders } from './member.repository.js'

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
  timestamp: row.timestamp,
  until: row.until
}))

/** Appends one history record. */
export function * insertHistory (db: Db, row: Omit<NewHistory, 'id'>): Work<void> {
  yield * execute(insertHistoryRow(db, row))
}

/** A provider's quota window found used up: its start, and the record to write in each pool it serves. */
export interface QuotaExhaustion {
  readonly providerId: number
  readonly windowStart: string
  readonly record: ServiceRecord
}

/**
 * Records each quota window used up in every pool of `lockedPools` its provider
 * serves, once per window however many transactions and processes find it (the
 * provider's row is claimed: claimQuotaExhaustion). The caller has locked the pools
 * of these providers first (touched, db/unit-of-work.ts), so the providers' rows are
 * locked after their pools, as everywhere. Answers the pools written to.
 */
export function * recordQuotaExhaustions (db: Db, found: readonly QuotaExhaustion[], lockedPools: readonly number[], at: string): Work<number[]> {
  if (found.length === 0) return []
  const locked = new Set(lockedPools)
  const memberships = yield * listPoolsOfProviders(db, [...new Set(found.map((f) => f.providerId))])
  const written: number[] = []
  for (const f of [...found].sort((a, b) => a.providerId - b.providerId)) {
    if (!(yield * claimQuotaExhaustion(db, f.providerId, f.windowStart))) continue
    for (const m of memberships) {
      if (m.provider_id !== f.providerId || !locked.has(m.pool_id)) continue
      yield * insertHistory(db, { pool_id: m.pool_id, ...f.record, timestamp: at })
      written.push(m.pool_id)
    }
  }
  return written
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

/** Where a record stands in list order: its timestamp and id. */
export interface HistoryPosition {
  timestamp: string
  id: number
}

/** A pool and the id of its newest record in list order (null: no history). */
export interface PoolHistoryHead {
  pool_id: number
  newest_id: number | null
}

/**
 * Up to `limit` pools with ids above `afterPoolId`, by id, each with its newest
 * record's id: one index probe per pool, however long its history.
 */
export function * listHistoryHeads (db: Db, afterPoolId: number, limit: number): Work<PoolHistoryHead[]> {
  return yield * all(db.selectFrom('pools')
    .select((eb) => ['pools.id as pool_id', eb.selectFrom('rotation_history')
      .select('rotation_history.id')
      .whereRef('rotation_history.pool_id', '=', 'pools.id')
      .orderBy('rotation_history.timestamp', 'desc').orderBy('rotation_history.id', 'desc')
      .limit(1)
      .as('newest_id')])
    .where('pools.id', '>', afterPoolId)
    .orderBy('pools.id')
    .limit(limit))
}

/**
 * The pool's record at `offset` in list order (0 is the newest), or undefined when it
 * has no more than `offset` records. Walks `offset` entries of the list-order index.
 */
export function * findHistoryAt (db: Db, poolId: number, offset: number): Work<HistoryPosition | undefined> {
  return yield * first(db.selectFrom('rotation_history')
    .select(['timestamp', 'id'])
    .where('pool_id', '=', poolId)
    .orderBy('timestamp', 'desc').orderBy('id', 'desc')
    .limit(1).offset(offset))
}

/**
 * Deletes up to `limit` of the pool's oldest records, of those at `position` or after
 * it in list order (that is, not newer); returns how many it deleted.
 */
export function * deleteHistoryThrough (db: Db, poolId: number, position: HistoryPosition, limit: number): Work<number> {
  return yield * deleteOldest(db, poolId, { through: position }, limit)
}

/** Up to `limit` pools with ids above `afterPoolId`, by id, holding a record older than `before` (ISO). */
export function * listPoolsWithHistoryBefore (db: Db, before: string, afterPoolId: number, limit: number): Work<number[]> {
  const rows = yield * all(db.selectFrom('pools')
    .select('pools.id')
    .where('pools.id', '>', afterPoolId)
    .where(({ exists, selectFrom }) => exists(selectFrom('rotation_history')
      .select('rotation_history.id')
      .whereRef('rotation_history.pool_id', '=', 'pools.id')
      .where('rotation_history.timestamp', '<', before)))
    .orderBy('pools.id')
    .limit(limit))
  return rows.map((row) => row.id)
}

/** Deletes up to `limit` of the pool's oldest records written before `before` (ISO); returns how many. */
export function * deleteHistoryBefore (db: Db, poolId: number, before: string, limit: number): Work<number> {
  return yield * deleteOldest(db, poolId, { before }, limit)
}

/** A pool's oldest records: those at or after a position in list order, or written before a time. */
type Older = { through: HistoryPosition } | { before: string }

const olderThan = (bound: Older) => (eb: ExpressionBuilder<Database, 'rotation_history'>) => 'before' in bound
  ? eb('timestamp', '<', bound.before)
  : eb(eb.refTuple('timestamp', 'id'), '<=', eb.tuple(bound.through.timestamp, bound.through.id))

/**
 * Deletes up to `limit` of the pool's records matching `bound`, oldest first, as one
 * range of the list-order index: the last record of the batch is read first. (PostgreSQL
 * plans `id IN (subquery)` as a hash join over the whole table, read for every batch.)
 */
function * deleteOldest (db: Db, poolId: number, bound: Older, limit: number): Work<number> {
  const last = yield * first(db.selectFrom('rotation_history').select(['timestamp', 'id'])
    .where('pool_id', '=', poolId).where(olderThan(bound))
    .orderBy('timestamp').orderBy('id')
    .limit(1).offset(limit - 1))
  let batch = db.deleteFrom('rotation_history').where('pool_id', '=', poolId).where(olderThan(bound))
  if (last !== undefined) batch = batch.where(olderThan({ through: last }))
  return (yield * all(batch.returning('id'))).length
}
