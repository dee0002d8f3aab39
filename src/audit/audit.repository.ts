/**
 * Reading and purging the audit trail: plain generator functions taking the
 * query builder first (db/work.ts). Records are appended by audit.ts, inside
 * the transaction of each change. Lists are newest first, by (timestamp, id)
 * descending, which the `audit_log_time_idx` index serves.
 */
import type { Selectable } from 'kysely'
import type { AuditTable, Db } from '../db/types.js'
import { all, first, type Work } from '../db/work.js'

export type AuditRow = Selectable<AuditTable>

/** What a list is narrowed to; every field optional. */
export interface AuditFilter {
  actor?: string
  action?: string
  target?: string
  /** ISO 8601 UTC as stored: records at or after it. */
  since?: string
}

/** Where a page ended: the last record's timestamp and id. */
export interface AuditPosition {
  timestamp: string
  id: number
}

function matching (db: Db, filter: AuditFilter) {
  let query = db.selectFrom('audit_log')
  if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor)
  if (filter.action !== undefined) query = query.where('action', '=', filter.action)
  if (filter.target !== undefined) query = query.where('target', '=', filter.target)
  if (filter.since !== undefined) query = query.where('timestamp', '>=', filter.since)
  return query
}

/** Up to `limit` records matching `filter`, newest first, after `after` when given. */
export function * listAudit (db: Db, filter: AuditFilter, after: AuditPosition | undefined, limit: number): Work<AuditRow[]> {
  let query = matching(db, filter).selectAll()
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('timestamp', 'id'), '<', eb.tuple(after.timestamp, after.id)))
  }
  return yield * all(query.orderBy('timestamp', 'desc').orderBy('id', 'desc').limit(limit))
}

/** How many records match `filter` (PostgreSQL returns the count as text). */
export function * countAudit (db: Db, filter: AuditFilter): Work<number> {
  const row = yield * first(matching(db, filter).select((eb) => eb.fn.countAll().as('count')))
  return Number(row?.count ?? 0)
}

/** Deletes up to `limit` of the oldest records written before `before` (ISO); returns how many it deleted. */
export function * deleteAuditBefore (db: Db, before: string, limit: number): Work<number> {
  const oldest = db.selectFrom('audit_log').select('id').where('timestamp', '<', before).orderBy('timestamp').orderBy('id').limit(limit)
  return (yield * all(db.deleteFrom('audit_log').where('id', 'in', oldest).returning('id'))).length
}
