/**
 * The pure parts of forwarding a request through a pool: which methods are
 * refused, which upstream URL a request maps to (never outside the provider's
 * origin), which headers go up and come back, which methods may be retried, which
 * answers carry no body, and how an attempt's result counts (a provider's failure,
 * or an error of ours that says nothing about the provider).
 */

/** Request headers that describe one connection, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'])

/**
 * Request headers never forwarded besides the hop-by-hop ones: `Host` and the body
 * length (set again for the body sent), and `Expect` (an expectation is met, or not,
 * between the client and this service; the upstream client refuses to send it).
 */
const NEVER_FORWARDED = new Set(['host', 'content-length', 'expect'])

/** The header a client names its consistent_hash key in (never sent upstream). */
export const HASH_KEY_HEADER = 'x-sourcepool-key'

/** The header a client puts the provider's credentials in, sent upstream as `Authorization`. */
export const PROVIDER_AUTHORIZATION = 'x-provider-authorization'

/**
 * Methods the proxy refuses before any provider is asked: TRACE would echo the
 * provider's credentials back to the client, CONNECT would open a tunnel.
 */
const REFUSED_METHODS = new Set(['TRACE', 'CONNECT'])

/** The `Allow` header of a refused method's 405. */
export const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'

/** Thrown for a method the proxy never forwards (answered 405 with `Allow`). */
export class MethodNotAllowedError extends Error {}

/** Refuses TRACE and CONNECT. */
export function assertForwardableMethod (method: string): void {
  if (REFUSED_METHODS.has(method.toUpperCase())) throw new MethodNotAllowedError(`Method ${method} is not allowed through the proxy`)
}

/** Methods whose repetition has the effect of one request (RFC 9110 §9.2.2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'])

/** Thrown for a path that could leave the provider's base URL. */
export class UnsafePathError extends Error {}

/**
 * The path and query after `/api/pools/{id}/proxy` in a raw request target, exactly
 * as the client sent them (nothing decoded), or '/' when nothing follows. An
 * absolute-form target (`http://host/api/pools/1/proxy/a?x=1`, RFC 9112 §3.2.2)
 * counts by its path and query, as the router routed it.
 */
export function proxiedPath (rawUrl: string): string {
  const target = rawUrl.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/, '')
  const match = /^\/api\/pools\/[^/?#]+\/proxy(\/[^?#]*)?(\?[^#]*)?/.exec(target)
  if (match === null) throw new UnsafePathError('Request target is not a proxy path')
  return `${match[1] ?? '/'}${match[2] ?? ''}`
}

/** Characters without which a path can hold no dot segment, backslash or percent-encoding. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const UNSAFE_CANDIDATE = /[%.\\\x00-\x20\x7f]/

/** Spaces and control characters, which no request line carries raw. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\x00-\x20\x7f]/

/**
 * Refuses a path (and query) that could climb out of a base URL's path: dot
 * segments, raw or percent-encoded, backslashes, and broken percent-encoding.
 */
