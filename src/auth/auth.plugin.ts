/**
 * Bearer-token authentication with scopes, applied to every route. Each route's
 * required scope is decided once, when the route is registered (`requiredScope`),
 * and kept in `app.routeScopes` so tests can walk every route. With no tokens
 * configured the service is open (config.ts keeps it on loopback then).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { FailureLimiter } from './failure-limit.js'
import { SCOPE_RANK, findToken, type Scope, type Token } from './tokens.js'

export type RouteScope = 'open' | Scope

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Decided by the auth plugin at registration; never set by hand. */
    scope?: RouteScope
    /** A request without an Authorization header passes (as `anonymous`, callerScope null); one with a header is checked as usual. */
    optionalAuth?: boolean
  }
  interface FastifyRequest {
    /** The authenticated token's name, or `anonymous`. */
    actor: string
    /**
     * What the caller may do: its token's scope; `admin` for everyone when no tokens are
     * configured (the service is open); null on an open route of a service with tokens.
     */
    callerScope: Scope | null
  }
  interface FastifyInstance {
    /** `METHOD /path` → the scope that route requires. */
    routeScopes: Map<string, RouteScope>
  }
}

/** Data-plane calls a `client` token may make besides reading. */
const CLIENT_ROUTES = new Set([
  'POST /api/pools/:pool_id/rotate',
  'POST /api/pools/:pool_id/failover',
  'POST /api/pools/:pool_id/report',
  'POST /api/chunks/search',
  'POST /api/v1/investigations/start',
  'POST /api/v1/agents/:agent_name',
  'POST /graphql'
])

/** Reads that only admins may make (the audit trail; the declared state shows base URLs and check paths unmasked). */
const ADMIN_READS = new Set(['/api/audit', '/api/config/export'])

/** The dashboard's page and files, and `/` that redirects to it: they hold no data (what they show is read with the token the page asks for). */
const isUi = (url: string) => url === '/' || url === '/ui' || url.startsWith('/ui/')

/** The API documentation: Swagger UI's routes and the OpenAPI document. */
const isDocs = (url: string) => url === '/openapi.json' || url === '/docs' || url.startsWith('/docs/')

/**
 * The scope a route requires: open health check and dashboard files (and docs, when public), read for GETs
 * and docs, client for the data plane, admin for the rest.
 */
export function requiredScope (method: string, url: string, publicDocs = true): RouteScope {
  if (url === '/healthz' || isUi(url)) return 'open'
  if (isDocs(url)) return publicDocs ? 'open' : 'read'
  // The proxy is the data plane whatever the method.
  if (url === '/api/pools/:pool_id/proxy/*' || url === '/p/:pool_name/*') return 'client'
  if (ADMIN_READS.has(url)) return 'admin'
  if (method === 'GET' || method === 'HEAD') return 'read'
  if (CLIENT_ROUTES.has(`${method} ${url}`)) return 'client'
  return 'admin'
}

/** A refusal of a request's credentials: its status, the headers it adds and its `detail`. */
export interface AuthRefusal {
  readonly status: 401 | 403 | 429
  readonly headers: Readonly<Record<string, string>>
  readonly detail: string
}

const NOT_AUTHENTICATED: AuthRefusal = { status: 401, headers: { 'www-authenticate': 'Bearer' }, detail: 'Not authenticated' }

/** A 403 naming the scope the route needs as RFC 6750 says (the body stays the contract's). */
const insufficientScope = (scope: Scope): AuthRefusal =>
  ({ status: 403, headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` }, detail: 'Not enough permissions' })

/** The secret of a bearer `Authorization` header (the scheme is case-insensitive, RFC 9110), or undefined. */
function bearerSecret (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const space = header.indexOf(' ')
  if (space === -1 || header.slice(0, space).toLowerCase() !== 'bearer') return undefined
  return header.slice(space + 1).trim()
}

/**
 * The check of a request that needs `scope`, from `address` (request.ip) with its
 * `Authorization` header: the token it presents, or the refusal (429 while the
 * address has failed too often, 401, 403). Shared by the routes' hook below and the
 * data plane (proxy/admit.ts), which runs outside Fastify's lifecycle.
 */
export function checkScope (
  tokens: readonly Token[], scope: Scope, failures: FailureLimiter | undefined, address: string, authorization: string | undefined
): Token | AuthRefusal {
  const wait = failures?.retryAfterS(address)
  if (wait !== undefined) {
    return { status: 429, headers: { 'retry-after': String(wait) }, detail: `Too many failed authentications from this address; retry in ${wait} s` }
  }
  const secret = bearerSecret(authorization)
  const token = secret === undefined ? undefined : findToken(tokens, secret)
  if (token === undefined) {
    failures?.fail(address)
    return NOT_AUTHENTICATED
  }
  return SCOPE_RANK[token.scope] < SCOPE_RANK[scope] ? insufficientScope(scope) : token
}

/** True for a refusal (rather than the token presented). */
export const isRefusal = (checked: Token | AuthRefusal): checked is AuthRefusal => 'status' in checked

/** The onRequest check for a route that requires `scope`; sets `request.actor` and `request.callerScope`. */
function requireScope (tokens: readonly Token[], scope: Scope, failures: FailureLimiter | undefined) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const checked = checkScope(tokens, scope, failures, request.ip, request.headers.authorization)
    if (isRefusal(checked)) {
      reply.code(checked.status).headers(checked.headers).send({ detail: checked.detail })
      return
    }
    request.actor = checked.name
    request.callerScope = checked.scope
    done()
  }
}

/** What the auth plugin is configured with. */
export interface AuthOptions {
  tokens: readonly Token[]
  /** `/openapi.json` and `/docs` without a token. */
  publicDocs: boolean
  /** Failed authentications per address counted for 429 (shared with the data plane); undefined: unlimited. */
  failures: FailureLimiter | undefined
}

async function authPlugin (app: FastifyInstance, { tokens, publicDocs, failures }: AuthOptions): Promise<void> {
  const scopes = new Map<string, RouteScope>()
  app.decorate('routeScopes', scopes)
  app.decorateRequest('actor', 'anonymous')
  app.decorateRequest('callerScope', tokens.length === 0 ? 'admin' : null)

  // The check is attached to each route as it is registered, with its scope baked
  // in, so no request pays for looking its route's options up. Unmatched paths (404)
  // and the open health check carry no check. Only admin routes are rate limited.
  app.addHook('onRoute', (route) => {
    const methods = ([] as string[]).concat(route.method)
    for (const method of methods) scopes.set(`${method} ${route.url}`, requiredScope(method, route.url, publicDocs))
    const scope = requiredScope(methods[0] as string, route.url, publicDocs)
    route.config = { ...route.config, scope, ...(scope === 'admin' ? {} : { rateLimit: false }) }
    if (tokens.length === 0 || scope === 'open') return
    const existing = route.onRequest === undefined ? [] : ([] as unknown[]).concat(route.onRequest)
    const check = requireScope(tokens, scope, failures)
    const optional = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
      if (request.headers.authorization === undefined) done()
      else check(request, reply, done)
    }
    route.onRequest = [route.config?.optionalAuth === true ? optional : check, ...existing] as typeof route.onRequest
  })
}

/** Registered first in buildApp, unencapsulated, so it sees every route. */
export const auth = fp(authPlugin, { name: 'sourcepool-auth' })
