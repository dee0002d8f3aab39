/**
 * Where events are read from: the rotation history (rotations, failovers,
 * cooldowns started, members recovered, refusals learned, quota windows used up)
 * and the audit trail (admin changes), by
 * id, which is how every process sees every other's events and how a client
 * resumes after a disconnect (Last-Event-ID).
 */
import type { Db } from '../db/types.js'
import { all, first, type Work } from '../db/work.js'

/** A history record with its provider names. */
export interface HistoryEventRow {
  id: number
  pool_id: number
  from_provider_id: number | null
  to_provider_id: number | null
  from_name: string | null
  to_name: string | null
  reason: string
  success: number
  notes: string | null
  timestamp: string
  until: string | null
}

/** An audit record. */
export interface AuditEventRow {
  id: number
  timestamp: string
  actor: string
  action: string
  target: string
}

/** History records with ids above `after`, by id (at most `limit`). */
export function * historyAfter (db: Db, after: number, limit: number): Work<HistoryEventRow[]> {
  return yield * all(db.selectFrom('rotation_history as h')
    .leftJoin('providers as f', 'f.id', 'h.from_provider_id')
    .leftJoin('providers as t', 't.id', 'h.to_provider_id')
    .select(['h.id', 'h.pool_id', 'h.from_provider_id', 'h.to_provider_id', 'f.name as from_name', 't.name as to_name', 'h.reason', 'h.success', 'h.notes', 'h.timestamp', 'h.until'])
    .where('h.id', '>', after)
    .orderBy('h.id')
    .limit(limit))
}

/** Audit records with ids above `after`, by id (at most `limit`). */
export function * auditAfter (db: Db, after: number, limit: number): Work<AuditEventRow[]> {
  return yield * all(db.selectFrom('audit_log').select(['id', 'timestamp', 'actor', 'action', 'target']).where('id', '>', after).orderBy('id').limit(limit))
}

/** The newest ids of both, where a client without Last-Event-ID starts. */
export function * newestIds (db: Db): Work<{ history: number, audit: number }> {
  const history = yield * first(db.selectFrom('rotation_history').select((eb) => eb.fn.max('id').as('id')))
  const audit = yield * first(db.selectFrom('audit_log').select((eb) => eb.fn.max('id').as('id')))
  return { history: Number(history?.id ?? 0), audit: Number(audit?.id ?? 0) }
}
