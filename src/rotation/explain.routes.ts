/**
 * `GET /api/pools/{id}/next`: what the next rotation would choose, and why
 * (explain.service.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../http/schemas.js'
import { PoolParams } from '../pools/pool.schemas.js'
import { ExplainQuery, Explanation } from './explain.schemas.js'
import type { ExplainService } from './explain.service.js'

const tags = ['health']

export const explainRoutes: FastifyPluginAsyncTypebox<{ explain: ExplainService }> = async (app, { explain }) => {
  app.get('/api/pools/:pool_id/next', {
    schema: {
      tags,
      summary: 'Which provider the next rotation would choose, and why every member is or is not eligible',
      params: PoolParams,
      querystring: ExplainQuery,
      response: { 200: Explanation, ...errorResponses }
    },
    config: { failure: 'Failed to explain rotation' }
  }, async (request) => await explain.explain(request.params.pool_id, request.query.resource, request.query.key))
}
