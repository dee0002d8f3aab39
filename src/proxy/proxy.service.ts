/**
 * The proxy: one client request, answered by whichever member of the pool
 * works. Each attempt is chosen by the pool runtime (runtime/: strategy,
 * eligibility, quota lease, in memory) among the providers not yet tried in this
 * request; its outcome is folded into the runtime's health and counters (written
 * down by its flusher); a failure moves on to the next provider when the request
 * may be repeated, and that failover goes into the history. The answer that ends the loop is streamed back as the
 * provider sends it (answers that have no body — to HEAD, 204, 304 — without one).
 * An error of ours (the upstream client refused the request as built) is no
 * provider's failure: nothing is reported, and it ends the request as a 500.
 */
import type { Readable } from 'node:stream'
import { Agent, type Dispatcher } from 'undici'
import { DomainError, NotFoundError } from '../errors.js'
import { MAX_HASH_KEY_LENGTH } from '../rules/strategies.js'
import type { FailedAttempt as Failed, PoolRuntime, ProxyRefusal } from '../runtime/pool-runtime.js'
import { assertSafePath, parseBase, providerCredentials, upstreamTarget, type UpstreamBase } from '../rules/upstream-url.js'
import {
  assertForwardableMethod, HASH_KEY_HEADER, classifyError, classifyStatus, downstreamHeaders, hasNoBody, mayRetry, proxiedPath, resourceOf, upstreamHeaders, type AttemptResult
} from './forward.js'

/** Default time an attempt may wait for the answer to start. */
export const DEFAULT_TIMEOUT_MS = 10_000

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
}

/** One failed attempt, as the 502 body lists it. */
export interface FailedAttempt {
  provider_id: number
  provider_name: string | null
  status_code?: number
  error?: string
  latency_ms: number
}

export type ProxyAnswer =
  /** `body` is null for an answer that has none (HEAD, 204, 304). */
  | { kind: 'answer', status: number, headers: Record<string, string | string[]>, body: Readable | null, provider: string | null, attempts: number }
  | { kind: 'unavailable', retryAfterS: number | null }
  | { kind: 'failed', attempts: FailedAttempt[], refusals: ProxyRefusal[] }

interface Deps {
  runtime: Pick<PoolRuntime, 'choose' | 'report' | 'learnRefusal' | 'release'>
}

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

  /** The time is up: undici aborts the request with `reason`. */
  expire (): void {
    this.aborted = true
    this.reason = new Error('The provider did not start its answer in time')
    const listeners = this.listeners
    this.listeners = []
    for (const listener of listeners) listener()
  }
}

/** A provider as the proxy sends to it: its base URL parsed and its credentials, read once. */
interface Upstream {
  readonly base: UpstreamBase
  readonly credentials: Record<string, string> | undefined
}

/** Providers kept parsed (a bound: past it the cache starts over). */
const MAX_UPSTREAMS = 10_000

