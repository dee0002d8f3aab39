/**
 * The request id: the caller's X-Request-Id when it is a sane token (a front door's
 * id follows the request through the logs), a fresh UUID otherwise, and sent back
 * on every answer.
 */
import type { FastifyInstance, RawRequestDefaultExpression } from 'fastify'
import fp from 'fastify-plugin'

const REQUEST_ID = /^[\w.:-]{1,128}$/

/** Fastify's `genReqId` option. */
export function requestIdOf (request: RawRequestDefaultExpression): string {
  const sent = request.headers['x-request-id']
  return typeof sent === 'string' && REQUEST_ID.test(sent) ? sent : crypto.randomUUID()
}

async function requestIdPlugin (app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })
}

/** Answers carry `x-request-id`. */
export const requestId = fp(requestIdPlugin, { name: 'sourcepool-request-id' })
