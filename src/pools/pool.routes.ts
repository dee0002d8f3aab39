/**
 * Operations 1–5 of the spec: list, create, read, update and delete pools.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../audit/audit.js'
import { errorResponses, nowIso } from '../http/schemas.js'
import {
  CreatePoolBody, PoolCreated, PoolDeleted, PoolList, PoolParams, PoolStatus, PoolUpdated, UpdatePoolBody
} from './pool.schemas.js'
import type { PoolService } from './pool.service.js'

const tags = ['pools']

export const poolRoutes: FastifyPluginAsyncTypebox<{ pools: PoolService }> = async (app, { pools }) => {
  app.get('/api/pools', {
    schema: { tags, summary: 'List pools with their status', response: { 200: PoolList, 500: errorResponses[500] } },
    config: { failure: 'Failed to list pools' }
  }, async () => {
    const list = await pools.listPoolStatuses()
    return { pools: list, total: list.length, timestamp: nowIso() }
  })

  app.post('/api/pools', {
    schema: { tags, summary: 'Create a pool', body: CreatePoolBody, response: { 200: PoolCreated, ...errorResponses } },
    config: { failure: 'Failed to create pool', everyFailureIs500: true }
  }, async (request) => {
    const pool = await pools.createPool(request.body, actorOf(request))
    return {
      pool_id: pool.id,
      name: pool.name,
      category: pool.category,
      rotation_strategy: pool.rotation_strategy,
      created_at: pool.created_at,
      message: `Pool '${pool.name}' created successfully`
    }
  })

  app.get('/api/pools/:pool_id', {
    schema: { tags, summary: 'Get a pool status record', params: PoolParams, response: { 200: PoolStatus, ...errorResponses } },
    config: { failure: 'Failed to get pool status' }
  }, async (request) => await pools.getPoolStatus(request.params.pool_id))

  app.put('/api/pools/:pool_id', {
    schema: { tags, summary: 'Update a pool', params: PoolParams, body: UpdatePoolBody, response: { 200: PoolUpdated, ...errorResponses } },
    config: { failure: 'Failed to update pool' }
  }, async (request) => {
    const pool = await pools.updatePool(request.params.pool_id, request.body ?? {}, actorOf(request))
    return {
      pool_id: pool.id,
      name: pool.name,
      rotation_strategy: pool.rotation_strategy,
      enabled: pool.enabled === 1,
      updated_at: pool.updated_at,
      message: `Pool '${pool.name}' updated successfully`
    }
  })

  app.delete('/api/pools/:pool_id', {
    schema: { tags, summary: 'Delete a pool with its members and history', params: PoolParams, response: { 200: PoolDeleted, ...errorResponses } },
    config: { failure: 'Failed to delete pool' }
  }, async (request) => {
    const pool = await pools.deletePool(request.params.pool_id, actorOf(request))
    return { message: `Pool '${pool.name}' deleted successfully`, pool_id: pool.id }
  })
}
