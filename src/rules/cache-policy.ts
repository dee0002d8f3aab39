/**
 * What the proxy's response cache may store, for how long, and under which key, as
 * pure functions of the request, the answer's headers and the pool's TTL. The proxy
 * is a shared cache (RFC 9111): it honours the provider's `s-maxage` before
 * `max-age`, never stores what is private to one caller, and keys a pool that
 * forwards client credentials by those credentials, so two callers never share.
 */
import { createHash } from 'node:crypto'
import { CLIENT_FORWARDING_HEADERS, SERVICE_HEADER_PREFIX } from './forwarded-headers.js'
import { splitOutsideQuotes } from './header-lists.js'
import { httpDateMs } from './http-date.js'

/** Request or answer headers with lower-case names, as Node gives them. */
type Headers = Record<string, string | string[] | undefined>

/** One field value: several field lines joined as one list (RFC 9110 §5.3). */
function joined (value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.filter((v) => typeof v === 'string').join(', ')
  return undefined
}

function unquote (value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1).replace(/\\(.)/g, '$1') : value
}

/**
 * Cache-Control directives: lower-case name → value (unquoted) or true. The first
 * of repeated directives wins (RFC 9111 §4.2.1). Tolerates garbage (never throws).
 */
export function parseCacheControl (value: string | string[] | undefined): Map<string, string | true> {
  const directives = new Map<string, string | true>()
  const text = joined(value)
  if (text === undefined) return directives
  for (const part of splitOutsideQuotes(text, ',')) {
    const eq = part.indexOf('=')
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase()
    if (name === '' || directives.has(name)) continue
    directives.set(name, eq === -1 ? true : unquote(part.slice(eq + 1).trim()))
  }
  return directives
}

/** delta-seconds (RFC 9111 §1.2.2): digits only, else undefined (so a malformed value is ignored). */
function deltaSeconds (value: string | true | undefined): number | undefined {
  return typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined
}

/**
 * Statuses stored: 200 and those RFC 9110 §15.1 makes heuristically cacheable
 * (what RFC 9111 §4.2.2 lets a cache store without explicit freshness), less every
 * 5xx (501) and 206: a partial answer depends on the request's `Range`, which is not
 * in the key. 401, 402, 403 and 429 are never among them.
 */
export const CACHEABLE_STATUSES: ReadonlySet<number> = new Set([200, 203, 204, 300, 301, 308, 404, 405, 410, 414])

/** The lower-case names of a list field such as `Vary` or `Pragma`, empty ones dropped. */
function listNames (value: unknown): string[] {
  return (joined(value) ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '')
}

/**
 * How many seconds the answer stays fresh, or null when it must not be stored: the
 * method must be GET, the status in CACHEABLE_STATUSES; never with Cache-Control
 * `no-store`, `private` or `no-cache` (qualified forms included), `Vary: *` or a
 * `Set-Cookie`. Otherwise min(poolTtlS, lifetime), where the provider's lifetime is
 * `s-maxage` (we are a shared cache), else `max-age`, else `Expires` less the answer's
 * `Date` (or `nowMs`), less the answer's `Age` when a cache upstream already held it
 * (RFC 9111 §4.2.3); a lifetime used up (`max-age=0`, an Expires past or not a date,
 * or an Age as large) → null. A `Pragma: no-cache` without Cache-Control → null.
 * Malformed numbers are ignored (the pool TTL applies). A poolTtlS of 0 → null.
 */
export function freshSeconds (method: string, status: number, headers: Headers, poolTtlS: number, nowMs: number = Date.now()): number | null {
  if (!(poolTtlS > 0) || method !== 'GET' || !CACHEABLE_STATUSES.has(status)) return null
  const cc = parseCacheControl(headers['cache-control'])
  if (cc.has('no-store') || cc.has('private') || cc.has('no-cache')) return null
  // An HTTP/1.0 provider's `Pragma: no-cache` counts when it sent no Cache-Control.
  if (headers['cache-control'] === undefined && listNames(headers.pragma).includes('no-cache')) return null
  if (listNames(headers.vary).includes('*') || joined(headers['set-cookie']) !== undefined) return null
  const lifetime = deltaSeconds(cc.get('s-maxage')) ?? deltaSeconds(cc.get('max-age')) ?? expiresIn(headers, nowMs)
  if (lifetime === undefined) return poolTtlS
  const left = lifetime - (deltaSeconds(joined(headers.age)?.trim()) ?? 0)
  return left > 0 ? Math.min(poolTtlS, left) : null
}

/**
 * Seconds from the answer's `Date` (or `nowMs`) to its `Expires`, when it has one
 * (RFC 9111 §4.2.1); an `Expires` that is not a date (`0`, say) is already past: 0.
 */
function expiresIn (headers: Headers, nowMs: number): number | undefined {
  const expires = joined(headers.expires)?.trim()
  if (expires === undefined) return undefined
  const at = httpDateMs(expires, nowMs)
  if (at === undefined) return 0
  const date = joined(headers.date)?.trim()
  const from = (date === undefined ? undefined : httpDateMs(date, nowMs)) ?? nowMs
  return Math.max(0, Math.floor((at - from) / 1000))
}