/** Builds the proxy over the pool runtime; `close` ends its upstream connections. */
export function createProxyService ({ runtime }: Deps) {
  // One agent: undici keeps a pool of keep-alive connections per upstream origin.
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 })
  // Parsed per base URL and credentials as stored, so a changed provider is parsed afresh.
  const upstreams = new Map<string, Upstream>()

  function upstreamOf (baseUrl: string, authHeaders: string | null): Upstream {
    const key = authHeaders === null ? baseUrl : `${baseUrl}\n${authHeaders}`
    let upstream = upstreams.get(key)
    if (upstream === undefined) {
      if (upstreams.size >= MAX_UPSTREAMS) upstreams.clear()
      upstream = { base: parseBase(baseUrl), credentials: providerCredentials(baseUrl, authHeaders) }
      upstreams.set(key, upstream)
    }
    return upstream
  }

  /** Folds an attempt's outcome into the runtime (a refusal or an error of ours is no outcome). */
  function report (poolId: number, providerId: number, result: AttemptResult, latencyMs: number, statusCode?: number): void {
    if (result.kind === 'forbidden' || result.kind === 'ours') return
    const failure = result.kind === 'failure'
    runtime.report(poolId, providerId, {
      success: !failure,
      status_code: statusCode ?? null,
      latency_ms: latencyMs,
      retry_after_s: failure ? result.retryAfterS ?? null : null,
      error: failure ? `proxy: ${result.reason}` : null
    })
  }

  return {
    close: async () => { await agent.close() },

    async forward (poolId: number, incoming: ProxyRequest): Promise<ProxyAnswer> {
      // Refuse a method never forwarded, and an unsafe path, before any provider is tried.
      assertForwardableMethod(incoming.method)
      const path = proxiedPath(incoming.url)
      assertSafePath(path)
      const resource = resourceOf(path)
      const sentKey = incoming.headers[HASH_KEY_HEADER]
      const key = typeof sentKey === 'string' && sentKey !== '' ? sentKey : undefined
      if (key !== undefined && key.length > MAX_HASH_KEY_LENGTH) throw new DomainError(400, `${HASH_KEY_HEADER} is longer than ${MAX_HASH_KEY_LENGTH} characters`)
      const tried = new Set<number>()
      let refusals: ProxyRefusal[] = []
      const attempts: FailedAttempt[] = []
      let failed: Failed | undefined
      let maxAttempts = 1
      do {
        const choice = await runtime.choose(poolId, resource, tried, failed, key)
        if (choice.kind === 'unknown_pool') throw new NotFoundError(`Pool ${poolId} not found`)
        maxAttempts = choice.pool.max_attempts
        if (choice.kind === 'none') {
          refusals = choice.refusals
          // Nothing tried yet: 503, with Retry-After when a member comes back; but when the
          // members left out refuse this resource and no one comes back, 502 naming them.
          if (attempts.length === 0 && (refusals.length === 0 || choice.retryAfterS !== null)) return { kind: 'unavailable', retryAfterS: choice.retryAfterS }
          break
        }
        const { member } = choice
        // The attempt counts as in flight (least_outstanding) until it ends here, or
        // until its answer's body is closed when that streams back to the client.
        let streaming = false
        try {
          tried.add(member.provider_id)
          const upstream = upstreamOf(member.base_url as string, member.auth_headers)
          const target = upstreamTarget(upstream.base, path)
          const timeoutMs = member.timeout_ms ?? DEFAULT_TIMEOUT_MS
          const deadline = new AttemptDeadline()
          const timer = setTimeout(() => { deadline.expire() }, timeoutMs)
          const started = performance.now()
          // Only the upstream call is guarded: an error of our own bookkeeping afterwards
          // (the database) is never taken for the provider's failure.
          let sent: { response: Dispatcher.ResponseData } | { error: unknown }
          try {
            sent = {
              response: await agent.request({
                origin: target.origin,
                path: target.path,
                method: incoming.method as 'GET',
                headers: upstreamHeaders(incoming.headers, {
                  peer: incoming.peer,
                  protocol: incoming.protocol,
                  forwardClientAuth: choice.pool.forward_client_auth === 1,
                  providerHeaders: upstream.credentials
                }),
                body: incoming.body ?? null,
                signal: deadline,
                headersTimeout: timeoutMs,
                bodyTimeout: timeoutMs
              })
            }
          } catch (error) {
            sent = { error }
          }
          // The answer has started (or the call failed): from here the body streams at its own pace.
          clearTimeout(timer)
          const latencyMs = Math.round(performance.now() - started)
          let result: AttemptResult
          if ('error' in sent) {
            result = classifyError(sent.error, deadline.aborted)
            // Ours: the provider was never asked, so it is not told against; the request ends (500).
            if (result.kind === 'ours') throw sent.error
            report(poolId, member.provider_id, result, latencyMs)
            attempts.push({ provider_id: member.provider_id, provider_name: member.provider_name, error: result.kind === 'failure' ? result.reason : 'failed', latency_ms: latencyMs })
          } else {
            const { response } = sent
            result = classifyStatus(response.statusCode, response.headers['retry-after'])
            report(poolId, member.provider_id, result, latencyMs, response.statusCode)
            if (result.kind === 'forbidden') runtime.learnRefusal(choice.pool.id, member.provider_id, resource, choice.pool.forbidden_ttl_seconds)
            if (result.kind === 'success') {
              const bodiless = hasNoBody(incoming.method, response.statusCode)
              if (bodiless) response.body.resume()
              else {
                // In flight until its answer has been sent (or the client left).
                streaming = true
                response.body.once('close', () => { runtime.release(member.id) })
              }
              return {
                kind: 'answer',
                status: response.statusCode,
                headers: downstreamHeaders(response.headers),
                body: bodiless ? null : response.body,
                provider: member.provider_name,
                attempts: attempts.length + 1
              }
            }
            response.body.resume()
            attempts.push({ provider_id: member.provider_id, provider_name: member.provider_name, status_code: response.statusCode, latency_ms: latencyMs })
          }
          failed = { providerId: member.provider_id, reason: result.kind === 'forbidden' ? 'proxy:forbidden' : `proxy:${result.kind === 'failure' ? result.reason : 'error'}` }
          // A refusal means the provider did nothing, so moving on is always safe; a failure
          // may have had an effect, so only a request that may be repeated moves on.
          if (result.kind === 'failure' && !mayRetry(incoming.method, incoming.headers, choice.pool.retry_non_idempotent === 1)) break
        } finally {
          if (!streaming) runtime.release(member.id)
        }
      } while (attempts.length < maxAttempts)
      return { kind: 'failed', attempts, refusals }
    }
  }
}

export type ProxyService = ReturnType<typeof createProxyService>
