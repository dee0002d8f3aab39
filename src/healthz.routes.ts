/**
 * `GET /healthz`: 200 while the database answers and takes writes, 503 when it is
 * read-only or does not answer. It answers within HEALTHZ_DEADLINE_MS whatever the
 * database does: a load balancer's probe must not hang on a lock or a lost server.
 * A response cache that cannot be used (Redis unreachable) does not make the service
 * unready — the proxy serves without it — but the 200 says so in `detail`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { DatabaseNotWritableError } from './db/errors.js'
import { ErrorBody } from './http/schemas.js'

/** How long the health check may take before the database counts as not answering. */
const HEALTHZ_DEADLINE_MS = 90

class HealthCheckTimeout extends Error {
  constructor () {
    super(`the database did not answer within ${HEALTHZ_DEADLINE_MS} ms`)
  }
}

/** `ping` is the database handle's health check (see DbHandle.ping). */
export const healthzRoutes: FastifyPluginAsyncTypebox<{ ping: () => Promise<void>, cacheProblem?: () => string | null }> = async (app, { ping, cacheProblem = () => null }) => {
  app.get('/healthz', {
    schema: {
      tags: ['health'],
      summary: 'Readiness: the database answers and takes writes',
      response: {
        200: Type.Object({
          status: Type.Literal('ok'),
          detail: Type.Optional(Type.String({ description: 'present when something works degraded, e.g. the response cache cannot reach Redis' }))
        }),
        503: ErrorBody
      }
    }
  }, async (request, reply) => {
    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        ping(),
        new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new HealthCheckTimeout()), HEALTHZ_DEADLINE_MS) })
      ])
      const problem = cacheProblem()
      return problem === null ? { status: 'ok' as const } : { status: 'ok' as const, detail: problem }
    } catch (error) {
      if (error instanceof DatabaseNotWritableError) {
        request.log.warn('health check: the database is read-only')
        return await reply.code(503).send({ detail: 'Database is not writable' })
      }
      request.log.warn({ err: error }, 'health check: database did not answer')
      return await reply.code(503).send({ detail: 'Database is not available' })
    } finally {
      clearTimeout(timer)
    }
  })
}
