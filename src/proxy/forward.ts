/**
 * The pure parts of forwarding a request through a pool: which methods are
 * refused, the client's consistent_hash key, which upstream URL a request maps
 * to (never outside the provider's origin), which headers go up and come back
 * (the request id going up is ours; the provider's own comes back renamed; a
 * client's forwarded-host headers never go up, a provider's `x-sourcepool-*` and
 * `Access-Control-*` never come back),
 * which methods may be retried, which answers carry no body, and how an attempt's
 * result counts (a provider's failure, or an error of ours that says nothing
 * about the provider; what it means for the request is in attempt.ts). The URL
 * rules themselves live in rules/upstream-url.ts (the health checks use them too).
 */
import { DomainError } from '../errors.js'
import { REQUEST_ID_HEADER } from '../http/request-id.js'
import { CLIENT_FORWARDING_HEADERS, SERVICE_HEADER_PREFIX, serviceOwnsAnswerHeader } from '../rules/forwarded-headers.js'
import { rateLimitSignals } from '../rules/rate-limit-signals.js'
import { scrubEchoes } from '../rules/secrets.js'
import { MAX_HASH_KEY_LENGTH } from '../rules/strategies.js'
import { originForm, UnsafePathError } from '../rules/upstream-url.js'
import type { BatchSlot } from './rpc-batch-group.js'

/** The request as the proxy needs it. */
export interface ProxyRequest {
  method: string
  /** The raw URL, path and query as sent. */
  url: string
  headers: Record<string, string | string[] | undefined>
  body: Buffer | undefined
  /** The address of the peer that connected (the client, or a front door), added to X-Forwarded-For. */
  peer: string
  protocol: string
  /** This request's id (request.id): sent upstream as `X-Request-Id` on every attempt, whatever the client sent. */
  requestId: string
  /** Where each attempt's line is written (the request's logger, which adds its `reqId`). */
  log: AttemptLog
  /** Aborts when the client leaves before its answer starts (ends a wait for a member). */
  signal?: AbortSignal
  /** True once the client has left (a check that, unlike reading `signal`, makes nothing). */
  gone?: () => boolean
  /** In an RPC pool, the single JSON-RPC call the body holds (rpc-admit.ts): its answer is judged by its body (rpc-answer.ts). */
  rpc?: RpcCallInfo
  /** What the client's request may still spend, shared by every request made from it (a batch's calls): rpc-logs.ts's range calls. */
  budget?: RequestBudget
  /** A client batch's call on its way to a send: sent in its member's upstream batch (rpc-batch-group.ts). Absent for a single call. */
  upstreamBatch?: BatchSlot
}

/** Upstream calls a stage makes on its own for one client request, counted across the requests made from it. */
export interface RequestBudget { rangeCalls: number }

/**
 * A request's own fields, for a request made from it (a shared call, a batch's call, a
 * cache leader's): not the client's `signal` and `gone`, which stay the maker's to give
 * (reading the lazy signal would make the client's controller for nothing).
 */
export function requestCopy (incoming: ProxyRequest): ProxyRequest {
  const { method, url, headers, body, peer, protocol, requestId, log, rpc, budget, upstreamBatch } = incoming
  return { method, url, headers, body, peer, protocol, requestId, log, rpc, budget, upstreamBatch }
}

/** What the attempt loop knows of an RPC pool's single call. */
export interface RpcCallInfo {
  readonly method: string
  /**
   * True for a read the method table knows (an evm pool's: it may be sent again to another member),
   * false for a transaction (sent once), undefined when the service cannot tell (a POST's own rule, mayRetry).
   */
  readonly repeatable: boolean | undefined
  /** The call itself, as the client sent it. */
  readonly call: { readonly method: string, readonly params?: unknown, readonly id?: string | number | null }
  /** Providers it should not go to (an evm pool's nodes behind: rpc-heads.ts): turned to when no one else is left, unless `pinned`. */
  readonly avoid?: ReadonlySet<number>
  /** `avoid` is every member but one (a broadcast's copy: rpc-broadcast.ts): never loosened. */
  readonly pinned?: boolean
}

