/**
 * `GET /api/events`: a server-sent event stream of what happens — rotations,
 * failovers, health changes (cooldowns started, members recovered), refusals
 * learned, quota windows used up and admin changes — filtered by `?pool_id=` and `?type=`, resumable with Last-Event-ID
 * (or `?last_event_id=`), with a heartbeat comment every EVENTS_HEARTBEAT_MS.
 * `read` scope; at most EVENTS_MAX_CLIENTS streams at once (503 beyond).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { DomainError, RequestValidationError, valueError } from '../errors.js'
import { ErrorBody } from '../http/schemas.js'
import { EVENT_TYPES, type Cursor, type EventHub, type EventType } from './event-hub.js'

/** How long a stream ended after a piece of its replay may take to receive what it holds. */
const FINISH_GRACE_MS = 10_000

const EventsQuery = Type.Object({
  pool_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'only the events of this pool' })),
  type: Type.Optional(Type.String({ maxLength: 100, pattern: `^(${EVENT_TYPES.join('|')})(,(${EVENT_TYPES.join('|')}))*$`, description: `comma-separated: ${EVENT_TYPES.join(', ')}` })),
  last_event_id: Type.Optional(Type.String({ maxLength: 40, description: 'resume after this event (as the Last-Event-ID header does)' }))
})

const CURSOR = /^(\d{1,15})-(\d{1,15})$/

/** A Last-Event-ID as a cursor; 422 for one this service never sent. */
function cursorOf (text: string | undefined, loc: Array<string | number>): Cursor | undefined {
  if (text === undefined || text === '') return undefined
  const match = CURSOR.exec(text)
  if (match === null) throw new RequestValidationError([valueError(loc, text, 'not an event id of this stream (<history id>-<audit id>)')])
  return { history: Number(match[1]), audit: Number(match[2]) }
}

export const eventRoutes: FastifyPluginAsyncTypebox<{ hub: EventHub, maxClients: number }> = async (app, { hub, maxClients }) => {
  app.get('/api/events', {
    schema: {
      tags: ['events'],
      summary: 'A server-sent event stream of rotations, failovers, health changes, refusals learned, quota windows used up and admin changes',
      querystring: EventsQuery,
      produces: ['text/event-stream'],
      response: { 200: Type.String({ description: `text/event-stream: \`id\`, \`event\` (${EVENT_TYPES.join(', ')}) and \`data\` (JSON) per event` }), 503: ErrorBody }
    },
    config: { failure: 'Failed to open the event stream' }
  }, async (request, reply) => {
    const header = request.headers['last-event-id']
    const from = typeof header === 'string' && header !== ''
      ? cursorOf(header, ['header', 'last-event-id'])
      : cursorOf(request.query.last_event_id, ['query', 'last_event_id'])
    if (hub.size() >= maxClients) throw new DomainError(503, `At most ${maxClients} event streams at once; retry later`)
    const types = request.query.type === undefined ? undefined : new Set(request.query.type.split(',') as EventType[])
    const raw = reply.raw
    reply.hijack()
    raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' })
    raw.write('retry: 2000\n\n')
    const unsubscribe = hub.subscribe({
      ...(request.query.pool_id === undefined ? {} : { poolId: request.query.pool_id }),
      ...(types === undefined ? {} : { types }),
      write: (text) => {
        raw.write(text)
        return raw.writableLength
      },
      end: () => { if (!raw.destroyed) raw.destroy() },
      // What it holds goes out first; a client that does not take it within the grace is cut.
      finish: () => {
        raw.end()
        const cut = setTimeout(() => { raw.destroy() }, FINISH_GRACE_MS)
        cut.unref()
        raw.on('close', () => { clearTimeout(cut) })
      }
    }, from)
    raw.on('close', unsubscribe)
  })
}
