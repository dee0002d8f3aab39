/**
 * The proxy's routes as Fastify knows them. Proxied requests themselves are served
 * by the data plane (data-plane.ts) on the raw request, before Fastify's router:
 * these routes document them (OpenAPI, scopes) and answer the few the data plane
 * leaves to Fastify (entry.ts: an absolute-form target, an id written `01`), after
 * Fastify's hooks admitted them, through the same stages. Bodies of any type are
 * taken as bytes (up to 10 MiB). `DELETE /api/pools/{pool_id}/cache` (admin)
 * empties the pool's cache.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { DomainError } from '../errors.js'
import { Id } from '../http/schemas.js'
import { PROXY_BODY_LIMIT } from './admit.js'
import type { CachedProxy } from './cached-proxy.js'
import type { DataPlane } from './data-plane.js'
import { NAMED_PROXY_ROUTE, PROXY_ROUTE } from './entry.js'

export { PROXY_ROUTE, NAMED_PROXY_ROUTE } from './entry.js'
export { RETRY_BUDGET_HEADER } from './reply.js'
export { PROXY_BODY_LIMIT } from './admit.js'

/** The proxy's routes: the cache purge, and the data plane's two URL forms. */
export const proxyRoutes: FastifyPluginAsyncTypebox<{ proxy: CachedProxy, dataPlane: DataPlane }> = async (app, { proxy, dataPlane }) => {
  // This plugin's own parsers: any content type, as bytes.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PROXY_BODY_LIMIT }, (_request, body, done) => { done(null, body) })

  app.delete('/api/pools/:pool_id/cache', {
    schema: {
      tags: ['proxy'],
      summary: "Empty the pool's response cache",
      params: Type.Object({ pool_id: Id }),
      response: { 200: Type.Object({ pool_id: Type.Integer(), purged: Type.Integer(), message: Type.String() }) }
    },
    config: { failure: 'Failed to purge the cache' }
  }, async (request) => {
    const poolId = request.params.pool_id
    if (!await proxy.poolExists(poolId)) throw new DomainError(404, `Pool ${poolId} not found`)
    let purged: number
    try {
      purged = await proxy.purge(poolId)
    } catch (error) {
      request.log.warn({ err: error }, 'cache purge failed')
      throw new DomainError(503, `Cache of pool ${poolId} could not be purged: ${proxy.problem() ?? 'the cache store did not answer'}`)
    }
    return { pool_id: poolId, purged, message: `Purged ${purged} cached ${purged === 1 ? 'answer' : 'answers'} of pool ${poolId}` }
  })

  app.all(PROXY_ROUTE, {
    schema: {
      tags: ['proxy'],
      summary: 'Forward a request to a provider of the pool, failing over within the request',
      params: Type.Object({ pool_id: Id, '*': Type.String() })
    },
    bodyLimit: PROXY_BODY_LIMIT,
    config: { failure: 'Failed to proxy the request' }
  }, async (request, reply) => {
    reply.hijack()
    await dataPlane.handle(request.raw, reply.raw, { route: PROXY_ROUTE, poolId: request.params.pool_id }, Buffer.isBuffer(request.body) ? request.body : undefined)
  })

  app.all(NAMED_PROXY_ROUTE, {
    schema: {
      tags: ['proxy'],
      summary: 'Forward a request to a provider of the pool named in the path (as /api/pools/{pool_id}/proxy/…)',
      params: Type.Object({ pool_name: Type.String({ minLength: 1, maxLength: 200 }), '*': Type.String() })
    },
    bodyLimit: PROXY_BODY_LIMIT,
    config: { failure: 'Failed to proxy the request' }
  }, async (request, reply) => {
    reply.hijack()
    await dataPlane.handle(request.raw, reply.raw, { route: NAMED_PROXY_ROUTE, name: request.params.pool_name }, Buffer.isBuffer(request.body) ? request.body : undefined)
  })
}