export function assertSafePath (path: string): void {
  const queryAt = path.indexOf('?')
  const pathname = queryAt === -1 ? path : path.slice(0, queryAt)
  // Without '%', '.', '\\' or a control character there is nothing to decode and no dot segment: safe as it is.
  if (!UNSAFE_CANDIDATE.test(pathname)) return
  // A URL parser drops tabs and line breaks, which could join '.' and '.' into '..'.
  if (CONTROL.test(pathname)) throw new UnsafePathError('Path may not contain spaces or control characters')
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

/** A provider's base URL, parsed once: where a request to it goes (see upstreamTarget). */
export interface UpstreamBase {
  /** `scheme://host[:port]`, no userinfo. */
  readonly origin: string
  /** The base URL's path without its trailing slash ('' for the root). */
  readonly pathname: string
  /** The base URL's query without its `?` ('' when it has none). */
  readonly query: string
}

/** Parses a base URL for upstreamTarget (its fragment is never sent). */
export function parseBase (baseUrl: string): UpstreamBase {
  const base = new URL(baseUrl)
  return { origin: base.origin, pathname: base.pathname.replace(/\/$/, ''), query: base.search.slice(1) }
}

/**
 * Characters the URL parser leaves as they are in a path and in a query, so a target
 * of only these is sent exactly as the parser would send it; anything else (`"`, `'`,
 * `<`, `>`, `` ` ``, `{`, `}`, bytes outside printable ASCII) goes through the parser
 * and is percent-encoded as it always was.
 */
const PLAIN_TARGET = /^[!$%&()*+,\-./0-9:;=?@A-Z[\\\]^_a-z|~]*$/

/**
 * Where a safe `path` (see assertSafePath) goes under `base`: its origin, and the
 * request target on it (the base's path, then the client's; the base's query
 * parameters first, then the client's). The target always starts with `/`, so
 * `//evil.example/x` stays a path on the provider's origin.
 */
export function upstreamTarget (base: UpstreamBase, path: string): { origin: string, path: string } {
  const queryAt = path.indexOf('?')
  const pathname = queryAt === -1 ? path : path.slice(0, queryAt)
  const clientQuery = queryAt === -1 ? '' : path.slice(queryAt + 1)
  const query = base.query === '' ? clientQuery : clientQuery === '' ? base.query : `${base.query}&${clientQuery}`
  let target = `${base.pathname}${pathname.startsWith('/') ? pathname : `/${pathname}`}${query === '' ? '' : `?${query}`}`
  if (!PLAIN_TARGET.test(target)) {
    // Rare: bytes a request line may not carry raw; the URL parser encodes them.
    const parsed = new URL(`${base.origin}${target}`)
    if (parsed.origin !== base.origin) throw new UnsafePathError('Path would leave the provider\'s origin')
    target = `${parsed.pathname}${parsed.search}`
  }
  return { origin: base.origin, path: target }
}

/**
 * The upstream URL for a safe `path` under `baseUrl` (upstreamTarget as one URL);
 * it always keeps the base URL's origin and never carries its userinfo.
 */
export function upstreamUrl (baseUrl: string, path: string): URL {
  const { origin, path: target } = upstreamTarget(parseBase(baseUrl), path)
  const url = new URL(`${origin}${target}`)
  if (url.origin !== origin) throw new UnsafePathError('Path would leave the provider\'s origin')
  return url
}

/**
 * `Authorization: Basic …` for the `user:password@` of a base URL stored before
 * userinfo was refused, or undefined when it has none.
 */
export function baseUrlAuthorization (baseUrl: string): string | undefined {
  const base = new URL(baseUrl)
  if (base.username === '' && base.password === '') return undefined
  const credentials = `${safeDecode(base.username)}:${safeDecode(base.password)}`
  return `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`
}

function safeDecode (text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** The first resource segment of a path, e.g. `/despesas` for `/despesas/2024?x=1`. */
export function resourceOf (path: string): string {
  return `/${path.split(/[/?#]/)[1] ?? ''}`
}

/** Whether a request may be sent again to another provider after a failure. */
export function mayRetry (method: string, headers: Record<string, unknown>, retryNonIdempotent: boolean): boolean {
  return IDEMPOTENT.has(method) || headers['idempotency-key'] !== undefined || retryNonIdempotent
}

const NO_NAMES: ReadonlySet<string> = new Set()

/** Names listed in a Connection header, which are hop-by-hop too. */
function connectionNames (headers: Record<string, unknown>): ReadonlySet<string> {
  const value = headers.connection
  // The usual values name only headers that are hop-by-hop anyway.
  if (typeof value !== 'string' || value === '' || value === 'keep-alive' || value === 'close') return NO_NAMES
  return new Set(value.split(',').map((name) => name.trim().toLowerCase()))
}

/**
 * The headers sent upstream: the client's, less hop-by-hop ones, `Host`, the body
 * length (set again for the body sent) and `Expect`; never the client's
 * `Authorization` (its sourcepool token stays here). When the pool forwards the
 * client's credentials, `X-Provider-Authorization` goes up as `Authorization` and
 * `Cookie` as it is; otherwise neither goes. Then `X-Forwarded-For` and
 * `X-Forwarded-Proto`, and last the provider's own credentials.
 */
export function upstreamHeaders (
  incoming: Record<string, string | string[] | undefined>,
  options: { clientIp: string, protocol: string, forwardClientAuth: boolean, providerHeaders?: Record<string, string> }
): Record<string, string | string[]> {
  const dropped = connectionNames(incoming)
  const out: Record<string, string | string[]> = {}
  for (const name in incoming) {
    const value = incoming[name]
    if (value === undefined || HOP_BY_HOP.has(name) || dropped.has(name) || NEVER_FORWARDED.has(name)) continue
    if (name === 'authorization' || name === PROVIDER_AUTHORIZATION || name === HASH_KEY_HEADER) continue
    if (name === 'cookie' && !options.forwardClientAuth) continue
    out[name] = value
  }
  const providerAuthorization = incoming[PROVIDER_AUTHORIZATION]
  if (options.forwardClientAuth && providerAuthorization !== undefined) out.authorization = providerAuthorization
  const forwardedFor = incoming['x-forwarded-for']
  out['x-forwarded-for'] = typeof forwardedFor === 'string' && forwardedFor !== '' ? `${forwardedFor}, ${options.clientIp}` : options.clientIp
  out['x-forwarded-proto'] = options.protocol
  for (const [name, value] of Object.entries(options.providerHeaders ?? {})) {
    const lower = name.toLowerCase()
    if (!HOP_BY_HOP.has(lower) && !NEVER_FORWARDED.has(lower)) out[lower] = value
  }
  return out
}

/** The headers sent back to the client: the provider's, less hop-by-hop ones. */
export function downstreamHeaders (upstream: Record<string, string | string[] | undefined>): Record<string, string | string[]> {
  const dropped = connectionNames(upstream)
  const out: Record<string, string | string[]> = {}
  for (const name in upstream) {
    const value = upstream[name]
    if (value !== undefined && !HOP_BY_HOP.has(name) && !dropped.has(name)) out[name] = value
  }
  return out
}

/**
 * Whether an answer has no body whatever its headers say (RFC 9110 §6.4.1): every
 * answer to HEAD, and 204 and 304. Its `Content-Length` describes the
 * representation, not bytes that follow.
 */
export function hasNoBody (method: string, status: number): boolean {
  return method === 'HEAD' || status === 204 || status === 304
}

/**
 * How one attempt went, as the proxy counts it; `ours` is an error of this service
 * (the request as built was refused before it left), which says nothing about the
 * provider.
 */
export type AttemptResult =
  | { kind: 'success' }
  | { kind: 'forbidden' }
  | { kind: 'failure', reason: string, statusCode?: number, retryAfterS?: number }
  | { kind: 'ours', error: unknown }

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

/**
 * Error codes that mean the upstream client refused the request as we built it
 * (an argument, header or method it does not accept) or was already closed: the
 * provider was never asked.
 */
const OUR_ERRORS = new Set([
  'UND_ERR_INVALID_ARG', 'UND_ERR_NOT_SUPPORTED', 'UND_ERR_CLOSED', 'UND_ERR_DESTROYED', 'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_URL', 'ERR_INVALID_HTTP_TOKEN', 'ERR_INVALID_CHAR'
])

/**
 * Classifies an error of the upstream call: ours (see OUR_ERRORS, and programming
 * errors without a code), a timeout, or a connection that failed.
 */
export function classifyError (error: unknown, timedOut: boolean): AttemptResult {
  const code = (error as { code?: unknown } | null)?.code
  if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'failure', reason: 'timeout' }
  if (typeof code === 'string' && OUR_ERRORS.has(code)) return { kind: 'ours', error }
  if (code === undefined && (error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError)) return { kind: 'ours', error }
  return { kind: 'failure', reason: 'connect_error' }
}
