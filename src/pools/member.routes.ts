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
  }, async (request) => await members.addMember(request.params.pool_id, request.body, actorOf(request)))

  app.put('/api/pools/:pool_id/members/:provider_id', {
    schema: { tags, summary: 'Update a pool member', params: MemberParams, body: UpdateMemberBody, response: { 200: MemberUpdated, ...errorResponses } },
    config: { failure: 'Failed to update pool member' }
  }, async (request) => await members.updateMember(request.params.pool_id, request.params.provider_id, request.body ?? {}, actorOf(request)))

  app.delete('/api/pools/:pool_id/members/:provider_id', {
    schema: { tags, summary: 'Remove a provider from a pool', params: MemberParams, response: { 200: MemberRemoved, ...errorResponses } },
    config: { failure: 'Failed to remove pool member' }
  }, async (request) => await members.removeMember(request.params.pool_id, request.params.provider_id, actorOf(request)))
}
