/**
 * `/api/providers/{provider_id}/refusals`: the resources a provider refuses
 * (it answered 403 through the proxy), and clearing one.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { actorOf } from '../audit/audit.js'
import { errorResponses, Id, Timestamp } from '../http/schemas.js'
import { normaliseResource, type RefusalService } from './refusal.service.js'

const tags = ['proxy']

const Refusal = Type.Object({
  resource: Type.String({ description: 'first path segment, e.g. /despesas' }),
  first_seen: Timestamp,
  last_seen: Timestamp,
  expires_at: Timestamp
})

export const refusalRoutes: FastifyPluginAsyncTypebox<{ refusals: RefusalService }> = async (app, { refusals }) => {
  app.get('/api/providers/:provider_id/refusals', {
    schema: {
      tags,
      summary: 'The resources a provider refuses',
      params: Type.Object({ provider_id: Id }),
      response: { 200: Type.Object({ provider_id: Type.Integer(), refusals: Type.Array(Refusal), total: Type.Integer() }), ...errorResponses }
    },
    config: { failure: 'Failed to list refusals' }
  }, async (request) => {
    const list = await refusals.list(request.params.provider_id)
    return {
      provider_id: request.params.provider_id,
      refusals: list.map((r) => ({ resource: r.resource, first_seen: r.first_seen, last_seen: r.last_seen, expires_at: r.expires_at })),
      total: list.length
    }
  })

  app.delete('/api/providers/:provider_id/refusals/:resource', {
    schema: {
      tags,
      summary: 'Clear a refusal, so the provider serves the resource again',
      params: Type.Object({ provider_id: Id, resource: Type.String({ minLength: 1, maxLength: 1000, description: 'the resource with or without its leading slash' }) }),
      response: { 200: Type.Object({ message: Type.String(), provider_id: Type.Integer(), resource: Type.String() }), ...errorResponses }
    },
    config: { failure: 'Failed to clear refusal' }
  }, async (request) => {
    const resource = normaliseResource(request.params.resource)
    await refusals.clear(request.params.provider_id, resource, actorOf(request))
    return { message: `Refusal of '${resource}' cleared`, provider_id: request.params.provider_id, resource }
  })
}
