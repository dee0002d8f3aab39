/**
 * The event stream's hub, one per process: while anyone listens it reads, every
 * poll interval, what was stored since (rotation history and audit trail, by id,
 * so events of every process on the database arrive, within an interval), turns
 * rows into events and hands each to the listeners whose filter it passes. A
 * listener joining with a cursor (Last-Event-ID) is first given what it missed,
 * from storage, inside the same serialised poll, so nothing is lost or repeated.
 * A listener that does not read is dropped once its buffer passes a bound: a slow
 * client never slows the service or grows its memory.
 */
import type { WorkRunner } from '../db/work.js'
import { COOLDOWN_PREFIX, historyKind, REFUSAL_PREFIX } from '../rules/history-kind.js'
import { auditAfter, historyAfter, newestIds, type AuditEventRow, type HistoryEventRow } from './event.repository.js'

export const EVENT_TYPES = ['rotation', 'failover', 'health', 'refusal', 'quota', 'admin'] as const
export type EventType = typeof EVENT_TYPES[number]

/** One event as the stream sends it. */
export interface ServiceEvent {
  /** The cursor after it: `<history id>-<audit id>` (send it back as Last-Event-ID). */
  readonly id: string
  readonly type: EventType
  readonly pool_id: number | null
  readonly data: Record<string, unknown>
}

/** Where a stream stands in both sources. */
export interface Cursor { history: number, audit: number }

/** A listener's filter and its connection. */
export interface Listener {
  readonly poolId?: number
  readonly types?: ReadonlySet<EventType>
  /** Writes text to the client; answers the bytes it holds unsent. */
  write(text: string): number
  /** Ends the client's connection (a dropped client: what it holds unsent is thrown away). */
  end(): void
  /**
   * Ends the stream once what it holds is sent (a replay cut into pieces); end() when
   * left out. It still counts towards the hub's size until it unsubscribes.
   */
  finish?(): void
}

/** Rows read per source per poll (and per page of a replay). */
const PAGE = 500

/** Most events replayed to one joining listener (older ones are in the history API). */
const MAX_REPLAY = 10_000

/** History ids looked back at each poll: a PostgreSQL transaction may commit after a later id is seen. */
const LOOKBACK = 100

/**
 * The event a history record stands for (its kind by rules/history-kind.ts). A
 * cooldown's `until` is when the member turns probing: that is the passage of time,
 * not a write, so it is no event of its own, and a client shows it from `until`.
 */
export function historyEvent (row: HistoryEventRow, cursor: Cursor): ServiceEvent {
  const id = `${cursor.history}-${cursor.audit}`
  const base = { pool_id: row.pool_id, timestamp: row.timestamp, notes: row.notes }
  const about = { provider_id: row.from_provider_id, provider: row.from_name, until: row.until }
  const event = (type: EventType, data: Record<string, unknown>): ServiceEvent => ({ id, type, pool_id: row.pool_id, data: { ...base, ...data } })
  const kind = historyKind(row)
  switch (kind) {
    case 'cooldown':
      return event('health', { change: 'cooldown_started', cause: row.reason.slice(COOLDOWN_PREFIX.length), ...about })
    case 'recovered':
      return event('health', { change: 'recovered', provider_id: row.to_provider_id, provider: row.to_name })
    case 'refusal':
      return event('refusal', { change: 'learned', resource: row.reason.slice(REFUSAL_PREFIX.length), ...about })
    case 'quota':
      return event('quota', { change: 'exhausted', ...about })
    case 'check_failed':
      return event('health', { change: 'check_failed', ...about })
    default:
      // A failover that found no alternative is a failover too (`success: false`, `to` null).
      return event(kind === 'rotation' ? 'rotation' : 'failover', {
        reason: row.reason, success: row.success === 1, from_provider_id: row.from_provider_id, from: row.from_name, to_provider_id: row.to_provider_id, to: row.to_name
      })
  }
}

/** The event an audit record stands for. */
export function auditEvent (row: AuditEventRow, cursor: Cursor): ServiceEvent {
  const pool = /^pool:(\d+)/.exec(row.target)
  return {
    id: `${cursor.history}-${cursor.audit}`,
    type: 'admin',
    pool_id: pool === null ? null : Number(pool[1]),
    data: { timestamp: row.timestamp, action: row.action, target: row.target, actor: row.actor }
  }
}

