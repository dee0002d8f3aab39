/**
 * The pure parts of forwarding a request through a pool: which upstream URL a
 * request maps to (never outside the provider's origin), which headers go up and
 * come back, which methods may be retried, and how an attempt's result counts.
 */

/** Request headers that describe one connection, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'])

/** Methods whose repetition has the effect of one request (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'])

/** Thrown for a path that could leave the provider's base URL. */
export class UnsafePathError extends Error {}

/**
 * The path and query after `/api/pools/{id}/proxy` in a raw request URL, exactly
 * as the client sent them (nothing decoded), or '/' when nothing follows.
 */
export function proxiedPath (rawUrl: string): string {
  const match = /^\/api\/pools\/[^/?#]+\/proxy(\/[^?#]*)?(\?[^#]*)?/.exec(rawUrl)
  return `${match?.[1] ?? '/'}${match?.[2] ?? ''}`
}

/**
 * Refuses a path (and query) that could climb out of a base URL's path: dot
 * segments, raw or percent-encoded, backslashes, and broken percent-encoding.
 */
export function assertSafePath (path: string): void {
  const queryAt = path.indexOf('?')
  const pathname = queryAt === -1 ? path : path.slice(0, queryAt)
  for (const segment of pathname.split('/')) {
    let decoded: string
    try {
      decoded = decodeURIComponent(segment)
    } catch {
      throw new UnsafePathError('Path is not valid percent-encoding')
    }
    if (decoded.includes('\\') || decoded.split('/').some((part) => part === '.' || part === '..')) {
      throw new UnsafePathError('Path may not contain dot segments or backslashes')
    }
  }
}

/**
 * The upstream URL for a safe `path` (see assertSafePath) under `baseUrl`; it must
 * keep the base URL's origin, so `//evil.example/x` stays a path on the provider.
 */
export function upstreamUrl (baseUrl: string, path: string): URL {
  const base = new URL(baseUrl)
  const target = new URL(`${base.origin}${base.pathname.replace(/\/$/, '')}${path}`)
  if (target.origin !== base.origin) throw new UnsafePathError('Path would leave the provider\'s origin')
  return target
}

/** The first resource segment of a path, e.g. `/despesas` for `/despesas/2024?x=1`. */
export function resourceOf (path: string): string {
  return `/${path.split(/[/?#]/)[1] ?? ''}`
}

/** Whether a request may be sent again to another provider after a failure. */
export function mayRetry (method: string, headers: Record<string, unknown>, retryNonIdempotent: boolean): boolean {
  return IDEMPOTENT.has(method) || headers['idempotency-key'] !== undefined || retryNonIdempotent
}

/** Names listed in a Connection header, which are hop-by-hop too. */
function connectionNames (headers: Record<string, unknown>): Set<string> {
  const value = headers.connection
  return new Set(typeof value === 'string' ? value.split(',').map((name) => name.trim().toLowerCase()) : [])
}

/**
 * The headers sent upstream: the client's, less hop-by-hop ones, `Host` and the
 * body length (set again for the body sent), less `Authorization` and `Cookie`
 * unless the pool forwards the client's credentials, plus `X-Forwarded-For` and
 * `X-Forwarded-Proto`, plus the provider's own credentials.
 */
export function upstreamHeaders (
  incoming: Record<string, string | string[] | undefined>,
  options: { clientIp: string, protocol: string, forwardClientAuth: boolean, providerHeaders?: Record<string, string> }
): Record<string, string | string[]> {
  const dropped = connectionNames(incoming)
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || dropped.has(name) || name === 'host' || name === 'content-length') continue
    if (!options.forwardClientAuth && (name === 'authorization' || name === 'cookie')) continue
    out[name] = value
  }
  const forwardedFor = incoming['x-forwarded-for']
  out['x-forwarded-for'] = typeof forwardedFor === 'string' && forwardedFor !== '' ? `${forwardedFor}, ${options.clientIp}` : options.clientIp
  out['x-forwarded-proto'] = options.protocol
  for (const [name, value] of Object.entries(options.providerHeaders ?? {})) out[name.toLowerCase()] = value
  return out
}

/** The headers sent back to the client: the provider's, less hop-by-hop ones. */
export function downstreamHeaders (upstream: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const dropped = connectionNames(upstream)
  const out: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(upstream)) {
    if (value !== undefined && !HOP_BY_HOP.has(name) && !dropped.has(name)) out[name] = value
  }
  return out
}

/** How one attempt went, as the proxy counts it. */
export type AttemptResult =
  | { kind: 'success' }
  | { kind: 'forbidden' }
  | { kind: 'failure', reason: string, statusCode?: number, retryAfterS?: number }

/** Classifies an upstream answer: 5xx and 429 fail (moving on), 403 is a refusal, anything else is returned. */
export function classifyStatus (status: number, retryAfter: string | string[] | undefined): AttemptResult {
  if (status === 429) return { kind: 'failure', reason: 'rate_limited', statusCode: 429, ...retryAfterSeconds(retryAfter) }
  if (status >= 500) return { kind: 'failure', reason: `http_${status}`, statusCode: status }
  if (status === 403) return { kind: 'forbidden' }
  return { kind: 'success' }
}

/** `Retry-After` as seconds (delta-seconds or an HTTP date), when present and sensible. */
function retryAfterSeconds (value: string | string[] | undefined): { retryAfterS?: number } {
  const text = Array.isArray(value) ? value[0] : value
  if (text === undefined) return {}
  const seconds = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Math.ceil((Date.parse(text) - Date.now()) / 1000)
  return Number.isFinite(seconds) && seconds >= 0 ? { retryAfterS: Math.min(seconds, 86_400) } : {}
}

/** Classifies an error of the upstream call: a timeout, or a connection that failed. */
export function classifyError (error: unknown, timedOut: boolean): AttemptResult {
  const code = (error as { code?: unknown }).code
  if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'failure', reason: 'timeout' }
  return { kind: 'failure', reason: 'connect_error' }
}
