/**
 * Mounts the `/api/v1` family from the catalogue: exactly the `registered` and
 * `partial` entries, each with the handler below. An entry without a handler, or a
 * handler without a mounted entry, stops start-up, so the two cannot disagree.
 */
import websocket from '@fastify/websocket'
import type { FastifyInstance, FastifyPluginAsync, RouteOptions } from 'fastify'
import { Type } from 'typebox'
import { ErrorBody } from '../http/schemas.js'
import { CATALOGUE, STUB_AGENTS, entryKey, isMounted, routerMethod, type CatalogueEntry } from './catalogue.js'
import { buildStatusReport, StatusReport } from './status-report.js'

/** Seconds a client is asked to wait before retrying an investigation. */
export const INVESTIGATION_RETRY_AFTER_S = 60
const CHAT_UNAVAILABLE = JSON.stringify({ type: 'error', detail: 'Chat message processing is not available' })

type RouteParts = Omit<RouteOptions, 'method' | 'url'>

function handlersFor (app: FastifyInstance): Record<string, RouteParts> {
  return {
    'GET /api/v1/status/endpoints': {
      schema: { tags: ['v1'], summary: 'Registration status of the /api/v1 routes', response: { 200: StatusReport } },
      handler: async () => buildStatusReport(CATALOGUE, (method, url) => app.hasRoute({ method, url }))
    },
    'POST /api/v1/investigations/start': {
      schema: { tags: ['v1'], summary: 'Start an investigation (temporarily unavailable)', response: { 503: ErrorBody } },
      handler: async (_request, reply) => await reply.code(503).header('retry-after', String(INVESTIGATION_RETRY_AFTER_S))
        .send({ detail: 'Investigation service is temporarily unavailable' })
    },
    'POST /graphql': {
      schema: {
        tags: ['v1'],
        summary: 'GraphQL (no schema is defined)',
        response: { 503: Type.Object({ errors: Type.Array(Type.Object({ message: Type.String() })) }) }
      },
      handler: async (_request, reply) => await reply.code(503).send({ errors: [{ message: 'GraphQL schema is not defined' }] })
    },
    'POST /api/v1/agents/:agent_name': {
      schema: {
        tags: ['v1'],
        summary: `Agent stubs (${STUB_AGENTS.join(', ')}); none is implemented`,
        params: Type.Object({ agent_name: Type.String({ maxLength: 100 }) }),
        response: { 404: ErrorBody, 501: ErrorBody }
      },
      handler: async (request, reply) => {
        const name = (request.params as { agent_name: string }).agent_name
        const known = (STUB_AGENTS as readonly string[]).includes(name)
        return await reply.code(known ? 501 : 404).send({ detail: known ? `Agent '${name}' is not implemented` : `Agent '${name}' not found` })
      }
    },
    'WS /api/v1/ws/chat': {
      schema: { tags: ['v1'], summary: 'Chat over WebSocket (messages are not processed); plain HTTP answers 426', response: { 426: ErrorBody } },
      handler: async (_request, reply) => await reply.code(426).header('upgrade', 'websocket').header('connection', 'Upgrade')
        .send({ detail: 'This endpoint speaks WebSocket only' }),
      wsHandler: (socket) => {
        socket.on('message', () => { socket.send(CHAT_UNAVAILABLE) })
      }
    }
  }
}

/** Registers the catalogue's mounted entries; throws when catalogue and handlers disagree. */
export const v1Routes: FastifyPluginAsync<{ catalogue?: readonly CatalogueEntry[] }> = async (app, options) => {
  const catalogue = options.catalogue ?? CATALOGUE
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } })
  const handlers = handlersFor(app)
  const mounted = catalogue.filter(isMounted)
  for (const key of Object.keys(handlers)) {
    if (!mounted.some((entry) => entryKey(entry) === key)) throw new Error(`v1 handler '${key}' has no registered or partial catalogue entry`)
  }
  for (const entry of mounted) {
    const parts = handlers[entryKey(entry)]
    if (parts === undefined) throw new Error(`v1 catalogue entry '${entryKey(entry)}' is ${entry.status} but has no handler`)
    app.route({ ...parts, method: routerMethod(entry), url: entry.path })
  }
}
