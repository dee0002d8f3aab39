/**
 * Members' latency per minute (`member_minutes`, migration 010): written by every
 * write that folds a latency into a member's moving average (reports, the proxy's
 * flush, health checks), in its transaction, as an upsert that adds — so the rows
 * stay exact across processes — and read by the activity charts. Rows go with their
 * member (a foreign key); a housekeeping job purges minutes past retention.
 */
import type { Db } from '../db/types.js'
import { all, execute, type Work } from '../db/work.js'
import type { MinuteSample } from '../rules/activity.js'

/** Rows per statement: four parameters each, well under both databases' limits. */
const ROWS_PER_STATEMENT = 500

/**
 * Adds each sample to its member's minute (the row is created the first time). Every
 * member must exist and no (member, minute) may appear twice: callers aggregate first
 * (foldSample) and write only members their transaction has just written.
 */
export function * addMemberMinutes (db: Db, samples: readonly MinuteSample[]): Work<void> {
  for (let start = 0; start < samples.length; start += ROWS_PER_STATEMENT) {
    const rows = samples.slice(start, start + ROWS_PER_STATEMENT)
      .map((s) => ({ member_id: s.memberId, minute: s.minute, samples: s.samples, latency_sum: s.latencySum }))
    yield * execute(db.insertInto('member_minutes').values(rows)
      .onConflict((oc) => oc.columns(['member_id', 'minute']).doUpdateSet((eb) => ({
        samples: eb('member_minutes.samples', '+', eb.ref('excluded.samples')),
        latency_sum: eb('member_minutes.latency_sum', '+', eb.ref('excluded.latency_sum'))
      }))))
  }
}

/** A member's observations in one minute of a pool's window. */
export interface MemberMinuteRow {
  member_id: number
  minute: string
  samples: number
  latency_sum: number
}

/**
 * The minutes in [from, to) of the given members (the pool's current ones): each
 * member's range of the primary key. By id, not through a join on the pool: on
 * PostgreSQL a join made the planner read every member's minutes in the window.
 */
export function * listPoolMemberMinutes (db: Db, memberIds: readonly number[], from: string, to: string): Work<MemberMinuteRow[]> {
  if (memberIds.length === 0) return []
  const rows = yield * all(db.selectFrom('member_minutes')
    .select(['member_id', 'minute', 'samples', 'latency_sum'])
    .where('member_id', 'in', memberIds)
    .where('minute', '>=', from)
    .where('minute', '<', to))
  return rows.map((r) => ({ ...r, samples: Number(r.samples), latency_sum: Number(r.latency_sum) }))
}

/** Deletes every minute that started before `before` (through the index on `minute`). */
export function * purgeMemberMinutes (db: Db, before: string): Work<void> {
  yield * execute(db.deleteFrom('member_minutes').where('minute', '<', before))
}
