/**
 * The request id: the caller's X-Request-Id when it is a sane token (a front door's
 * id follows the request through the logs), a fresh UUID otherwise, and sent back
 * on every answer, whichever layer writes it. Fastify's answers get it from the first
 * onRequest hook of the instance (so no hook that answers early can run before it);
 * the answers written outside Fastify's lifecycle (connections.ts: Node's own 4xx,
 * the router's refusals) use requestIdOf and requestIdGiven below.
 */
import { randomUUID } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, RawRequestDefaultExpression } from 'fastify'

/** The header the id comes in and goes back in. */
export const REQUEST_ID_HEADER = 'x-request-id'

const SANE = /^[\w.:-]{1,128}$/

/** Where the id given to a raw request is kept, for an answer written outside Fastify (a timeout). */
const GIVEN = Symbol('sourcepool.requestId')

/** Whether a client's id is kept (1–128 of `[A-Za-z0-9_.:-]`): anything else is replaced by a UUID. */
export function isSaneRequestId (sent: unknown): sent is string {
  return typeof sent === 'string' && SANE.test(sent)
}

/** Fastify's `genReqId` option; the id is remembered on the raw request. */
export function requestIdOf (request: RawRequestDefaultExpression): string {
  const sent = request.headers[REQUEST_ID_HEADER]
  const id = isSaneRequestId(sent) ? sent : randomUUID()
  ;(request as IncomingMessage & { [GIVEN]?: string })[GIVEN] = id
  return id
}

/** The id already given to `request` (it reached Fastify), if any. */
export function requestIdGiven (request: IncomingMessage | undefined): string | undefined {
  return (request as (IncomingMessage & { [GIVEN]?: string }) | undefined)?.[GIVEN]
}

/**
 * Puts `x-request-id` on every answer Fastify sends. Call it on the bare instance,
 * before any other hook is added: an onRequest hook that answers (the 404 of an
 * unknown route, a refused token) stops the hooks after it.
 */
export function sendRequestIds (app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id)
    done()
  })
}
