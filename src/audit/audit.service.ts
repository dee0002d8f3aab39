/**
 * The audit trail as operators read it: pages of records matching filters,
 * newest first, with the count of every match and an opaque cursor to the next
 * page; and the purge of records older than AUDIT_MAX_AGE_DAYS (by the injected
 * clock), run by the app's housekeeping timer.
 */
import type { WorkRunner } from '../db/work.js'
import { decodeCursor, encodeCursor } from '../http/cursor.js'
import * as repo from './audit.repository.js'

/** A list request as the route passes it on. */
export interface AuditQuery extends repo.AuditFilter {
  limit: number
  /** `next_cursor` of the previous page. */
  cursor?: string
}

/** One record as returned: `changes` parsed. */
export type AuditRecord = Omit<repo.AuditRow, 'changes'> & { changes: Record<string, unknown> }

/** Records deleted per transaction by the purge, so a large backlog never holds a write lock for long. */
const PURGE_BATCH = 1000

const DAY_MS = 24 * 60 * 60 * 1000

const STORED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** The position an audit cursor holds: a stored timestamp and a record id. */
const readPosition = (v: readonly unknown[]): repo.AuditPosition | undefined =>
  v.length === 2 && typeof v[0] === 'string' && STORED_TIME.test(v[0]) && Number.isSafeInteger(v[1]) && (v[1] as number) > 0
    ? { timestamp: v[0], id: v[1] as number }
    : undefined

/** Builds the audit service; `maxAgeDays` null keeps every record. */
export function createAuditService ({ database, now, maxAgeDays }: { database: WorkRunner, now: () => Date, maxAgeDays: number | null }) {
  return {
    /** A page of records matching the filters, how many match in all, and the cursor of the next page (null on the last). */
    async list (query: AuditQuery): Promise<{ records: AuditRecord[], total: number, nextCursor: string | null }> {
      const { limit, cursor, ...filter } = query
      const after = cursor === undefined ? undefined : decodeCursor(cursor, readPosition)
      const { rows, total } = await database.read(function * (db) {
        const rows = yield * repo.listAudit(db, filter, after, limit + 1)
        return { rows, total: yield * repo.countAudit(db, filter) }
      })
      const page = rows.slice(0, limit)
      const last = page[page.length - 1]
      return {
        records: page.map((row) => ({ ...row, changes: JSON.parse(row.changes) as Record<string, unknown> })),
        total,
        nextCursor: rows.length > limit && last !== undefined ? encodeCursor([last.timestamp, last.id]) : null
      }
    },

    /** Deletes the records older than `maxAgeDays` days; returns how many. */
    async purgeExpired (): Promise<number> {
      if (maxAgeDays === null) return 0
      const before = new Date(now().getTime() - maxAgeDays * DAY_MS).toISOString()
      let deleted = 0
      for (;;) {
        const count = await database.transact((db) => repo.deleteAuditBefore(db, before, PURGE_BATCH))
        deleted += count
        if (count < PURGE_BATCH) return deleted
      }
    }
  }
}

export type AuditService = ReturnType<typeof createAuditService>
