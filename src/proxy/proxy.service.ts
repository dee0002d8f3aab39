/**
 * The proxy: one client request, answered by whichever member of the pool
 * works. `forward` is a loop of four steps per attempt: choose (the pool runtime,
 * runtime/: strategy, eligibility, quota lease, in memory, among the providers not
 * yet tried in this request), send (upstream-client.ts), classify (attempt.ts:
 * what the outcome means and what the request does next) and record (the
 * outcome folded into the runtime's health and counters, written down by its
 * flusher, or a refusal learned; and one log line per attempt, with the
 * provider's own request id). Every attempt sends the request's own id upstream.
 * A failure moves on to the next provider when the request may be repeated, and
 * that failover goes into the history. The answer that ends the loop is streamed
 * back as the provider sends it (answers that have no body — to HEAD, 204, 304 —
 * without one). When nothing is eligible but a member comes back within the pool's
 * `max_wait_ms` (its cooldown, rate-limit pause or quota window ending), the
 * request waits for it (at most MAX_WAITING requests at once; a client that leaves
 * ends its wait) instead of answering 503. A 401/402 on our credentials takes its
 * member out and moves on; a second one in the same request is the request's own
 * doing: that answer goes back, and no second member is taken out. An error of ours (the upstream client refused the request as
 * built) is no provider's failure: nothing is reported, and it ends the request
 * as a 500.
 */
import type { Readable } from 'node:stream'
import type { Dispatcher } from 'undici'
import { NotFoundError } from '../errors.js'
import type { FailedAttempt, PoolRuntime, ProxyChoice, ProxyRefusal } from '../runtime/pool-runtime.js'
import { assertSafePath } from '../rules/upstream-url.js'
import {
  attemptLogFields, classifyAttempt, failedAttemptSummary, failoverReason, nextStep, reportedOutcome, whenNoneLeft, type FailedAttemptSummary
} from './attempt.js'
import {
  assertForwardableMethod, CREDENTIALS_REJECTED, downstreamHeaders, hashKeyOf, hasNoBody, proxiedPath, resourceOf, type AttemptResult, type ProxyRequest
} from './forward.js'
import { createUpstreamClient, type SentUpstream } from './upstream-client.js'

export type { FailedAttemptSummary } from './attempt.js'
export type { ProxyRequest } from './forward.js'
export { DEFAULT_TIMEOUT_MS } from './upstream-client.js'

export type ProxyAnswer =
  /** `body` is null for an answer that has none (HEAD, 204, 304). */
  | { kind: 'answer', status: number, headers: Record<string, string | string[]>, body: Readable | null, provider: string | null, attempts: number }
  | { kind: 'unavailable', retryAfterS: number | null }
  | { kind: 'failed', attempts: FailedAttemptSummary[], refusals: ProxyRefusal[] }

type Runtime = Pick<PoolRuntime, 'choose' | 'report' | 'learnRefusal' | 'release'>

interface Deps {
  runtime: Runtime
  now?: () => Date
}

/** Requests that may wait at once for a member to come back (max_wait_ms); past it, they answer 503 at once. */
export const MAX_WAITING = 1024

/** True for our credentials rejected (a 401/402). */
const isCredentialsRejected = (result: AttemptResult): boolean => result.kind === 'failure' && result.reason === CREDENTIALS_REJECTED

/** True once the client has left (its signal aborted). */
const left = (incoming: ProxyRequest): boolean => incoming.signal?.aborted === true

