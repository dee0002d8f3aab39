/**
 * `GET /healthz`: 200 once the database answers, 503 while it does not.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { ErrorBody } from './http/schemas.js'

export const healthzRoutes: FastifyPluginAsyncTypebox<{ ping: () => Promise<void> }> = async (app, { ping }) => {
  app.get('/healthz', {
    schema: {
      tags: ['health'],
      summary: 'Readiness: the database answers',
      response: { 200: Type.Object({ status: Type.Literal('ok') }), 503: ErrorBody }
    }
  }, async (request, reply) => {
    try {
      await ping()
      return { status: 'ok' as const }
    } catch (error) {
      request.log.warn({ err: error }, 'health check: database did not answer')
      return await reply.code(503).send({ detail: 'Database is not available' })
    }
  })
}
