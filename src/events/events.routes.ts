/**
 * `GET /api/events`: a server-sent event stream of what happens — rotations,
 * failovers, health changes (cooldowns started, members recovered), refusals
 * learned, quota windows used up and admin changes — filtered by `?pool_id=` and `?type=`, resumable with Last-Event-ID
 * (or `?last_event_id=`), with a heartbeat comment every EVENTS_HEARTBEAT_MS.
 * `read` scope; at most EVENTS_MAX_CLIENTS streams at once (503 beyond); a replay
 * whose client takes nothing for EVENTS_STALL_MS is cut, so a stalled client does
 * not keep its place. The
 * stream is written on the raw connection, with the headers the hooks put on the
 * reply (the request id, CORS). `HEAD` answers the stream's headers at once and
 * opens no stream.
 */
import type { OutgoingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { DomainError, RequestValidationError, valueError } from '../errors.js'
import { ErrorBody } from '../http/schemas.js'
import { EVENT_TYPES, type Cursor, type EventHub, type EventType } from './event-hub.js'

/** The stream's own headers (the hooks' are added to them). */
const STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }

const EventsQuery = Type.Object({
  pool_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: 'only the events of this pool' })),
  type: Type.Optional(Type.String({ maxLength: 100, pattern: `^(${EVENT_TYPES.join('|')})(,(${EVENT_TYPES.join('|')}))*$`, description: `comma-separated: ${EVENT_TYPES.join(', ')}` })),
  last_event_id: Type.Optional(Type.String({ maxLength: 40, description: 'resume after this event (as the Last-Event-ID header does)' }))
})

/** The stream's headers and those the hooks put on `reply` (the request id, CORS), which a hijacked reply would drop. */
function streamHeaders (reply: FastifyReply): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value
  return { ...headers, ...STREAM_HEADERS }
}

const CURSOR = /^(\d{1,15})-(\d{1,15})$/

/** A Last-Event-ID as a cursor; 422 for one this service never sent. */
function cursorOf (text: string | undefined, loc: Array<string | number>): Cursor | undefined {
  if (text === undefined || text === '') return undefined
  const match = CURSOR.exec(text)
  if (match === null) throw new RequestValidationError([valueError(loc, text, 'not an event id of this stream (<history id>-<audit id>)')])
  return { history: Number(match[1]), audit: Number(match[2]) }
}

export const eventRoutes: FastifyPluginAsyncTypebox<{ hub: EventHub, maxClients: number, stallMs: number }> = async (app, { hub, maxClients, stallMs }) => {
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
    // The stream's headers and no body, at once (Node holds a HEAD answer's headers until it ends),
    // and no stream. An empty body stream, so that no content-length says the stream is empty.
    if (request.method === 'HEAD') return await reply.code(200).headers(STREAM_HEADERS).send(Readable.from([]) as unknown as string)
    const types = request.query.type === undefined ? undefined : new Set(request.query.type.split(',') as EventType[])
    const raw = reply.raw
    reply.hijack()
    raw.writeHead(200, streamHeaders(reply))
    raw.write('retry: 2000\n\n')
    const unsubscribe = hub.subscribe({
      ...(request.query.pool_id === undefined ? {} : { poolId: request.query.pool_id }),
      ...(types === undefined ? {} : { types }),
      write: (text) => {
        raw.write(text)
        return raw.writableLength
      },
      end: () => { if (!raw.destroyed) raw.destroy() },
      // Once the socket takes writes again ('drain' comes only after a write was refused);
      // a client that takes nothing for stallMs is cut (the close ends the wait and the replay).
      drained: async () => {
        if (raw.destroyed || !raw.writableNeedDrain) return
        await new Promise<void>((resolve) => {
          const cut = setTimeout(() => { raw.destroy() }, stallMs)
          const done = () => {
            clearTimeout(cut)
            raw.off('drain', done)
            raw.off('close', done)
            resolve()
          }
          raw.on('drain', done)
          raw.on('close', done)
        })
      }
    }, from)
    raw.on('close', unsubscribe)
  })
}