/** An event in the text/event-stream format. */
export function eventText (event: ServiceEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`
}

const passes = (listener: Listener, event: ServiceEvent) =>
  (listener.poolId === undefined || event.pool_id === listener.poolId) && (listener.types === undefined || listener.types.has(event.type))

interface Deps {
  database: WorkRunner
  pollMs: number
  heartbeatMs: number
  /** Bytes a listener may hold unsent before it is dropped. */
  maxBufferedBytes: number
  warn?: (error: unknown, message: string) => void
}

/** Builds the hub; it reads nothing while nobody listens. */
export function createEventHub ({ database, pollMs, heartbeatMs, maxBufferedBytes, warn = () => {} }: Deps) {
  const listeners = new Set<Listener>()
  const joining: Array<{ listener: Listener, from: Cursor | undefined }> = []
  /** Streams ended after a piece of a replay, still counted until their connection closes. */
  const finishing = new Set<Listener>()
  let position: Cursor | undefined
  /** History ids delivered within the lookback window. */
  const delivered = new Set<number>()
  let timer: NodeJS.Timeout | undefined
  let heartbeat: NodeJS.Timeout | undefined
  let polling: Promise<void> | undefined
  let closed = false

  /** Sends `text` to `listener`, dropping it when its client has stopped reading. */
  function send (listener: Listener, text: string): void {
    if (!listeners.has(listener)) return
    if (listener.write(text) > maxBufferedBytes) drop(listener)
  }

  /**
   * Sends a joiner what it missed. A replay is written at once, faster than a network
   * takes it: one that would leave more than half the drop bound unsent is cut after
   * the event that passes it, and the stream ends there with `retry: 0`, so the
   * client comes back at once with that event's id for the next piece, instead of
   * being dropped mid-replay again and again.
   */
  function replayTo (listener: Listener, events: ServiceEvent[]): void {
    for (const event of events) {
      if (!passes(listener, event)) continue
      if (listener.write(eventText(event)) > maxBufferedBytes / 2) {
        listeners.delete(listener)
        finishing.add(listener)
        listener.write('retry: 0\n\n')
        ;(listener.finish ?? listener.end)()
        stopWhenIdle()
        return
      }
    }
  }

  /** Nobody listens or joins any more: the polls and heartbeats stop. */
  function stopWhenIdle (): void {
    if (listeners.size === 0 && joining.length === 0) stop()
  }

  function drop (listener: Listener): void {
    listeners.delete(listener)
    listener.end()
    stopWhenIdle()
  }

  /** The events after `from` up to `to`, from storage, in order (history, then audit). */
  async function missed (from: Cursor, to: Cursor): Promise<ServiceEvent[]> {
    const events: ServiceEvent[] = []
    const cursor = { ...from }
    /** Reads one source page by page from the cursor up to `to`, turning each row into an event. */
    async function replay<R extends { id: number }> (
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
    await replay('history', async (after) => await database.read((db) => historyAfter(db, after, PAGE)), historyEvent)
    await replay('audit', async (after) => await database.read((db) => auditAfter(db, after, PAGE)), auditEvent)
    return events
  }

  /** Where the stream starts when nobody listened: what is newest now (the window behind it counts as delivered). */
  async function startingPosition (): Promise<Cursor> {
    const newest = await database.read(newestIds)
    const window = await database.read((db) => historyAfter(db, Math.max(0, newest.history - LOOKBACK), PAGE))
    for (const row of window) if (row.id <= newest.history) delivered.add(row.id)
    return newest
  }

  async function poll (): Promise<void> {
    position ??= await startingPosition()
    // Joiners first: what they missed, up to where everyone else stands.
    for (const { listener, from } of joining.splice(0)) {
      listeners.add(listener)
      if (from !== undefined) replayTo(listener, await missed(from, position))
    }
    const since = position
    // The lookback window again: a row below the newest seen that was not delivered committed late.
    const history = await database.read((db) => historyAfter(db, Math.max(0, since.history - LOOKBACK), PAGE))
    const audit = await database.read((db) => auditAfter(db, since.audit, PAGE))
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
    for (const event of events) {
      const text = eventText(event)
      for (const listener of listeners) if (passes(listener, event)) send(listener, text)
    }
  }

  function tick (): void {
    if (polling !== undefined) return
    polling = poll().catch((error: unknown) => { warn(error, 'reading events failed') }).finally(() => { polling = undefined })
  }

  function start (): void {
    if (timer !== undefined || closed) return
    timer = setInterval(tick, pollMs)
    timer.unref()
    heartbeat = setInterval(() => { for (const listener of listeners) send(listener, ': heartbeat\n\n') }, heartbeatMs)
    heartbeat.unref()
  }

  function stop (): void {
    if (timer !== undefined) clearInterval(timer)
    if (heartbeat !== undefined) clearInterval(heartbeat)
    timer = undefined
    heartbeat = undefined
    // Nobody listens: the next listener starts from what is newest then.
    position = undefined
    delivered.clear()
  }

  return {
    /** How many listen (or are joining). */
    size: (): number => listeners.size + joining.length + finishing.size,

    /** Adds a listener, from `from` (what it missed is sent first) or from now; answers how to remove it. */
    subscribe (listener: Listener, from?: Cursor): () => void {
      joining.push({ listener, from })
      start()
      tick()
      return () => {
        listeners.delete(listener)
        finishing.delete(listener)
        const at = joining.findIndex((j) => j.listener === listener)
        if (at !== -1) joining.splice(at, 1)
        stopWhenIdle()
      }
    },

    /** Ends every stream (shutdown). */
    async close (): Promise<void> {
      closed = true
      stop()
      await polling
      for (const listener of [...listeners, ...finishing, ...joining.map((j) => j.listener)]) listener.end()
      listeners.clear()
      finishing.clear()
      joining.length = 0
    }
  }
}

export type EventHub = ReturnType<typeof createEventHub>
