/**
 * Operations 9–11 of the spec: rotate, fail over, and read the rotation history.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errorResponses } from '../http/schemas.js'
import { PoolParams } from '../pools/pool.schemas.js'
import { FailoverBody, FailoverResult, HistoryQuery, HistoryResult, RotateBody, RotateResult } from './rotation.schemas.js'
import type { RotationService } from './rotation.service.js'

const tags = ['rotation']

export const rotationRoutes: FastifyPluginAsyncTypebox<{ rotation: RotationService }> = async (app, { rotation }) => {
  app.post('/api/pools/:pool_id/rotate', {
    schema: {
      tags,
      summary: 'Rotate the pool to its next available provider',
      description: 'The body is optional: `curl -X POST …/rotate` rotates with reason `manual`.',
      params: PoolParams,
      body: RotateBody,
      response: { 200: RotateResult, ...errorResponses }
    },
    config: { failure: 'Failed to trigger rotation' }
  }, async (request) => {
    const poolId = request.params.pool_id
    const result = await rotation.rotate(poolId, request.body?.reason ?? 'manual', request.body?.key)
    return {
      pool_id: poolId,
      provider_id: result.providerId,
      provider_name: result.providerName,
      timestamp: result.timestamp,
      message: `Rotated to provider '${result.providerName ?? result.providerId}'`,
      ...(result.degraded ? { degraded: true } : {})
    }
  })

  app.post('/api/pools/:pool_id/failover', {
    schema: {
      tags,
      summary: 'Fail over from a failed provider to another',
      description: '404 `Member not found in pool <pool_id>` when `failed_provider_id` is not a member of the pool (nothing is written); ' +
        '404 `No alternative providers available in pool <pool_id>` when no other member is available (the failure and a failed history record are kept).',
      params: PoolParams,
      body: FailoverBody,
      response: { 200: FailoverResult, ...errorResponses }
    },
    config: { failure: 'Failed to trigger failover' }
  }, async (request) => {
    const poolId = request.params.pool_id
    const failedId = request.body.failed_provider_id
    const result = await rotation.failover(poolId, failedId, request.body.reason ?? 'manual_failover')
    return {
      pool_id: poolId,
      failed_provider_id: failedId,
      new_provider_id: result.providerId,
      new_provider_name: result.providerName,
      timestamp: result.timestamp,
      message: `Failed over from provider '${result.failedProviderName ?? failedId}' to '${result.providerName ?? result.providerId}'`,
      ...(result.degraded ? { degraded: true } : {})
    }
  })

  app.get('/api/pools/:pool_id/history', {
    schema: {
      tags,
      summary: 'Rotation history, newest first',
      params: PoolParams,
      querystring: HistoryQuery,
      response: { 200: HistoryResult, 422: errorResponses[422], 500: errorResponses[500] }
    },
    config: { failure: 'Failed to get rotation history', everyFailureIs500: true }
  }, async (request) => {
    const poolId = request.params.pool_id
    const history = await rotation.history(poolId, request.query.limit ?? 50)
    return { pool_id: poolId, history, total: history.length }
  })
}
