/**
 * What the event stream sends and to whom: the event types, one event and the
 * cursor after it (`<history id>-<audit id>`, the Last-Event-ID a client resumes
 * from), the event each history or audit record stands for, its text in the
 * text/event-stream format, and a listener with the filter an event must pass.
 */
import { COOLDOWN_PREFIX, historyKind, REFUSAL_PREFIX } from '../rules/history-kind.js'
import type { AuditEventRow, HistoryEventRow } from './event.repository.js'

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
  /** Resolves once what it holds unsent has gone out, or its connection has closed (a replay waits for it). */
  drained(): Promise<void>
}

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

/** Whether `event` passes `listener`'s filter (its pool and its types). */
export const passes = (listener: Listener, event: ServiceEvent): boolean =>
  (listener.poolId === undefined || event.pool_id === listener.poolId) && (listener.types === undefined || listener.types.has(event.type))
