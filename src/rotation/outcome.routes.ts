/**
 * `POST /api/pools/{id}/report`: the outcome of a call to a member provider,
 * which moves the member's health (outcome.service.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../http/schemas.js'
import { PoolParams } from '../pools/pool.schemas.js'
import { MemberHealth, ReportBody } from './outcome.schemas.js'
import type { OutcomeService } from './outcome.service.js'

const tags = ['health']

export const outcomeRoutes: FastifyPluginAsyncTypebox<{ outcomes: OutcomeService }> = async (app, { outcomes }) => {
  app.post('/api/pools/:pool_id/report', {
    schema: {
      tags,
      summary: 'Report the outcome of a call to a member provider',
      params: PoolParams,
      body: ReportBody,
      response: { 200: MemberHealth, ...errorResponses }
    },
    config: { failure: 'Failed to record report' }
  }, async (request) => await outcomes.report(request.params.pool_id, request.body))
}
