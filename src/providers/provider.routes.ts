/**
 * `/api/providers`: the providers that pools draw their members from. What a
 * record shows depends on the caller's scope (see provider.service.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { actorOf } from '../audit/audit.js'
import { ErrorBody, errorResponses } from '../http/schemas.js'
import {
  CreateProviderBody, Provider, ProviderDeleted, ProviderList, ProviderListQuery, ProviderParams, ProviderWithMessage, UpdateProviderBody
} from './provider.schemas.js'
import type { ProviderService } from './provider.service.js'

const tags = ['providers']
const conflict = { 409: ErrorBody }

export const providerRoutes: FastifyPluginAsyncTypebox<{ providers: ProviderService }> = async (app, { providers }) => {
  app.post('/api/providers', {
    schema: { tags, summary: 'Create a provider', body: CreateProviderBody, response: { 200: ProviderWithMessage, ...errorResponses, ...conflict } },
    config: { failure: 'Failed to create provider' }
  }, async (request) => {
    const provider = await providers.createProvider(request.body, actorOf(request), request.callerScope)
    return { ...provider, message: `Provider '${provider.name}' created successfully` }
  })

  app.get('/api/providers', {
    schema: {
      tags,
      summary: 'List providers (a bare array, as the original service answered; X-Total-Count is how many there are in all)',
      querystring: ProviderListQuery,
      response: { 200: ProviderList, 422: errorResponses[422], 500: errorResponses[500] }
    },
    config: { failure: 'Failed to list providers' }
  }, async (request, reply) => {
    const { providers: list, total } = await providers.listProviders(request.callerScope, { offset: request.query.offset ?? 0, limit: request.query.limit })
    reply.header('x-total-count', String(total))
    return list
  })

  app.get('/api/providers/:provider_id', {
    schema: { tags, summary: 'Get a provider', params: ProviderParams, response: { 200: Provider, ...errorResponses } },
    config: { failure: 'Failed to get provider' }
  }, async (request) => await providers.getProvider(request.params.provider_id, request.callerScope))

  app.put('/api/providers/:provider_id', {
    schema: { tags, summary: 'Update a provider', params: ProviderParams, body: UpdateProviderBody, response: { 200: ProviderWithMessage, ...errorResponses, ...conflict } },
    config: { failure: 'Failed to update provider' }
  }, async (request) => {
    const provider = await providers.updateProvider(request.params.provider_id, request.body, actorOf(request), request.callerScope)
    return { ...provider, message: `Provider '${provider.name}' updated successfully` }
  })

  app.delete('/api/providers/:provider_id/rate_limit', {
    schema: { tags, summary: 'Remove a provider\'s rate limit', params: ProviderParams, response: { 200: ProviderWithMessage, ...errorResponses } },
    config: { failure: 'Failed to update provider' }
  }, async (request) => {
    const provider = await providers.removeRateLimit(request.params.provider_id, actorOf(request), request.callerScope)
    return { ...provider, message: `Rate limit of provider '${provider.name}' removed` }
  })

  app.delete('/api/providers/:provider_id', {
    schema: { tags, summary: 'Delete a provider and its memberships', params: ProviderParams, response: { 200: ProviderDeleted, ...errorResponses } },
    config: { failure: 'Failed to delete provider' }
  }, async (request) => {
    const provider = await providers.deleteProvider(request.params.provider_id, actorOf(request), request.callerScope)
    return { message: `Provider '${provider.name}' deleted successfully`, provider_id: provider.provider_id }
  })
}