/** True when the client asks for a fresh answer: `Cache-Control: no-cache` or `max-age=0`, or `Pragma: no-cache`. */
export function wantsFresh (requestHeaders: Headers): boolean {
  const cc = parseCacheControl(requestHeaders['cache-control'])
  return cc.has('no-cache') || deltaSeconds(cc.get('max-age')) === 0 || listNames(requestHeaders.pragma).includes('no-cache')
}

/** True when the client forbids storing: `Cache-Control: no-store` in the request. */
export function forbidsStore (requestHeaders: Headers): boolean {
  return parseCacheControl(requestHeaders['cache-control']).has('no-store')
}

/** A header as sent, for the key: absent (null), one value, or several lines. */
function asSent (value: unknown): string | string[] | null {
  if (typeof value === 'string') return value
  return Array.isArray(value) ? value.map(String) : null
}

function sha256 (text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}

/**
 * Request headers that never make two requests' answers differ for a cache key: the
 * ones in it already (Accept, Accept-Encoding), the ones the provider's Vary speaks
 * for, the connection's own, tracing and the client's address, and those that never
 * go upstream (our token in Authorization, x-sourcepool-*, the forwarded-host family
 * of forwarded-headers.ts). Every other header that goes upstream (a custom
 * `X-Api-Key`, say) is part of the key, as a hash.
 */
const KEY_NEUTRAL = new Set([
  'accept', 'accept-encoding', 'accept-language', 'user-agent', 'host', 'connection', 'keep-alive', 'content-length',
  'content-type', 'cache-control', 'pragma', 'x-request-id', 'x-forwarded-for', 'x-real-ip', 'via', 'te', 'upgrade',
  'referer', 'dnt', 'priority', 'traceparent', 'tracestate', 'baggage', 'expect', 'authorization', 'proxy-authorization',
  'sec-fetch-site', 'sec-fetch-mode', 'sec-fetch-dest', 'sec-fetch-user', 'sec-ch-ua', 'sec-ch-ua-mobile', 'sec-ch-ua-platform',
  'upgrade-insecure-requests', ...CLIENT_FORWARDING_HEADERS
])

/**
 * The cache key of a request: the proxied path and query exactly as sent, `Accept`
 * and `Accept-Encoding` as sent (absent ≠ empty), and a hash of every other header
 * that goes upstream and may change the answer (KEY_NEUTRAL aside): a custom
 * credential header, and, when `forwardClientAuth`, the client's credentials
 * (`X-Provider-Authorization`, `Cookie`), which go upstream only then. So callers
 * with different credentials never share an entry, and a credential is only ever in
 * a key as a hash. The parts are framed as a JSON array, so no two different
 * requests give one key; a store that needs a short name (Redis) hashes it. The pool
 * is not in it: the caller keeps each pool's entries apart.
 */
export function cacheKey (path: string, requestHeaders: Headers, forwardClientAuth: boolean): string {
  const parts: unknown[] = ['sourcepool-cache/1', path, asSent(requestHeaders.accept), asSent(requestHeaders['accept-encoding'])]
  let others: Array<[string, string | string[] | null]> | undefined
  for (const name in requestHeaders) {
    if (KEY_NEUTRAL.has(name) || name.startsWith(SERVICE_HEADER_PREFIX) || requestHeaders[name] === undefined) continue
    if (!forwardClientAuth && (name === 'cookie' || name === 'x-provider-authorization')) continue
    ;(others ??= []).push([name, asSent(requestHeaders[name])])
  }
  if (others !== undefined || forwardClientAuth) parts.push(sha256(JSON.stringify((others ?? []).sort((a, b) => a[0] < b[0] ? -1 : 1))))
  return JSON.stringify(parts)
}

/** Request headers asking for part of an answer or for one only if changed: such a request is passed through uncached. */
const CONDITIONAL = ['range', 'if-range', 'if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since']

/**
 * True when a request must go upstream as it is, neither answered from the cache nor
 * stored nor shared: it asks for a range or sets a condition, so its answer (206, 304,
 * 412) is its own.
 */
export function asksForItsOwn (requestHeaders: Headers): boolean {
  for (const name of CONDITIONAL) if (requestHeaders[name] !== undefined) return true
  return false
}

/** A request header's value for Vary matching: several lines joined, absent → ''. */
function requestValue (requestHeaders: Headers, name: string): string {
  return Object.hasOwn(requestHeaders, name) ? joined(requestHeaders[name]) ?? '' : ''
}

/**
 * The request values an answer's Vary names (lower-case name → value, or '' when the
 * request lacks it), or null when it has no Vary. A `Vary: *` is kept as the name
 * `*`, which never matches.
 */
export function varyValues (answerVary: string | string[] | undefined, requestHeaders: Headers): Record<string, string> | null {
  const names = listNames(answerVary)
  if (names.length === 0) return null
  return Object.fromEntries(names.map((name) => [name, requestValue(requestHeaders, name)]))
}

/** True when `requestHeaders` match the values stored with an entry (null matches everything). */
export function varyMatches (stored: Readonly<Record<string, string>> | null, requestHeaders: Headers): boolean {
  if (stored === null) return true
  return Object.entries(stored).every(([name, value]) => name !== '*' && requestValue(requestHeaders, name) === value)
}

/** The Age header value (whole seconds, >= 0) of an entry stored at `storedAtMs`, at `nowMs`. */
export function ageSeconds (storedAtMs: number, nowMs: number): number {
  const age = Math.floor((nowMs - storedAtMs) / 1000)
  return Number.isFinite(age) && age > 0 ? age : 0
}
