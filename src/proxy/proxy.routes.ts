/**
 * `/api/pools/{pool_id}/proxy/*` for every method: the request goes to a member
 * of the pool (or is answered by the pool's response cache, cached-proxy.ts) and
 * the answer streams back with `x-sourcepool-provider`, `x-sourcepool-attempts`,
 * `x-sourcepool-cache` and `Age` when the pool has a cache, and our `x-request-id`
 * (the provider's own, if any, as `x-upstream-request-id`). Bodies of any type
 * are taken as bytes (up to 10 MiB, kept so each attempt can send them again).
 * TRACE and CONNECT are refused (405). `DELETE /api/pools/{pool_id}/cache` (admin)
 * empties the pool's cache.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { DomainError } from '../errors.js'
import { REQUEST_ID_HEADER } from '../http/request-id.js'
import { Id } from '../http/schemas.js'
import { UnsafePathError } from '../rules/upstream-url.js'
import { ALLOWED_METHODS, MethodNotAllowedError } from './forward.js'
import type { CachedProxy } from './cached-proxy.js'

/** The proxy's route (API calls other than this one first write down pending proxied traffic). */
export const PROXY_ROUTE = '/api/pools/:pool_id/proxy/*'

/** The header of an answer that ended its request because the pool's retry budget was spent (`exhausted`). */
export const RETRY_BUDGET_HEADER = 'x-sourcepool-retry-budget'

/** Largest request body the proxy forwards. */
export const PROXY_BODY_LIMIT = 10 * 1024 * 1024

/** A header value Node will send: printable ASCII as it is, anything else percent-encoded. */
const headerSafe = (text: string) => /^[\x20-\x7e]*$/.test(text) ? text : encodeURIComponent(text)

/** A provider's `Vary` with `Origin` added (an answer with CORS headers differs by the caller's origin). */
function varyWithOrigin (vary: string | string[]): string {
  const text = Array.isArray(vary) ? vary.join(', ') : vary
  return /(^|,)\s*(\*|origin)\s*(,|$)/i.test(text) ? text : `${text}, Origin`
}

/**
 * The proxy's routes. A provider's own `Access-Control-*` and `x-sourcepool-*`
 * headers never reach this far (forward.ts drops them, and servedHeaders from a
 * stored answer): the browser sees the service's CORS policy (with `ownCors`,
 * CORS_ORIGINS set) or none, never one the provider wrote for its own origin.
 */
export const proxyRoutes: FastifyPluginAsyncTypebox<{ proxy: CachedProxy, ownCors?: boolean }> = async (app, { proxy, ownCors = false }) => {
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
    const poolId = request.params.pool_id
    // Aborted when the client leaves before its answer starts: ends a wait (max_wait_ms, or
    // for another request's answer). Made only when something waits: a cache hit never does.
    let left: AbortController | undefined
    const onClose = () => { if (!reply.raw.headersSent) left?.abort() }
    let answer
    try {
      answer = await proxy.forward(poolId, {
        method: request.method,
        url: request.raw.url ?? request.url,
        headers: request.headers,
        body: Buffer.isBuffer(request.body) ? request.body : undefined,
        // Not request.ip: behind a trusted front door that is the client, already in X-Forwarded-For.
        peer: request.socket.remoteAddress ?? request.ip,
        protocol: request.protocol,
        requestId: request.id,
        log: request.log,
        get signal () {
          if (left === undefined) {
            left = new AbortController()
            if (reply.raw.destroyed || request.raw.socket?.destroyed === true) left.abort()
            else reply.raw.once('close', onClose)
          }
          return left.signal
        }
      })
    } catch (error) {
      if (error instanceof UnsafePathError) throw new DomainError(400, error.message)
      if (error instanceof MethodNotAllowedError) return reply.code(405).header('allow', ALLOWED_METHODS).send({ detail: error.message })
      throw error
    } finally {
      if (left !== undefined) reply.raw.removeListener('close', onClose)
    }
    if (answer.cache !== undefined) reply.header('x-sourcepool-cache', answer.cache)
    if (answer.kind === 'unavailable') {
      if (answer.retryAfterS !== null) reply.header('retry-after', String(answer.retryAfterS))
      return reply.code(503).send({ detail: `No available providers in pool ${poolId}` })
    }
    if (answer.kind === 'deadline') {
      return reply.code(504).send({ detail: `Deadline of ${answer.deadlineMs} ms exceeded for pool ${poolId}`, attempts: answer.attempts })
    }
    if (answer.kind === 'failed') {
      if (answer.retryBudget !== undefined) reply.header(RETRY_BUDGET_HEADER, answer.retryBudget)
      return reply.code(502).send({ detail: `All providers failed for pool ${poolId}`, attempts: answer.attempts, refusals: answer.refusals })
    }
    // The answer's headers are this request's own copy: ours go onto it.
    const headers = answer.headers
    // The provider's Vary replaces the one the CORS hook set: it must keep saying Origin.
    if (ownCors && headers.vary !== undefined) headers.vary = varyWithOrigin(headers.vary)
    headers['x-sourcepool-provider'] = headerSafe(answer.provider ?? '')
    headers['x-sourcepool-attempts'] = String(answer.attempts)
    if (answer.cache !== undefined) headers['x-sourcepool-cache'] = answer.cache
    if (answer.age !== undefined) headers.age = String(answer.age)
    if ('retryBudget' in answer && answer.retryBudget !== undefined) headers[RETRY_BUDGET_HEADER] = answer.retryBudget
    // Ours, whatever the provider sent (downstreamHeaders moved its own to x-upstream-request-id).
    headers[REQUEST_ID_HEADER] = request.id
    reply.code(answer.status).headers(headers)
    // No payload at all for an answer without a body, so its headers (Content-Length included) go back as sent.
    return answer.body === null ? reply.send() : reply.send(answer.body)
  })
}
