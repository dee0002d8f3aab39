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
 * ends its wait) instead of answering 503. A 401/402 on our credentials is judged
 * by the credential rule (rules/credential-refusal.ts, with what the runtime has
 * seen: runtime/credential-evidence.ts): our key rejected takes the member out, a
 * refusal of the resource alone is learned as a 403's is; either moves on. A second
 * one in the same request is the request's own doing: that answer goes back, and it
 * is learned at most as a refusal of the resource (one request never takes out more
 * than one member). An error of
 * ours (the upstream client refused the request as built) is no provider's
 * failure: nothing is reported, and it ends the request as a 500.
 *
 * The retry policy (issue 28, rules/retry-policy.ts): no request runs past its
 * deadline (the pool's `deadline_ms`, or less by the client's header) across
 * attempts, backoffs and waits: each attempt is bounded by what is left, and past
 * it the request answers 504 with the attempts made (an answer already streaming
 * is not cut). Every attempt after the first spends the pool's retry budget (per
 * process, a percent of first attempts over a sliding window); when it is spent, a
 * failing attempt's own answer goes back (`retryBudget: 'exhausted'`). A retry
 * waits a full-jitter backoff first. With `hedge_after_ms`, a request that may be
 * repeated and whose one attempt has not started answering after that delay sends
 * a second attempt to another member; the first answer to start wins and the
 * other attempt is called off (`cancelled`: no outcome, no health).
 */
import type { Readable } from 'node:stream'
import type { Dispatcher } from 'undici'
import { DomainError, NotFoundError } from '../errors.js'
import { NO_RETRY_EVENTS, type RetryEvents } from '../metrics/metrics.js'
import type { FailedAttempt, PoolRuntime, ProxyChoice, ProxyRefusal } from '../runtime/pool-runtime.js'
import { backoffMs, BUDGET_WINDOW_MS, DEADLINE_HEADER, DEADLINE_HEADER_PROBLEM, MAX_DEADLINE_MS, requestDeadline, RetryBudget } from '../rules/retry-policy.js'
import { refusalSeconds, refusedPathOf, refusesCredentials } from '../rules/credential-refusal.js'
import { assertSafePath } from '../rules/upstream-url.js'
import {
  attemptLogFields, classifyAttempt, failedAttemptSummary, failoverReason, nextStep, reportedOutcome, whenNoneLeft, type FailedAttemptSummary
} from './attempt.js'
import {
  assertForwardableMethod, CREDENTIALS_REJECTED, downstreamHeaders, hashKeyOf, hasNoBody, mayRetry, proxiedPath, resourceOf, type AttemptResult, type ProxyRequest
} from './forward.js'
import { createUpstreamClient, DEFAULT_TIMEOUT_MS, type SentUpstream } from './upstream-client.js'

export type { FailedAttemptSummary } from './attempt.js'
export type { ProxyRequest } from './forward.js'
export { DEFAULT_TIMEOUT_MS } from './upstream-client.js'

export type ProxyAnswer =
  /** `body` is null for an answer that has none (HEAD, 204, 304). */
  | {
    kind: 'answer',
    status: number,
    headers: Record<string, string | string[]>,
    body: Readable | null,
    provider: string | null,
    attempts: number,
    /** Set when a failing attempt's own answer goes back because the retry budget was spent. */
    retryBudget?: 'exhausted'
  }
  | { kind: 'unavailable', retryAfterS: number | null }
  | { kind: 'failed', attempts: FailedAttemptSummary[], refusals: ProxyRefusal[], retryBudget?: 'exhausted' }
  /** The request's deadline passed before an answer started (504). */
  | { kind: 'deadline', deadlineMs: number, attempts: FailedAttemptSummary[] }

type Runtime = Pick<PoolRuntime, 'choose' | 'report' | 'learnRefusal' | 'release' | 'retriesCounted' | 'credentialsWorked' | 'judgeRefusal'>