/** Resolves after `ms`, or at once when `signal` aborts (the client left). */
async function pause (ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted === true) return
  await new Promise<void>((resolve) => {
    const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve() }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

type Chosen = Extract<ProxyChoice, { kind: 'chosen' }>

/** Folds an attempt's outcome into the runtime: its health and counters, or the refusal it met. */
function record (runtime: Runtime, poolId: number, { pool, member }: Chosen, resource: string, result: AttemptResult, sent: SentUpstream): void {
  const outcome = reportedOutcome(result, sent)
  if (outcome !== undefined) runtime.report(poolId, member.provider_id, outcome)
  if (result.kind === 'forbidden') runtime.learnRefusal(pool.id, member.provider_id, resource, pool.forbidden_ttl_seconds)
}

/**
 * The answer that ends the request. With a body, the attempt stays in flight
 * (least_outstanding) until that body is closed, sent to the client or left by
 * it; without one, what the provider sent anyway is thrown away.
 */
function answerWith (
  runtime: Runtime, response: Dispatcher.ResponseData, secrets: readonly string[], withBody: boolean, { member }: Chosen, attempts: number
): ProxyAnswer {
  if (withBody) response.body.once('close', () => { runtime.release(member.id) })
  else response.body.resume()
  return {
    kind: 'answer',
    status: response.statusCode,
    headers: downstreamHeaders(response.headers, secrets),
    body: withBody ? response.body : null,
    provider: member.provider_name,
    attempts
  }
}

/** Builds the proxy over the pool runtime; `close` ends its upstream connections. */
export function createProxyService ({ runtime, now = () => new Date() }: Deps) {
  const upstream = createUpstreamClient()
  let waiting = 0

  return {
    close: upstream.close,

    async forward (poolId: number, incoming: ProxyRequest): Promise<ProxyAnswer> {
      // Refuse a method never forwarded, and an unsafe path, before any provider is tried.
      assertForwardableMethod(incoming.method)
      const path = proxiedPath(incoming.url)
      assertSafePath(path)
      const resource = resourceOf(path)
      const key = hashKeyOf(incoming.headers)
      const tried = new Set<number>()
      let refusals: ProxyRefusal[] = []
      const attempts: FailedAttemptSummary[] = []
      let failed: FailedAttempt | undefined
      let maxAttempts = 1
      let waited = 0
      let rejected = false
      do {
        const choice = await runtime.choose(poolId, resource, tried, failed, key)
        if (choice.kind === 'unknown_pool') throw new NotFoundError(`Pool ${poolId} not found`)
        maxAttempts = choice.pool.max_attempts
        if (choice.kind === 'none') {
          // A member back within what is left of max_wait_ms: wait for it, then choose again.
          const back = choice.retryAfterMs
          if (back !== null && back <= choice.pool.max_wait_ms - waited && waiting < MAX_WAITING && !left(incoming)) {
            const ms = Math.max(1, back)
            waiting++
            try { await pause(ms, incoming.signal) } finally { waiting-- }
            waited += ms
            if (!left(incoming)) continue
          }
          refusals = choice.refusals
          if (whenNoneLeft(attempts.length, refusals.length, choice.retryAfterS) === 'unavailable') return { kind: 'unavailable', retryAfterS: choice.retryAfterS }
          break
        }
        const { member } = choice
        // The attempt counts as in flight (least_outstanding) until it ends here, or
        // until its answer's body is closed when that streams back to the client.
        let streaming = false
        try {
          tried.add(member.provider_id)
          const sent = await upstream.send(incoming, path, choice.pool, member)
          const result = classifyAttempt(sent, choice.pool, now())
          incoming.log.info(attemptLogFields(attempts.length + 1, member, result, sent), 'proxy attempt')
          // Ours: the provider was never asked, so it is not told against; the request ends (500).
          if (result.kind === 'ours') throw result.error
          // A second member rejecting the credentials in one request: it is the request (a
          // key of its own in the query, a premium path), not our keys; its answer goes back
          // and no other member is taken out for it.
          const requestRejected = isCredentialsRejected(result) && rejected
          if (!requestRejected) record(runtime, poolId, choice, resource, result, sent)
          rejected ||= isCredentialsRejected(result)
          const step = requestRejected ? 'answer' : nextStep(result, incoming.method, incoming.headers, choice.pool.retry_non_idempotent === 1)
          if ('response' in sent) {
            if (step === 'answer') {
              streaming = !hasNoBody(incoming.method, sent.response.statusCode)
              return answerWith(runtime, sent.response, sent.secrets, streaming, choice, attempts.length + 1)
            }
            sent.response.body.resume()
          }
          attempts.push(failedAttemptSummary(member, result, sent))
          failed = { providerId: member.provider_id, reason: failoverReason(result) }
          if (step === 'stop') break
        } finally {
          if (!streaming) runtime.release(member.id)
        }
      } while (attempts.length < maxAttempts)
      return { kind: 'failed', attempts, refusals }
    }
  }
}

export type ProxyService = ReturnType<typeof createProxyService>
