/**
 * Bearer-token authentication with scopes, applied to every route. Each route's
 * required scope is decided once, when the route is registered (`requiredScope`),
 * and kept in `app.routeScopes` so tests can walk every route. With no tokens
 * configured the service is open (config.ts keeps it on loopback then).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { createFailureLimiter, type FailureLimiter } from './failure-limit.js'
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
  if (url === '/api/pools/:pool_id/proxy/*') return 'client'
  if (ADMIN_READS.has(url)) return 'admin'
  if (method === 'GET' || method === 'HEAD') return 'read'
  if (CLIENT_ROUTES.has(`${method} ${url}`)) return 'client'
  return 'admin'
}

/** A 401, or a 403 naming the scope the route needs as RFC 6750 says (the body stays the contract's). */
function deny (reply: FastifyReply, status: 401 | 403, scope?: Scope): FastifyReply {
  if (status === 401) return reply.code(401).header('www-authenticate', 'Bearer').send({ detail: 'Not authenticated' })
  return reply.code(403).header('www-authenticate', `Bearer error="insufficient_scope", scope="${scope ?? 'admin'}"`).send({ detail: 'Not enough permissions' })
}

/** The secret of a bearer `Authorization` header (the scheme is case-insensitive, RFC 9110), or undefined. */
function bearerSecret (header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const space = header.indexOf(' ')
  if (space === -1 || header.slice(0, space).toLowerCase() !== 'bearer') return undefined
  return header.slice(space + 1).trim()
}

/** The onRequest check for a route that requires `scope`; sets `request.actor` and `request.callerScope`. */
function requireScope (tokens: readonly Token[], scope: Scope, failures: FailureLimiter | undefined) {
  return (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const wait = failures?.retryAfterS(request.ip)
    if (wait !== undefined) {
      reply.code(429).header('retry-after', String(wait))
        .send({ detail: `Too many failed authentications from this address; retry in ${wait} s` })
      return
    }
    const secret = bearerSecret(request.headers.authorization)
    const token = secret === undefined ? undefined : findToken(tokens, secret)
    if (token === undefined) {
      failures?.fail(request.ip)
      deny(reply, 401)
      return
    }
    request.actor = token.name
    request.callerScope = token.scope
    if (SCOPE_RANK[token.scope] < SCOPE_RANK[scope]) {
      deny(reply, 403, scope)
      return
    }
    done()
  }
}

/** What the auth plugin is configured with. */
export interface AuthOptions {
  tokens: readonly Token[]
  /** `/openapi.json` and `/docs` without a token. */
  publicDocs: boolean
  /** Failed authentications per minute per address before 429; null: unlimited. */
  failureLimit: number | null
  /** The clock the failure windows run on (ms). */
  now: () => number
}

async function authPlugin (app: FastifyInstance, { tokens, publicDocs, failureLimit, now }: AuthOptions): Promise<void> {
  const failures = failureLimit === null ? undefined : createFailureLimiter(failureLimit, now)
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
