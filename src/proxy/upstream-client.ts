/**
 * The proxy's upstream client: sends one attempt of a request to the chosen
 * member's provider over a pool of keep-alive connections per origin (undici's
 * Pool), within the member's timeout for the answer to start. Only the call is
 * guarded: it answers what the call gave (an answer's start, or its error) and
 * how long it took, and never decides what that means (attempt.ts does). The
 * answer's body is left to stream at its own pace. A `100 Continue` the provider
 * sends unasked is skipped like any interim answer (http/interim-answers.ts).
 *
 * The pools are kept here rather than by an undici Agent: an Agent drops an
 * origin's pool (closing it, an error made and its stack captured) whenever a
 * connection to it fails with none open, so while a provider refuses connections
 * every attempt built a pool and a client and tore them down again (issue 28: a
 * failing request cost more than a successful one). Kept, a pool's clients simply
 * connect again at the next attempt; pools with no connection open and nothing
 * under way are let go every IDLE_SWEEP_MS (as an Agent lets them go when their
 * last connection closes), and at once when there are MAX_ORIGINS of them.
 *
 * An error also says whether the request never reached the provider (`unreached`),
 * which lets any method move on (attempt.ts nextStep): undici hands every error
 * of making a connection (refused, DNS, TLS, its connect timeout) to the connector's
 * callback, and fails a request with it before writing a byte, while an error met
 * after a request was written (a reset, `other side closed`) comes from the socket.
 * So an error the connector saw is unreached whatever its code, and so is an
 * attempt whose deadline passed while its origin had no connection open (it was
 * still waiting for one). Codes alone cannot tell: a reset during a TLS handshake
 * and a reset after the request was written are both ECONNRESET.
 */
import { errors, Pool, type buildConnector, type Dispatcher } from 'undici'
import { storedCredentialValues } from '../rules/secrets.js'
import { parseBase, providerCredentials, upstreamTarget, type UpstreamBase } from '../rules/upstream-url.js'
import type { SentAttempt } from './attempt.js'
import { upstreamHeaders, type ProxyRequest } from './forward.js'
import { continueSkippingConnector } from '../http/interim-answers.js'

/** Default time an attempt may wait for the answer to start. */
/** How much later than an attempt's own bound undici's header timeout is set (a backstop: see `send`). */
const HEADERS_BACKSTOP_MS = 1_000

export const DEFAULT_TIMEOUT_MS = 10_000

/**
 * An attempt's deadline as undici takes a signal: the EventEmitter form (`once`,
 * `removeListener`, `aborted`, `reason`) with its one listener, which costs a
 * fraction of an AbortController and its EventTarget listener per attempt.
 */
class AttemptDeadline {
  aborted = false
  reason: Error | undefined
  /** undici adds one; any others are kept too. */
  private listeners: Array<() => void> = []

  on (_event: 'abort', listener: () => void): this { this.listeners.push(listener); return this }
  once (_event: 'abort', listener: () => void): this { this.listeners.push(listener); return this }
  removeListener (_event: 'abort', listener: () => void): this {
    const at = this.listeners.indexOf(listener)
    if (at !== -1) this.listeners.splice(at, 1)
    return this
  }

  /** Whether the attempt was called off (a hedge that lost) rather than timed out. */
  cancelled = false

  /** The time is up, or the attempt is called off: undici aborts the request with `reason`. */
  expire (cancelled = false): void {
    if (this.aborted) return
    this.aborted = true
    this.cancelled = cancelled
    this.reason = new Error(cancelled ? 'The attempt was called off' : 'The provider did not start its answer in time')
    const listeners = this.listeners
    this.listeners = []
    for (const listener of listeners) listener()
  }
}

/** A provider as the proxy sends to it: its base URL parsed and its credentials, read once. */
interface Upstream {
  readonly base: UpstreamBase
  readonly credentials: Record<string, string> | undefined
  /** Its stored credentials as its answer could echo them (rules/secrets.ts storedCredentialValues). */
  readonly secrets: readonly string[]
}

/** Providers kept parsed (a bound: past it the cache starts over). */
const MAX_UPSTREAMS = 10_000

/** Origins kept with a pool: past it, the pools with no connection open and nothing under way are closed. */
const MAX_ORIGINS = 1_000

/** How often the pools with no connection open and nothing under way are closed. */
const IDLE_SWEEP_MS = 60_000

/**
 * What the caller sets for one attempt: `timeoutMs`, a bound shorter than the
 * member's own (what is left of the request's deadline), and `onCancel`, given a
 * function that calls the attempt off before its answer starts (a hedge that lost).
 */
export interface AttemptControl {
  readonly timeoutMs?: number
  readonly onCancel?: (cancel: () => void) => void
}

/** What `send` reads of the pool. */
export interface SendingPool { readonly forward_client_auth: number }

/** What `send` reads of the chosen member. */
export interface SendingMember {
  readonly base_url: string | null
  readonly auth_headers: string | null
  readonly timeout_ms: number | null
}

/**
 * What an attempt's call gave, with undici's answer (its body still to be read or
 * thrown away), and the provider's stored credentials, which its answer's headers
 * must not carry back to the caller (forward.ts downstreamHeaders).
 */
export type SentUpstream = SentAttempt<Dispatcher.ResponseData> & { readonly secrets: readonly string[] }