interface Deps {
  runtime: Runtime
  now?: () => Date
  /** Draws the backoff's jitter (injectable for tests). */
  random?: () => number
  events?: RetryEvents
}

/** Requests that may wait at once for a member to come back (max_wait_ms); past it, they answer 503 at once. */
export const MAX_WAITING = 1024

/** What is left of a deadline below which it counts as passed (timers fire to the millisecond). */
const DEADLINE_SLACK_MS = 1

/** True for our credentials rejected (a 401/402). */
const isCredentialsRejected = (result: AttemptResult): boolean => result.kind === 'failure' && result.reason === CREDENTIALS_REJECTED

/** True when the request's log writes `info` lines (an attempt's fields are built only then). */
const logsAttempts = (incoming: ProxyRequest): boolean => incoming.log.isLevelEnabled?.('info') !== false

/** True once the client has left (its signal aborted). */
const left = (incoming: ProxyRequest): boolean => incoming.gone !== undefined ? incoming.gone() : incoming.signal?.aborted === true

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

/** One attempt sent: its choice, what its call will give, and how to call it off before its answer starts. */
interface Attempt {
  readonly choice: Chosen
  readonly sent: Promise<SentUpstream>
  /** Its number in the request (1 for the first), as its log line shows it. */
  readonly number: number
  /** The bound it was sent with was the client's shortened deadline, not the member's own timeout. */
  readonly cutByClient: boolean
  readonly startedAt: number
  cancel: (() => void) | undefined
}

/**
 * Folds an attempt's outcome into the runtime: its health and counters, or the refusal
 * it met; a 2xx on our credentials is remembered for `path` (evidence for the credential rule).
 */
function record (runtime: Runtime, poolId: number, { pool, member }: Chosen, path: string, result: AttemptResult, sent: SentUpstream): void {
  const outcome = reportedOutcome(result, sent)
  if (outcome !== undefined) runtime.report(poolId, member.provider_id, outcome)
  if (result.kind === 'forbidden') {
    // A 401/402 refuses its exact path (the client chooses paths: one must not refuse its neighbours), a 403 its resource.
    const refused = refusesCredentials(result.statusCode) ? refusedPathOf(path) : resourceOf(path)
    runtime.learnRefusal(pool.id, member.provider_id, refused, refusalSeconds(result.statusCode, pool), result.statusCode)
  } else if (result.kind === 'success' && pool.forward_client_auth !== 1 && 'response' in sent && sent.response.statusCode >= 200 && sent.response.statusCode < 300) {
    runtime.credentialsWorked(member, path)
  }
}

/**
 * A 401/402 on our credentials as the credential rule judges it: our key rejected
 * stays a failure; a refusal of the resource alone becomes one (`forbidden`, with its
 * status). `again` (the request met one already) makes it a refusal whatever the rule says.
 */
function judged (runtime: Runtime, { member }: Chosen, path: string, result: AttemptResult, again: boolean): AttemptResult {
  if (!isCredentialsRejected(result)) return result
  if (!again && runtime.judgeRefusal(member, path) === 'credentials_rejected') return result
  return { kind: 'forbidden', statusCode: (result as { statusCode?: number }).statusCode ?? 401 }
}

/**
 * The answer that ends the request. With a body, the attempt stays in flight
 * (least_outstanding) until that body is closed, sent to the client or left by
 * it; without one, what the provider sent anyway is thrown away.
 */
