/**
 * `POST /api/pools/{id}/report` (outcome reports) and `GET /api/pools/{id}/next`
 * (what the next rotation would choose, and why).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../http/schemas.js'
import { PoolParams } from '../pools/pool.schemas.js'
import { ExplainQuery, Explanation, MemberHealth, ReportBody } from './health.schemas.js'
import type { HealthService } from './health.service.js'

const tags = ['health']

export const healthRoutes: FastifyPluginAsyncTypebox<{ health: HealthService }> = async (app, { health }) => {
  app.post('/api/pools/:pool_id/report', {
    schema: {
      tags,
      summary: 'Report the outcome of a call to a member provider',
      params: PoolParams,
      body: ReportBody,
      response: { 200: MemberHealth, ...errorResponses }
    },
    config: { failure: 'Failed to record report' }
  }, async (request) => await health.report(request.params.pool_id, request.body))

  app.get('/api/pools/:pool_id/next', {
    schema: {
      tags,
      summary: 'Which provider the next rotation would choose, and why every member is or is not eligible',
      params: PoolParams,
      querystring: ExplainQuery,
      response: { 200: Explanation, ...errorResponses }
    },
    config: { failure: 'Failed to explain rotation' }
  }, async (request) => await health.explain(request.params.pool_id, request.query.resource, request.query.key))
}