/** What the proxy logs an attempt with. */
export interface AttemptLog {
  info: (fields: object, message: string) => void
  /** A line about a provider worth an operator's eye (a refused upstream batch); `info` when absent. */
  warn?: (fields: object, message: string) => void
  /** Whether a line at `level` is written (pino's): when it says no, the line's fields are not even built. */
  isLevelEnabled?: (level: string) => boolean
}

/** The header a proxied answer carries the provider's own `X-Request-Id` in (ours is `X-Request-Id`). */
export const UPSTREAM_REQUEST_ID_HEADER = 'x-upstream-request-id'

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
 * Every request header of a client's that is never sent upstream as it is, in one set
 * asked once per header (the proxy's hot path): the hop-by-hop ones, NEVER_FORWARDED,
 * the forwarded-host family (rules/forwarded-headers.ts), the client's `Authorization`
 * (its sourcepool token) and `X-Provider-Authorization` (sent as `Authorization` only
 * when the pool forwards the client's credentials). `x-sourcepool-*` is dropped by prefix.
 */
const CLIENT_NOT_FORWARDED: ReadonlySet<string> = new Set([
  ...HOP_BY_HOP, ...NEVER_FORWARDED, ...CLIENT_FORWARDING_HEADERS, 'authorization', PROVIDER_AUTHORIZATION
])

/** Answer headers never passed back: the hop-by-hop ones, and the provider's own `X-Upstream-Request-Id` (that name is the provider's `X-Request-Id`). */
const ANSWER_NOT_PASSED: ReadonlySet<string> = new Set([...HOP_BY_HOP, UPSTREAM_REQUEST_ID_HEADER])

/** The consistent_hash key the client sent, if any; 400 for one longer than MAX_HASH_KEY_LENGTH. */
export function hashKeyOf (headers: Record<string, string | string[] | undefined>): string | undefined {
  const sent = headers[HASH_KEY_HEADER]
  const key = typeof sent === 'string' && sent !== '' ? sent : undefined
  if (key !== undefined && key.length > MAX_HASH_KEY_LENGTH) throw new DomainError(400, `${HASH_KEY_HEADER} is longer than ${MAX_HASH_KEY_LENGTH} characters`)
  return key
}

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

/**
 * The path and query after `/api/pools/{id}/proxy` in a raw request target, exactly
 * as the client sent them (nothing decoded), or '/' when nothing follows. An
 * absolute-form target (`http://host/api/pools/1/proxy/a?x=1`, RFC 9112 §3.2.2)
 * counts by its path and query, as the router routed it.
 */
export function proxiedPath (rawUrl: string): string {
  const target = originForm(rawUrl)
  const match = /^\/api\/pools\/[^/?#]+\/proxy(\/[^?#]*)?(\?[^#]*)?/.exec(target)
  if (match === null) throw new UnsafePathError('Request target is not a proxy path')
  return `${match[1] ?? '/'}${match[2] ?? ''}`
}

/** The first resource segment of a path, e.g. `/despesas` for `/despesas/2024?x=1` (rules/credential-refusal.ts). */
export { resourceOf } from '../rules/credential-refusal.js'

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
 * length (set again for the body sent), `Expect`, the forwarded-host family
 * (`X-Forwarded-Host`, `Forwarded`, `X-Original-URL`, `X-HTTP-Method-Override`…:
 * rules/forwarded-headers.ts) and every `x-sourcepool-*`; never the client's
 * `Authorization` (its sourcepool token stays here). When the pool forwards the
 * client's credentials, `X-Provider-Authorization` goes up as `Authorization` and
 * `Cookie` as it is; otherwise neither goes. Then `X-Forwarded-For` (the list
 * received, if any, plus `peer`, the address that connected to us, as every
 * reverse proxy adds it) and our `X-Forwarded-Proto`, the provider's own credentials, and
 * last `X-Request-Id`: this request's id, in place of the one the client sent (which
 * is the same when it was sane, and never goes up when it was not).
 */
export function upstreamHeaders (
  incoming: Record<string, string | string[] | undefined>,
  options: { peer: string, protocol: string, forwardClientAuth: boolean, providerHeaders?: Record<string, string>, requestId: string }
): Record<string, string | string[]> {
  const dropped = connectionNames(incoming)
  const out: Record<string, string | string[]> = {}
  for (const name in incoming) {
    const value = incoming[name]
    if (value === undefined || CLIENT_NOT_FORWARDED.has(name) || dropped.has(name) || name.startsWith(SERVICE_HEADER_PREFIX)) continue
    if (name === 'cookie' && !options.forwardClientAuth) continue
    out[name] = value
  }
  const providerAuthorization = incoming[PROVIDER_AUTHORIZATION]
  if (options.forwardClientAuth && providerAuthorization !== undefined) out.authorization = providerAuthorization
  const forwardedFor = incoming['x-forwarded-for']
  out['x-forwarded-for'] = typeof forwardedFor === 'string' && forwardedFor !== '' ? `${forwardedFor}, ${options.peer}` : options.peer
  out['x-forwarded-proto'] = options.protocol
  for (const [name, value] of Object.entries(options.providerHeaders ?? {})) {
    const lower = name.toLowerCase()
    if (!HOP_BY_HOP.has(lower) && !NEVER_FORWARDED.has(lower)) out[lower] = value
  }
  out[REQUEST_ID_HEADER] = options.requestId
  return out
}

/**
 * The headers sent back to the client: the provider's, less hop-by-hop ones, with
 * its `X-Request-Id` (if it sent one) as `X-Upstream-Request-Id`, so the answer's
 * `X-Request-Id` is ours. A provider's own `X-Upstream-Request-Id` is not passed on:
 * that name always means the provider's `X-Request-Id`. Nor is any `x-sourcepool-*`
 * or `Access-Control-*` header (the service's alone: its own CORS policy, or none,
 * is what a browser sees), so none is ever stored in the cache either. Whatever the
 * provider echoes of its own stored credentials (`secrets`: a redirect's `Location`
 * carrying the base URL's `?api_key=`, say) is masked: the caller never sees them.
 */
export function downstreamHeaders (upstream: Record<string, string | string[] | undefined>, secrets: readonly string[] = []): Record<string, string | string[]> {
  const dropped = connectionNames(upstream)
  const out: Record<string, string | string[]> = {}
  for (const name in upstream) {
    let value = upstream[name]
    if (value === undefined || ANSWER_NOT_PASSED.has(name) || dropped.has(name) || serviceOwnsAnswerHeader(name)) continue
    if (secrets.length > 0) value = Array.isArray(value) ? value.map((v) => scrubEchoes(v, secrets)) : scrubEchoes(value, secrets)
    if (name === REQUEST_ID_HEADER) out[UPSTREAM_REQUEST_ID_HEADER] = value
    else out[name] = value
  }
  return out
}

/**
 * A stored answer's headers as a request is served them: a copy (the route adds its
 * own to it) less any header only the service may set — none is stored today, but an
 * entry in a shared Redis may have been written by an older version of the service.
 */
export function servedHeaders (stored: Readonly<Record<string, string | string[]>>): Record<string, string | string[]> {
  // A test first, then V8's fast object copy: an entry of this version has nothing to drop (a hit pays ~0.1 µs, not ~0.3).
  let clean = true
  for (const name in stored) if (serviceOwnsAnswerHeader(name)) { clean = false; break }
  if (clean) return { ...stored }
  const out: Record<string, string | string[]> = {}
  for (const name in stored) if (!serviceOwnsAnswerHeader(name)) out[name] = stored[name] as string | string[]
  return out
}

/** Longest provider request id written in a log line (it is the provider's text, of any length). */
const MAX_LOGGED_ID = 256

/** The provider's own `X-Request-Id` from its answer's headers, as a log line shows it (bounded), if it sent one. */
export function upstreamRequestIdOf (headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headers[REQUEST_ID_HEADER]
  if (value === undefined) return undefined
  const text = Array.isArray(value) ? value.join(', ') : value
  return text.length > MAX_LOGGED_ID ? `${text.slice(0, MAX_LOGGED_ID)}…` : text
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
 * provider. `forbidden` is the provider refusing the resource: a 403, or a 401/402
 * on our credentials that the credential rule (rules/credential-refusal.ts) took for
 * a refusal of that resource alone. A success or a failure may also carry the
 * provider's own pause (`pauseS`: its rate-limit headers said no requests are left),
 * which the member takes without it counting as a failure. A failure marked
 * `unreached` never reached the provider (no connection carried the request:
 * refused, DNS, TLS, a connect timeout), so any method may move on after it.
 */
export type AttemptResult =
  | { kind: 'success', pauseS?: number, pauseSource?: string }
  | { kind: 'forbidden', statusCode: number }
  /**
   * `neutral`: the member lacked what the call needs (an RPC node without the block): its health is not told.
   * `free`: the member refused to do the work (an RPC rate limit, missing state), so moving on spends no retry budget, as after a refusal.
   */
  | { kind: 'failure', reason: string, statusCode?: number, retryAfterS?: number, pauseS?: number, pauseSource?: string, unreached?: true, neutral?: true, free?: true }
  | { kind: 'ours', error: unknown }

/** The failure reason of a 401/402 on our credentials: the provider did nothing, so any request moves on. */
export const CREDENTIALS_REJECTED = 'credentials_rejected'

/** What classifying an answer reads of the pool. */
export interface ClassifyingPool {
  readonly forward_client_auth: number
  readonly max_cooldown_seconds: number
}

/**
 * Classifies an upstream answer: 5xx and 429 fail (moving on), as do 401 and 402
 * when the credentials are ours (not the client's, forwarded: whether they are our
 * key rejected or a refusal of the resource is the credential rule's to say), and a
 * 403 saying no requests are left; another 403 is a refusal;
 * anything else is returned. The provider's rate-limit signals (Retry-After on 429
 * and 503, remaining 0 with a reset) ride along, capped at the pool's
 * max_cooldown_seconds.
 */
export function classifyStatus (status: number, headers: Record<string, string | string[] | undefined>, pool: ClassifyingPool, now: Date): AttemptResult {
  const signals = rateLimitSignals(status, headers, now, pool.max_cooldown_seconds)
  const pause = signals.pauseS === undefined ? {} : { pauseS: signals.pauseS, ...(signals.source === undefined ? {} : { pauseSource: signals.source }) }
  const retryAfter = signals.retryAfterS === undefined ? {} : { retryAfterS: signals.retryAfterS }
  // A 403 saying no requests are left (as GitHub answers) is a rate limit, not a refusal of the resource.
  if (status === 403) return signals.pauseS === undefined ? { kind: 'forbidden', statusCode: 403 } : { kind: 'failure', reason: 'rate_limited', statusCode: 403, ...pause }
  if (status === 429) return { kind: 'failure', reason: 'rate_limited', statusCode: 429, ...retryAfter, ...pause }
  if (status >= 500) return { kind: 'failure', reason: `http_${status}`, statusCode: status, ...retryAfter, ...pause }
  if ((status === 401 || status === 402) && pool.forward_client_auth !== 1) return { kind: 'failure', reason: CREDENTIALS_REJECTED, statusCode: status }
  return { kind: 'success', ...pause }
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
 * errors without a code), a timeout, or a connection that failed. `unreached` (the
 * upstream client knows the request was never written to a connection) marks the
 * failure so: the provider saw nothing.
 */
export function classifyError (error: unknown, timedOut: boolean, unreached = false): AttemptResult {
  const code = (error as { code?: unknown } | null)?.code
  const never = unreached ? { unreached: true as const } : {}
  if (timedOut || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT') return { kind: 'failure', reason: 'timeout', ...never }
  if (typeof code === 'string' && OUR_ERRORS.has(code)) return { kind: 'ours', error }
  if (code === undefined && (error instanceof TypeError || error instanceof RangeError || error instanceof SyntaxError)) return { kind: 'ours', error }
  return { kind: 'failure', reason: 'connect_error', ...never }
}
