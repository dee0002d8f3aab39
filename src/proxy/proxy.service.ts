/**
 * The proxy: one client request, answered by whichever member of the pool
 * works. Each attempt is a rotation (strategy, eligibility, quota, history) to a
 * provider not yet tried in this request; its outcome is reported like a client
 * report (health, cooldowns); a failure moves on to the next provider when the
 * request may be repeated. The answer that ends the loop is streamed back as the
 * provider sends it.
 */
import type { Readable } from 'node:stream'
import { Agent, request } from 'undici'
import { NotFoundError } from '../errors.js'
import type { HealthService } from '../rotation/health.service.js'
import type { ProxyRefusal, RotationService } from '../rotation/rotation.service.js'
import {
  assertSafePath, classifyError, classifyStatus, downstreamHeaders, mayRetry, proxiedPath, resourceOf, upstreamHeaders, upstreamUrl, type AttemptResult
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
  ip: string
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
  | { kind: 'answer', status: number, headers: Record<string, string | string[]>, body: Readable, provider: string | null, attempts: number }
  | { kind: 'unavailable', retryAfterS: number | null }
  | { kind: 'failed', attempts: FailedAttempt[], refusals: ProxyRefusal[] }

interface Deps {
  rotation: Pick<RotationService, 'chooseForProxy' | 'recordRefusal'>
  health: Pick<HealthService, 'report'>
}

/** Builds the proxy over the rotation and health services; `close` ends its upstream connections. */
export function createProxyService ({ rotation, health }: Deps) {
  // One agent: undici keeps a pool of keep-alive connections per upstream origin.
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 256 })

  /** Reports an attempt's outcome; a member removed meanwhile has nothing to report to. */
  async function report (poolId: number, providerId: number, result: AttemptResult, latencyMs: number, statusCode?: number): Promise<void> {
    if (result.kind === 'forbidden') return
    const failure = result.kind === 'failure'
    try {
      await health.report(poolId, {
        provider_id: providerId,
        success: !failure,
        status_code: statusCode ?? null,
        latency_ms: latencyMs,
        retry_after_s: failure ? result.retryAfterS ?? null : null,
        error: failure ? `proxy: ${result.reason}` : null
      })
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error
    }
  }

  return {
    close: async () => { await agent.close() },

    async forward (poolId: number, incoming: ProxyRequest): Promise<ProxyAnswer> {
      const path = proxiedPath(incoming.url)
      // Refuse an unsafe path before any provider is tried.
      assertSafePath(path)
      const resource = resourceOf(path)
      const tried = new Set<number>()
      let refusals: ProxyRefusal[] = []
      const attempts: FailedAttempt[] = []
      let reason = 'proxy'
      let maxAttempts = 1
      do {
        const choice = await rotation.chooseForProxy(poolId, resource, tried, reason)
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
        tried.add(member.provider_id)
        const target = upstreamUrl(member.base_url as string, path)
        const timeoutMs = member.timeout_ms ?? DEFAULT_TIMEOUT_MS
        const controller = new AbortController()
        let timedOut = false
        const timer = setTimeout(() => { timedOut = true; controller.abort() }, timeoutMs)
        const started = performance.now()
        let result: AttemptResult
        try {
          const response = await request(target, {
            method: incoming.method as 'GET',
            headers: upstreamHeaders(incoming.headers, {
              clientIp: incoming.ip,
              protocol: incoming.protocol,
              forwardClientAuth: choice.pool.forward_client_auth === 1,
              providerHeaders: member.auth_headers === null ? undefined : JSON.parse(member.auth_headers) as Record<string, string>
            }),
            body: incoming.body,
            dispatcher: agent,
            signal: controller.signal,
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs
          })
          // The answer has started: from here the body streams at its own pace.
          clearTimeout(timer)
          const latencyMs = Math.round(performance.now() - started)
          result = classifyStatus(response.statusCode, response.headers['retry-after'])
          await report(poolId, member.provider_id, result, latencyMs, response.statusCode)
          if (result.kind === 'forbidden') await rotation.recordRefusal(member.provider_id, resource, choice.pool.forbidden_ttl_seconds)
          if (result.kind === 'success') {
            return {
              kind: 'answer',
              status: response.statusCode,
              headers: downstreamHeaders(response.headers),
              body: response.body,
              provider: member.provider_name,
              attempts: attempts.length + 1
            }
          }
          response.body.resume()
          attempts.push({ provider_id: member.provider_id, provider_name: member.provider_name, status_code: response.statusCode, latency_ms: latencyMs })
        } catch (error) {
          clearTimeout(timer)
          const latencyMs = Math.round(performance.now() - started)
          result = classifyError(error, timedOut)
          await report(poolId, member.provider_id, result, latencyMs)
          attempts.push({ provider_id: member.provider_id, provider_name: member.provider_name, error: result.kind === 'failure' ? result.reason : 'failed', latency_ms: latencyMs })
        }
        reason = result.kind === 'forbidden' ? 'proxy:forbidden' : `proxy:${result.kind === 'failure' ? result.reason : 'error'}`
        // A refusal means the provider did nothing, so moving on is always safe; a failure
        // may have had an effect, so only a request that may be repeated moves on.
        if (result.kind === 'failure' && !mayRetry(incoming.method, incoming.headers, choice.pool.retry_non_idempotent === 1)) break
      } while (attempts.length < maxAttempts)
      return { kind: 'failed', attempts, refusals }
    }
  }
}

export type ProxyService = ReturnType<typeof createProxyService>
