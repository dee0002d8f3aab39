/**
 * What the hub reads at each poll: the history and audit records stored since
 * the stream's position, by id, turned into events. History ids are looked back
 * at (LOOKBACK) because a PostgreSQL transaction may commit after a later id has
 * been seen: a row below the newest seen that was not delivered committed late,
 * and is delivered then. The position starts at what is newest when the first
 * listener comes, and is forgotten (reset) when the last one leaves.
 */
import type { WorkRunner } from '../db/work.js'
import { auditAfter, historyAfter, newestIds } from './event.repository.js'
import { auditEvent, historyEvent, type Cursor, type ServiceEvent } from './service-event.js'

/** Rows read per source per poll. */
export const PAGE = 500

/** History ids looked back at each poll: a PostgreSQL transaction may commit after a later id is seen. */
const LOOKBACK = 100

/** Builds the feed; it reads only when asked. */
export function createEventFeed (database: WorkRunner) {
  let position: Cursor | undefined
  /** Counts resets: a read that a reset overtook leaves the position alone. */
  let resets = 0
  /** History ids delivered within the lookback window. */
  const delivered = new Set<number>()

  /** Where the stream starts when nobody listened: what is newest now (the window behind it counts as delivered). */
  async function startingPosition (): Promise<Cursor> {
    const newest = await database.read(newestIds)
    const window = await database.read((db) => historyAfter(db, Math.max(0, newest.history - LOOKBACK), PAGE))
    for (const row of window) if (row.id <= newest.history) delivered.add(row.id)
    return newest
  }

  return {
    /** Where the stream stands; undefined before `start` and after `reset`. */
    position: (): Cursor | undefined => position,

    /** Reads where the stream starts, unless it stands somewhere already. */
    async start (): Promise<void> {
      position ??= await startingPosition()
    },

    /** The events stored after `since` (where the stream stood), in order (history, then audit); the stream moves past them. */
    async next (since: Cursor): Promise<ServiceEvent[]> {
      // The lookback window again: a row below the newest seen that was not delivered committed late.
      const at = resets
      const history = await database.read((db) => historyAfter(db, Math.max(0, since.history - LOOKBACK), PAGE))
      const audit = await database.read((db) => auditAfter(db, since.audit, PAGE))
      // Everyone left while it read: the next listener starts from what is newest then, not from here.
      if (resets !== at) return []
      const next = { ...since }
      const events: ServiceEvent[] = []
      for (const row of history) {
        if (delivered.has(row.id)) continue
        delivered.add(row.id)
        next.history = Math.max(next.history, row.id)
        events.push(historyEvent(row, next))
      }
      for (const row of audit) {
        next.audit = row.id
        events.push(auditEvent(row, next))
      }
      position = next
      for (const id of delivered) if (id <= next.history - LOOKBACK) delivered.delete(id)
      return events
    },

    /** Nobody listens: the next listener starts from what is newest then. */
    reset (): void {
      resets++
      position = undefined
      delivered.clear()
    }
  }
}

export type EventFeed = ReturnType<typeof createEventFeed>