function answerWith (
  runtime: Runtime, response: Dispatcher.ResponseData, secrets: readonly string[], withBody: boolean, { member }: Chosen, attempts: number
): Extract<ProxyAnswer, { kind: 'answer' }> {
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

/** Throws away an answer the request does not use (its body, read or not, is let go). */
function discard (sent: SentUpstream): void {
  if ('response' in sent) sent.response.body.on('error', () => {}).destroy()
}

/** Builds the proxy over the pool runtime; `close` ends its upstream connections. */
export function createProxyService ({ runtime, now = () => new Date(), random = Math.random, events = NO_RETRY_EVENTS }: Deps) {
  const upstream = createUpstreamClient()
  let waiting = 0
  /** Each pool's retry budget in this process (a pool unused for a window is dropped at the next sweep). */
  const budgets = new Map<number, RetryBudget>()
  let sweptAt = now().getTime()

  function budgetOf (poolId: number): RetryBudget {
    let budget = budgets.get(poolId)
    if (budget === undefined) {
      const at = now().getTime()
      if (at - sweptAt > BUDGET_WINDOW_MS) {
        sweptAt = at
        for (const [id, b] of budgets) if (b.idle(at)) budgets.delete(id)
      }
      budgets.set(poolId, budget = new RetryBudget())
    }
    return budget
  }

  /** An attempt called off (a hedge that lost, or the request ended beside it): no outcome, no health; its member released when it ends. */
  function callOff (attempt: Attempt, incoming: ProxyRequest): void {
    attempt.cancel?.()
    attempt.sent.then((sent) => {
      discard(sent)
      if (logsAttempts(incoming)) incoming.log.info({ attempt: attempt.number, providerId: attempt.choice.member.provider_id, provider: attempt.choice.member.provider_name, outcome: 'cancelled', latencyMs: sent.latencyMs }, 'proxy attempt')
    }, () => {}).finally(() => { runtime.release(attempt.choice.member.id) })
  }

  return {
    close: upstream.close,

    async forward (poolId: number, incoming: ProxyRequest): Promise<ProxyAnswer> {
      // Refuse a method never forwarded, an unsafe path and a malformed deadline, before any provider is tried.
      assertForwardableMethod(incoming.method)
      const path = proxiedPath(incoming.url)
      assertSafePath(path)
      const key = hashKeyOf(incoming.headers)
      const asked = incoming.headers[DEADLINE_HEADER]
      if (asked !== undefined && requestDeadline(MAX_DEADLINE_MS, asked) === 'invalid') {
        throw new DomainError(400, DEADLINE_HEADER_PROBLEM)
      }
      const started = performance.now()
      const tried = new Set<number>()
      const inFlight: Attempt[] = []
      let refusals: ProxyRefusal[] = []
      const attempts: FailedAttemptSummary[] = []
      let failed: FailedAttempt | undefined
      let maxAttempts = 1
      let launched = 0
      let waited = 0
      let rejected = false
      let retries = 0
      let hedges = 0
      let hedgeTried = false
      let hedge: Attempt | undefined
      // The pool as the latest choice saw it.
      let pool: Chosen['pool'] | undefined
      let exhausted = false
      // The next attempt follows a refusal or our credentials rejected: the provider did
      // nothing, and each such member is out for a while, so it spends no budget.
      let free = false
      let won: { slow: number, winner: number, afterMs: number } | undefined
      // Set at the first choice, from the pool's policy.
      let deadline = { ms: MAX_DEADLINE_MS, shortened: false }
      let budget: RetryBudget | undefined
      const leftMs = () => deadline.ms - (performance.now() - started)

      /** Sends an attempt to the chosen member, bounded by what is left of the deadline. */
      const launch = (choice: Chosen): Attempt => {
        const own = choice.member.timeout_ms ?? DEFAULT_TIMEOUT_MS
        const bound = Math.max(1, Math.ceil(leftMs()))
        // Only requests that reach a provider count as first attempts (not a 503's).
        if (launched === 0) budget?.first(now().getTime())
        tried.add(choice.member.provider_id)
        launched++
        let cancel: (() => void) | undefined
        const sent = upstream.send(incoming, path, choice.pool, choice.member, { timeoutMs: bound, onCancel: (c) => { cancel = c } })
        const attempt: Attempt = { choice, sent, number: launched, cutByClient: deadline.shortened && bound < own, startedAt: performance.now(), cancel }
        inFlight.push(attempt)
        return attempt
      }

      /** Ends the request: what the retry policy did is counted, attempts still in flight are called off. */
      const end = (answer: ProxyAnswer): ProxyAnswer => {
        for (const attempt of inFlight.splice(0)) callOff(attempt, incoming)
        runtime.retriesCounted(poolId, { retries, hedges, exhausted }, won)
        return answer
      }

      /** Chooses the next member (waiting up to max_wait_ms within the deadline for one to come back), or how the request ends. */
      const next = async (): Promise<Chosen | ProxyAnswer> => {
        for (;;) {
          const choice = await runtime.choose(poolId, path, tried, failed, key)
          if (choice.kind === 'unknown_pool') throw new NotFoundError(`Pool ${poolId} not found`)
          if (budget === undefined) {
            const found = requestDeadline(choice.pool.deadline_ms, asked)
            if (found !== 'invalid') deadline = found
            budget = budgetOf(poolId)
          }
          maxAttempts = choice.pool.max_attempts
          pool = choice.pool
          if (choice.kind === 'chosen') return choice
          // A member back within what is left of max_wait_ms and of the deadline: wait for it, then choose again.
          const back = choice.retryAfterMs
          if (back !== null && back <= Math.min(choice.pool.max_wait_ms - waited, leftMs()) && waiting < MAX_WAITING && !left(incoming)) {
            const ms = Math.max(1, back)
            waiting++
            try { await pause(ms, incoming.signal) } finally { waiting-- }
            waited += ms
            if (!left(incoming)) continue
          }
          refusals = choice.refusals
          if (whenNoneLeft(attempts.length, refusals.length, choice.retryAfterS) === 'unavailable') return { kind: 'unavailable', retryAfterS: choice.retryAfterS }
          return { kind: 'failed', attempts, refusals }
        }
      }

      /** The next attempt to settle, or `hedge` when the pool's hedge delay passes first. */
      const settleNext = async (): Promise<Attempt | 'hedge'> => {
        const first = inFlight[0] as Attempt
        const hedgeAfter = pool?.hedge_after_ms ?? 0
        const hedgeable = hedgeAfter > 0 && !hedgeTried && inFlight.length === 1 && launched < maxAttempts &&
          mayRetry(incoming.method, incoming.headers, pool?.retry_non_idempotent === 1)
        if (inFlight.length === 1 && !hedgeable) {
          await first.sent.catch(() => {})
          return first
        }
        const settled = inFlight.map(async (a) => await a.sent.then(() => a, () => a))
        if (!hedgeable) return await Promise.race(settled)
        let timer: NodeJS.Timeout | undefined
        const due = new Promise<'hedge'>((resolve) => { timer = setTimeout(() => { resolve('hedge') }, Math.max(0, hedgeAfter - (performance.now() - first.startedAt))) })
        try {
          return await Promise.race([...settled, due])
        } finally {
          clearTimeout(timer)
        }
      }

      const passed = () => leftMs() < DEADLINE_SLACK_MS
      const overDeadline = (): ProxyAnswer => ({ kind: 'deadline', deadlineMs: deadline.ms, attempts })

      try {
        for (;;) {
          if (inFlight.length === 0) {
            const choice = await next()
            if (choice.kind !== 'chosen') return end(choice)
            // A retry after a failure: the backoff first (a member chosen, so none is waited
            // for in vain), unless it would run to the deadline; then the budget is spent.
            if (launched > 0 && !free) {
              const wait = backoffMs(choice.pool.retry_backoff_ms, launched + 1, random, Infinity)
              if (wait > 0 && wait >= leftMs() - DEADLINE_SLACK_MS) {
                runtime.release(choice.member.id)
                return end({ kind: 'failed', attempts, refusals })
              }
              if (wait > 0) await pause(wait, incoming.signal)
              if (left(incoming)) {
                runtime.release(choice.member.id)
                return end({ kind: 'failed', attempts, refusals })
              }
              (budget as RetryBudget).spend(now().getTime())
              retries++
              events.retried(poolId, 'failover')
            }
            // A wait for a member (max_wait_ms) or the backoff may have reached the deadline.
            if (passed()) {
              runtime.release(choice.member.id)
              return end(overDeadline())
            }
            launch(choice)
          }
          const attempt = await settleNext()
          if (attempt === 'hedge') {
            hedgeTried = true
            if (left(incoming) || !(budget as RetryBudget).allows(pool?.retry_budget_percent ?? 0, now().getTime())) continue
            const choice = await runtime.choose(poolId, path, tried, undefined, key)
            if (choice.kind !== 'chosen') continue
            ;(budget as RetryBudget).spend(now().getTime())
            retries++
            hedges++
            events.retried(poolId, 'hedge')
            hedge = launch(choice)
            continue
          }
          const { member } = attempt.choice
          inFlight.splice(inFlight.indexOf(attempt), 1)
          // The attempt counts as in flight (least_outstanding) until it ends here, or
          // until its answer's body is closed when that streams back to the client.
          let streaming = false
          try {
            const sent = await attempt.sent
            const classified = classifyAttempt(sent, attempt.choice.pool, now())
            // A second member refusing our credentials in one request: it is the request (a
            // key of its own in the query, a paid-only path), not our keys; its answer goes
            // back and it is learned at most as a refusal of the resource.
            const refusedUs = isCredentialsRejected(classified)
            const requestRejected = refusedUs && rejected
            const result = judged(runtime, attempt.choice, path, classified, rejected)
            rejected ||= refusedUs
            if (logsAttempts(incoming)) incoming.log.info(attemptLogFields(attempt.number, member, result, sent), 'proxy attempt')
            // Ours: the provider was never asked, so it is not told against; the request ends (500).
            if (result.kind === 'ours') throw result.error
            // Cut by the client's own shorter deadline: says nothing about the provider.
            const cutByClient = attempt.cutByClient && !('response' in sent) && sent.timedOut
            if (!cutByClient) record(runtime, poolId, attempt.choice, path, result, sent)
            const step = requestRejected ? 'answer' : nextStep(result, incoming.method, incoming.headers, attempt.choice.pool.retry_non_idempotent === 1)
            if (step === 'answer' && 'response' in sent) {
              streaming = !hasNoBody(incoming.method, sent.response.statusCode)
              const slow = inFlight[0]
              if (attempt === hedge && slow !== undefined) won = { slow: slow.choice.member.provider_id, winner: member.provider_id, afterMs: attempt.choice.pool.hedge_after_ms }
              return end(answerWith(runtime, sent.response, sent.secrets, streaming, attempt.choice, launched))
            }
            attempts.push(failedAttemptSummary(member, result, sent))
            failed = { providerId: member.provider_id, reason: failoverReason(result) }
            // Another attempt still on its way (a hedge): its answer may yet serve.
            if (inFlight.length > 0) { discard(sent); continue }
            if (passed()) { discard(sent); return end(overDeadline()) }
            if (step === 'stop') { discard(sent); return end({ kind: 'failed', attempts, refusals }) }
            if (launched >= maxAttempts) { discard(sent); break }
            free = result.kind === 'forbidden' || refusedUs
            if (!free && !(budget as RetryBudget).allows(attempt.choice.pool.retry_budget_percent, now().getTime())) {
              // The budget is spent: this attempt's own answer goes back (502 when it had none).
              exhausted = true
              events.budgetExhausted(poolId)
              if ('response' in sent) {
                streaming = !hasNoBody(incoming.method, sent.response.statusCode)
                return end({ ...answerWith(runtime, sent.response, sent.secrets, streaming, attempt.choice, launched), retryBudget: 'exhausted' })
              }
              return end({ kind: 'failed', attempts, refusals, retryBudget: 'exhausted' })
            }
            discard(sent)
          } finally {
            if (!streaming) runtime.release(member.id)
          }
        }
        return end({ kind: 'failed', attempts, refusals })
      } catch (error) {
        end({ kind: 'failed', attempts, refusals })
        throw error
      }
    }
  }
}

export type ProxyService = ReturnType<typeof createProxyService>
