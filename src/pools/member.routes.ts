/**
 * Operations 6–8 of the spec: add, update and remove pool members.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../audit/audit.js'
import { errorResponses } from '../http/schemas.js'
import {
  AddMemberBody, MemberAdded, MemberParams, MemberRemoved, MemberUpdated, PoolParams, UpdateMemberBody
} from './pool.schemas.js'
import type { MemberService } from './member.service.js'

const tags = ['members']

export const memberRoutes: FastifyPluginAsyncTypebox<{ members: MemberService }> = async (app, { members }) => {
  app.post('/api/pools/:pool_id/members', {
    schema: { tags, summary: 'Add a provider to a pool', params: PoolParams, body: AddMemberBody, response: { 200: MemberAdded, ...errorResponses } },
    config: { failure: 'Failed to add pool member', everyFailureIs500: true }
  }, async (request) => {
    const member = await members.addMember(request.params.pool_id, request.body, actorOf(request))
    return {
      member_id: member.id,
      pool_id: member.pool_id,
      provider_id: member.provider_id,
      provider_name: member.provider_name,
      priority: member.priority,
      weight: member.weight,
      message: `Provider '${member.provider_name}' added to pool ${member.pool_id}`
    }
  })

  app.put('/api/pools/:pool_id/members/:provider_id', {
    schema: { tags, summary: 'Update a pool member', params: MemberParams, body: UpdateMemberBody, response: { 200: MemberUpdated, ...errorResponses } },
    config: { failure: 'Failed to update pool member' }
  }, async (request) => {
    const { pool_id: poolId, provider_id: providerId } = request.params
    const member = await members.updateMember(poolId, providerId, request.body ?? {}, actorOf(request))
    return {
      pool_id: member.pool_id,
      provider_id: member.provider_id,
      priority: member.priority,
      weight: member.weight,
      enabled: member.enabled === 1,
      message: `Member ${providerId} of pool ${poolId} updated successfully`
    }
  })

  app.delete('/api/pools/:pool_id/members/:provider_id', {
    schema: { tags, summary: 'Remove a provider from a pool', params: MemberParams, response: { 200: MemberRemoved, ...errorResponses } },
    config: { failure: 'Failed to remove pool member' }
  }, async (request) => {
    const { pool_id: poolId, provider_id: providerId } = request.params
    await members.removeMember(poolId, providerId, actorOf(request))
    return { message: `Provider ${providerId} removed from pool ${poolId}`, pool_id: poolId, provider_id: providerId }
  })
}
