/**
 * The data plane's entrance: which requests it serves on the raw `node:http`
 * request, before Fastify's router sees them (data-plane.ts). A request to a pool's
 * proxy URL, `/api/pools/{id}/proxy/…` or `/p/{pool_name}/…`, in origin form, with a
 * method the proxy answers and a path that decodes, is the data plane's; anything
 * else (another route, a malformed id or path, an absolute-form target, a CORS
 * preflight while CORS_ORIGINS is set) goes to Fastify, whose routes for the same
 * URLs (proxy.routes.ts) answer it exactly as before: the 422 of an id that is not
 * one, the 400 of a path that is not valid percent-encoding, the preflight's answer.
 * Matching is two string tests and, for a name, one decode: no allocation but the
 * target.
 */
import type { IncomingMessage } from 'node:http'
import { originForm } from '../rules/upstream-url.js'

/** The route of a pool addressed by id (Fastify's syntax, as metrics and scopes name it). */
export const PROXY_ROUTE = '/api/pools/:pool_id/proxy/*'
/** The route of a pool addressed by name. */
export const NAMED_PROXY_ROUTE = '/p/:pool_name/*'

/** Which pool a data-plane request addresses, and by which route. */
export type DataPlaneTarget =
  | { readonly route: typeof PROXY_ROUTE, readonly poolId: number, readonly name?: undefined }
  | { readonly route: typeof NAMED_PROXY_ROUTE, readonly name: string, readonly poolId?: undefined }

/** Methods the data plane takes itself (TRACE to refuse it with 405 as before); others go to Fastify. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'])

/** The largest pool id a route accepts (http/schemas.ts `Id`). */
const MAX_ID = 2147483647
const BY_ID = /^\/api\/pools\/([1-9][0-9]{0,9})\/proxy\//
const BY_NAME = /^\/p\/([^/?#]+)\//

/** True when the path part of `url` (before `?`) would not decode (Fastify answers those 400). */
function undecodable (url: string): boolean {
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  if (!path.includes('%')) return false
  try {
    decodeURIComponent(path)
    return false
  } catch {
    return true
  }
}

/**
 * The pool `request` addresses when the data plane serves it; undefined hands it to
 * Fastify. `preflights`: CORS is on, so a preflight is Fastify's (@fastify/cors answers it).
 */
export function dataPlaneTarget (request: IncomingMessage, preflights: boolean): DataPlaneTarget | undefined {
  const url = request.url ?? ''
  if (url.charCodeAt(0) !== 47 || !METHODS.has(request.method ?? '')) return undefined
  if (preflights && request.method === 'OPTIONS' && request.headers.origin !== undefined && request.headers['access-control-request-method'] !== undefined) return undefined
  if (url.startsWith('/api/pools/')) {
    const id = BY_ID.exec(url)
    if (id === null || Number(id[1]) > MAX_ID || undecodable(url)) return undefined
    return { route: PROXY_ROUTE, poolId: Number(id[1]) }
  }
  if (url.startsWith('/p/')) {
    const named = BY_NAME.exec(url)
    if (named === null || undecodable(url)) return undefined
    return { route: NAMED_PROXY_ROUTE, name: decodeURIComponent(named[1] as string) }
  }
  return undefined
}

/**
 * The URL the proxy stages read a request's path from (forward.ts `proxiedPath`):
 * a pool addressed by name is given its id form, `/api/pools/{id}/proxy/…`, once
 * the name is resolved, so every stage after it sees one form.
 */
export function proxyUrlOf (url: string, target: DataPlaneTarget, poolId: number): string {
  if (target.route === PROXY_ROUTE) return url
  const path = originForm(url)
  const rest = path.indexOf('/', 3)
  return `/api/pools/${poolId}/proxy${rest === -1 ? '/' : path.slice(rest)}`
}
