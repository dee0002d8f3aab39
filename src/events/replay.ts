/**
 * Resuming a stream from a Last-Event-ID: what a joining listener missed is read
 * from storage (history, then audit, page by page, at most MAX_REPLAY events) and
 * written to it at once. A replay is written faster than a network takes it, so
 * one that would leave more than half the drop bound unsent is cut after the
 * event that passes it, and that piece of the stream ends with `retry: 0`: the
 * client comes back at once with that event's id for the next piece, instead of
 * being dropped mid-replay again and again.
 */
import type { WorkRunner } from '../db/work.js'
import { auditAfter, historyAfter } from './event.repository.js'
import { PAGE } from './event-feed.js'
import { auditEvent, eventText, historyEvent, passes, type Cursor, type Listener, type ServiceEvent } from './service-event.js'

/** Most events replayed to one joining listener (older ones are in the history API). */
const MAX_REPLAY = 10_000

/** Reads one source page by page from `cursor` up to `to`, turning each row into an event (`cursor` moves along). */
async function readSource<R extends { id: number }> (
  events: ServiceEvent[], cursor: Cursor, to: Cursor,
  source: 'history' | 'audit', read: (after: number) => Promise<R[]>, toEvent: (row: R, at: Cursor) => ServiceEvent
): Promise<void> {
  while (events.length < MAX_REPLAY && cursor[source] < to[source]) {
    const rows = (await read(cursor[source])).filter((r) => r.id <= to[source])
    if (rows.length === 0) break
    for (const row of rows) {
      cursor[source] = row.id
      events.push(toEvent(row, cursor))
    }
  }
  cursor[source] = Math.max(cursor[source], to[source])
}

/** The events after `from` up to `to`, from storage, in order (history, then audit). */
export async function readMissed (database: WorkRunner, from: Cursor, to: Cursor): Promise<ServiceEvent[]> {
  const events: ServiceEvent[] = []
  const cursor = { ...from }
  await readSource(events, cursor, to, 'history', async (after) => await database.read((db) => historyAfter(db, after, PAGE)), historyEvent)
  await readSource(events, cursor, to, 'audit', async (after) => await database.read((db) => auditAfter(db, after, PAGE)), auditEvent)
  return events
}

/**
 * Writes `events` that pass `listener`'s filter to it; answers true when it cut the
 * replay (the listener holds more than half of `maxBufferedBytes` unsent): the
 * caller then ends this piece (endPiece).
 */
export function replayTo (listener: Listener, events: ServiceEvent[], maxBufferedBytes: number): boolean {
  for (const event of events) {
    if (!passes(listener, event)) continue
    if (listener.write(eventText(event)) > maxBufferedBytes / 2) return true
  }
  return false
}

/** Ends a piece of a replay: the client is told to come back at once, and the stream ends once what it holds is sent. */
export function endPiece (listener: Listener): void {
  listener.write('retry: 0\n\n')
  ;(listener.finish ?? listener.end)()
}