/**
 * `connect`, with each error it hands undici remembered in `failed`: an error of
 * making a connection, which undici fails the waiting requests with unwritten.
 */
function remembering (connect: buildConnector.connector, failed: WeakSet<object>): buildConnector.connector {
  return (options, callback) => {
    connect(options, (error, socket) => {
      if (error !== null && typeof error === 'object') failed.add(error)
      callback(error, socket as never)
    })
  }
}

/** Builds the client; `close` ends its upstream connections. */
export function createUpstreamClient () {
  // Errors of making a connection (the request went nowhere); weakly held, so only a failure pays for one.
  const connectFailures = new WeakSet<object>()
  // A pool of keep-alive connections per upstream origin, each of which skips an
  // unsolicited 100 Continue (http/interim-answers.ts).
  const connect = remembering(continueSkippingConnector(), connectFailures)
  const pools = new Map<string, Pool>()
  let closed = false

  /** Closes the pools with no connection open and no request pending or running. */
  function sweep (): void {
    for (const [origin, pool] of pools) {
      const { connected, size } = pool.stats
      if (connected === 0 && size === 0) {
        pools.delete(origin)
        pool.close().catch(() => {})
      }
    }
  }
  const sweeper = setInterval(sweep, IDLE_SWEEP_MS)
  sweeper.unref()

  /** The origin's pool; once the client is closed, an attempt fails as it would on a closed agent (an error of ours). */
  function poolOf (origin: string): Pool {
    let pool = pools.get(origin)
    if (pool === undefined) {
      if (closed) throw new errors.ClientClosedError()
      if (pools.size >= MAX_ORIGINS) sweep()
      pool = new Pool(origin, { keepAliveTimeout: 30_000, connections: 256, connect })
      pools.set(origin, pool)
    }
    return pool
  }

  // Parsed per base URL and credentials as stored, so a changed provider is parsed afresh.
  const upstreams = new Map<string, Upstream>()

  function upstreamOf (baseUrl: string, authHeaders: string | null): Upstream {
    const key = authHeaders === null ? baseUrl : `${baseUrl}\n${authHeaders}`
    let upstream = upstreams.get(key)
    if (upstream === undefined) {
      if (upstreams.size >= MAX_UPSTREAMS) upstreams.clear()
      upstream = { base: parseBase(baseUrl), credentials: providerCredentials(baseUrl, authHeaders), secrets: storedCredentialValues(baseUrl, authHeaders) }
      upstreams.set(key, upstream)
    }
    return upstream
  }

  return {
    close: async () => {
      closed = true
      clearInterval(sweeper)
      const closing = [...pools.values()].map(async (pool) => { await pool.close() })
      pools.clear()
      await Promise.all(closing)
    },

    /**
     * Sends `incoming` (its proxied `path`) to `member`'s provider. A base URL that
     * cannot be parsed throws; any error of the call itself is answered, never thrown.
     */
    async send (incoming: ProxyRequest, path: string, pool: SendingPool, member: SendingMember, control?: AttemptControl): Promise<SentUpstream> {
      const upstream = upstreamOf(member.base_url as string, member.auth_headers)
      const target = upstreamTarget(upstream.base, path)
      const own = member.timeout_ms ?? DEFAULT_TIMEOUT_MS
      const timeoutMs = control?.timeoutMs === undefined ? own : Math.max(1, Math.min(own, control.timeoutMs))
      const deadline = new AttemptDeadline()
      let origin: Pool | undefined
      // Out of time with no connection to the origin open: the request was still waiting for one.
      let unconnected = false
      const timer = setTimeout(() => { unconnected = origin?.stats.connected === 0; deadline.expire() }, timeoutMs)
      control?.onCancel?.(() => { clearTimeout(timer); deadline.expire(true) })
      const started = performance.now()
      let response: Dispatcher.ResponseData
      try {
        origin = poolOf(target.origin)
        response = await origin.request({
          origin: target.origin,
          path: target.path,
          method: incoming.method as 'GET',
          headers: upstreamHeaders(incoming.headers, {
            peer: incoming.peer,
            protocol: incoming.protocol,
            forwardClientAuth: pool.forward_client_auth === 1,
            providerHeaders: upstream.credentials,
            requestId: incoming.requestId
          }),
          body: incoming.body ?? null,
          signal: deadline,
          // Our timer above is the bound; undici's own is a backstop a second later: for delays over a
          // second its timers tick twice a second and may fire up to half a second early (a 1,500 ms
          // deadline then ended as a member's timeout, 502, instead of the deadline's 504).
          headersTimeout: timeoutMs + HEADERS_BACKSTOP_MS,
          // Between body chunks the member's own bound: an answer that has started is never cut by the deadline.
          bodyTimeout: own
        })
      } catch (error) {
        clearTimeout(timer)
        const timedOut = deadline.aborted && !deadline.cancelled
        const unreached = (typeof error === 'object' && error !== null && connectFailures.has(error)) || (timedOut && unconnected)
        return {
          error, timedOut, cancelled: deadline.cancelled, unreached, latencyMs: Math.round(performance.now() - started), secrets: upstream.secrets
        }
      }
      // The answer has started: from here the body streams at its own pace.
      clearTimeout(timer)
      return { response, latencyMs: Math.round(performance.now() - started), secrets: upstream.secrets }
    }
  }
}

export type UpstreamClient = ReturnType<typeof createUpstreamClient>
