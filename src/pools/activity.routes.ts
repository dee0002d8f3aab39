/**
 * Activity for dashboards' charts: `GET /api/pools/{pool_id}/activity` (a pool's
 * rotations, failovers and members' latency per minute) and `GET /api/activity`
 * (every pool's rotations and failovers per minute, for sparklines).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../http/schemas.js'
import { ActivityOverview, ActivityQuery, OverviewQuery, PoolActivity } from './activity.schemas.js'
import type { ActivityService } from './activity.service.js'
import { PoolParams } from './pool.schemas.js'

const tags = ['pools']
const DEFAULT_MINUTES = 60

export const activityRoutes: FastifyPluginAsyncTypebox<{ activity: ActivityService }> = async (app, { activity }) => {
  app.get('/api/pools/:pool_id/activity', {
    schema: {
      tags,
      summary: "A pool's rotations, failovers and members' mean latency per minute, oldest minute first",
      params: PoolParams,
      querystring: ActivityQuery,
      response: { 200: PoolActivity, ...errorResponses }
    },
    config: { failure: 'Failed to get pool activity' }
  }, async (request) => await activity.poolActivity(request.params.pool_id, request.query.minutes ?? DEFAULT_MINUTES))

  app.get('/api/activity', {
    schema: {
      tags,
      summary: "Every pool's rotations and failovers per minute, oldest minute first",
      querystring: OverviewQuery,
      response: { 200: ActivityOverview, 422: errorResponses[422], 500: errorResponses[500] }
    },
    config: { failure: 'Failed to get activity' }
  }, async (request) => await activity.overview(request.query.minutes ?? DEFAULT_MINUTES))
}
