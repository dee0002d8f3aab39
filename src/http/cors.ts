/**
 * CORS, opt-in (CORS_ORIGINS): lets pages served from other origins (a dashboard
 * host, the original service's pool page, a page opened from a file) call the API
 * from a browser. Off by default: without it, a browser keeps other sites' pages
 * from reading the API's answers.
 *
 * Registered before authentication, so a preflight (which a browser sends without
 * the Authorization header) is answered without a token, and so a refusal (401,
 * 403, 429) carries the CORS headers a page needs to read its `detail`. Only a
 * real preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is
 * answered here: any other `OPTIONS` goes on to its route, so the proxy forwards
 * it to the provider as before.
 */
import cors, { type FastifyCorsOptions } from '@fastify/cors'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/** Response headers a page may read besides the CORS-safelisted ones. */
export const EXPOSED_HEADERS = [
  'x-sourcepool-provider', 'x-sourcepool-attempts', 'x-sourcepool-cache', 'x-total-count', 'x-request-id', 'x-upstream-request-id', 'retry-after', 'etag', 'location'
]

/** Every method a route of the service answers (the proxy's included). */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']

/** How long a browser may reuse a preflight's answer, in seconds. */
export const PREFLIGHT_MAX_AGE_S = 600

/** Whether `request` is a CORS preflight (rather than an `OPTIONS` meant for its route). */
const isPreflight = (request: FastifyRequest) =>
  request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined

/**
 * Answers CORS for `origins` (`*` or a list of exact origins). Every method the
 * service serves may be asked for; the request headers a preflight names are
 * allowed (the Authorization header included). No credentials mode: tokens travel
 * as bearer headers, never as cookies.
 */
export async function registerCors (app: FastifyInstance, origins: '*' | readonly string[]): Promise<void> {
  const base: FastifyCorsOptions = {
    origin: origins === '*' ? '*' : [...origins],
    methods: METHODS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: PREFLIGHT_MAX_AGE_S,
    credentials: false
  }
  const preflight = { ...base, preflight: true }
  const other = { ...base, preflight: false }
  // A request without Origin (a server-side client, most proxy traffic) gets no CORS
  // headers to carry; its answer still says `Vary: Origin`, for caches.
  const noOrigin = { ...base, origin: false, preflight: false }
  await app.register(cors, {
    hideOptionsRoute: true,
    delegator: (request, callback) => {
      callback(null, request.headers.origin === undefined ? noOrigin : isPreflight(request) ? preflight : other)
    }
  })
}
