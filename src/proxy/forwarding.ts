/**
 * One proxied request's attempts (proxy.service.ts makes one per request): the
 * loop of choose → (backoff) → send → classify → record, with what the retry
 * policy adds when the pool turns it on (a hedge, the budget, the deadline). Its
 * state is one object and its steps are methods, in the order a request meets
 * them, so a request makes no closures of its own: `run` loops; `choose` picks the
 * next member (waiting for one to come back within max_wait_ms); `beforeRetry`
 * pays the backoff and the budget; `launch` sends; `settleNext` waits for the next
 * attempt to settle or the hedge delay; `hedgeNow` sends the hedge; `settle` reads
 * what an attempt gave and decides (answer, move on, stop); `end` counts and calls
 * off what is still in flight. The steps themselves are in attempt-steps.ts.
 */
import { NotFoundError } from '../errors.js'
import type { RetryEvents } from '../metrics/metrics.js'
import type { ProxyRefusal } from '../runtime/pool-runtime.js'
import { backoffMs, DEADLINE_HEADER, DEADLINE_HEADER_PROBLEM, MAX_DEADLINE_MS, requestDeadline, type RetryBudget } from '../rules/retry-policy.js'
import { assertSafePath } from '../rules/upstream-url.js'
import { DomainError } from '../errors.js'
import { attemptLogFields, classifyAttempt, failedAttemptSummary, failoverReason, heardAs, nextStep, whenNoneLeft, type FailedAttemptSummary } from './attempt.js'
import {
  answerWith, discard, isCredentialsRejected, judged, left, logsAttempts, pause, record,
  type Attempt, type Chosen, type FailedAttempt, type ProxyAnswer, type Runtime
} from './attempt-steps.js'
import { assertForwardableMethod, hashKeyOf, hasNoBody, mayRetry, proxiedPath, type ProxyRequest } from './forward.js'
import { judgeRpcAnswer, rpcResult, type JudgedSent } from './rpc-answer.js'
import type { BatchControl } from './rpc-batch-permits.js'
import type { BatchRefusals } from './rpc-batch-refusals.js'
import { DEFAULT_TIMEOUT_MS, type createUpstreamClient } from './upstream-client.js'

/** Requests that may wait at once for a member to come back (max_wait_ms); past it, they answer 503 at once. */
export const MAX_WAITING = 1024

/** What is left of a deadline below which it counts as passed (timers fire to the millisecond). */
const DEADLINE_SLACK_MS = 1

/** What every request's attempts share: the service's parts. */
export interface ForwardingContext {
  readonly runtime: Runtime
  readonly upstream: ReturnType<typeof createUpstreamClient>
  readonly now: () => Date
  readonly random: () => number
  readonly events: RetryEvents
  /** The pool's retry budget in this process. */
  budgetOf: (poolId: number) => RetryBudget
  /** Calls off an attempt still in flight (no outcome, no health). */
  callOff: (attempt: Attempt, incoming: ProxyRequest) => void
  /** Requests waiting now for a member to come back. */
  waiting: number
  /** The evm pools' heads, told what each `eth_blockNumber` answer says (rpc-heads.ts). */
  readonly heads?: { learned: (providerId: number, result: unknown) => void }
  /** The providers this process saw refuse an upstream batch (rpc-batch-refusals.ts): a client batch's calls go to them alone. */
  readonly batchRefusals: BatchRefusals
}

/** What settling an attempt decided: the answer that ends the request, or go on (`next`), or stop trying (`out`). */
type Settled = ProxyAnswer | 'next' | 'out'

export class Forwarding {
  private readonly path: string
  /** What choices and refusals are about: the path, or in an RPC pool the call's method (`/{method}`). */
  private readonly resource: string
  /** An RPC call's method: members whose provider does not allow it are never chosen (runtime/method-routing.ts). */
  private readonly rpcMethod: string | undefined
  private readonly key: string | undefined
  private readonly asked: string | string[] | undefined
  private readonly started = performance.now()
  /** Providers tried (or, for an RPC call, avoided from the start: `rpc.avoid`, until no one else is left), excluded from the next choice. */
  private readonly tried: Set<number>
  private readonly inFlight: Attempt[] = []
  private refusals: ProxyRefusal[] = []
  private readonly attempts: FailedAttemptSummary[] = []
  private failed: FailedAttempt | undefined
  private maxAttempts = 1
  private launched = 0
  private waited = 0
  private rejected = false
  private retries = 0
  private hedges = 0
  private hedgeTried = false
  /** The members the RPC call avoided may be chosen now. */
  private relaxed = false
  private hedge: Attempt | undefined
  /** The pool as the latest choice saw it. */
  private pool: Chosen['pool'] | undefined
  private exhausted = false
  /** The next attempt follows a refusal or our credentials rejected: the provider did nothing, and each such member is out for a while, so it spends no budget. */
  private free = false
  private won: { slow: number, winner: number, afterMs: number } | undefined
  /** Set at the first choice, from the pool's policy. */
  private deadline = { ms: MAX_DEADLINE_MS, shortened: false }
  private budget: RetryBudget | undefined

  /** Refuses a method never forwarded, an unsafe path and a malformed deadline, before any provider is tried. */
  constructor (private readonly ctx: ForwardingContext, private readonly poolId: number, private readonly incoming: ProxyRequest) {
    assertForwardableMethod(incoming.method)
    this.path = proxiedPath(incoming.url)
    assertSafePath(this.path)
    this.resource = incoming.rpc === undefined ? this.path : `/${incoming.rpc.method}`
    this.tried = new Set(incoming.rpc?.avoid)
    this.rpcMethod = incoming.rpc?.method
    this.key = hashKeyOf(incoming.headers)
    this.asked = incoming.headers[DEADLINE_HEADER]
    if (this.asked !== undefined && requestDeadline(MAX_DEADLINE_MS, this.asked) === 'invalid') throw new DomainError(400, DEADLINE_HEADER_PROBLEM)
  }

  /** The attempts, until one answers or none is left. */
  async run (): Promise<ProxyAnswer> {
    try {
      for (;;) {
        if (this.inFlight.length === 0) {
          const choice = await this.choose()
          if (choice.kind !== 'chosen') return this.end(choice)
          const stopped = this.launched > 0 && !this.free ? await this.beforeRetry(choice) : undefined
          if (stopped !== undefined) return this.end(stopped)
          // A wait for a member (max_wait_ms) or the backoff may have reached the deadline.
          if (this.passed()) {
            this.ctx.runtime.release(choice.member.id)
            return this.end(this.overDeadline())
          }
          this.launch(choice)
        }
        const attempt = await this.settleNext()
        if (attempt === 'hedge') { await this.hedgeNow(); continue }
        const settled = await this.settle(attempt)
        if (settled === 'out') break
        if (settled !== 'next') return this.end(settled)
      }
      return this.end(this.failure())
    } catch (error) {
      this.end(this.failure())
      throw error
    }
  }

  private leftMs (): number { return this.deadline.ms - (performance.now() - this.started) }
  private passed (): boolean { return this.leftMs() < DEADLINE_SLACK_MS }
  private overDeadline (): ProxyAnswer { return { kind: 'deadline', deadlineMs: this.deadline.ms, attempts: this.attempts } }
  private failure (): ProxyAnswer { return { kind: 'failed', attempts: this.attempts, refusals: this.refusals } }

  /** Chooses the next member (waiting up to max_wait_ms within the deadline for one to come back), or how the request ends. */
  private async choose (): Promise<Chosen | ProxyAnswer> {
    const { ctx, incoming } = this
    for (;;) {
      const choice = await ctx.runtime.choose(this.poolId, this.resource, this.tried, this.failed, this.key, this.rpcMethod)
      if (choice.kind === 'unknown_pool') throw new NotFoundError(`Pool ${this.poolId} not found`)
      if (this.budget === undefined) {
        const found = requestDeadline(choice.pool.deadline_ms, this.asked)
        if (found !== 'invalid') this.deadline = found
        this.budget = ctx.budgetOf(this.poolId)
      }
      this.maxAttempts = choice.pool.max_attempts
      this.pool = choice.pool
      if (choice.kind === 'chosen') return choice
      // Members avoided for this RPC call (a node behind: rpc-heads.ts) are a last resort, not out.
      if (this.relaxAvoided()) continue
      // A member back within what is left of max_wait_ms and of the deadline: wait for it, then choose again.
      const back = choice.retryAfterMs
      if (back !== null && back <= Math.min(choice.pool.max_wait_ms - this.waited, this.leftMs()) && ctx.waiting < MAX_WAITING && !left(incoming)) {
        const ms = Math.max(1, back)
        // A batch's upstream batches do not wait for this call: it goes alone when a member is back.
        incoming.upstreamBatch?.leave()
        ctx.waiting++
        try { await pause(ms, incoming.signal) } finally { ctx.waiting-- }
        this.waited += ms
        if (!left(incoming)) continue
      }
      this.refusals = choice.refusals
      if (whenNoneLeft(this.attempts.length, this.refusals.length, choice.retryAfterS) === 'unavailable') return { kind: 'unavailable', retryAfterS: choice.retryAfterS }
      return this.failure()
    }
  }

  /** Lets the members the call avoided be chosen (none of them was tried: they were left out until now); false when there were none. */
  private relaxAvoided (): boolean {
    const avoid = this.incoming.rpc?.avoid
    if (avoid === undefined || this.relaxed || this.incoming.rpc?.pinned === true) return false
    this.relaxed = true
    for (const providerId of avoid) this.tried.delete(providerId)
    return true
  }

  /**
   * A retry after a failure: the backoff first (a member chosen, so none is waited for
   * in vain), unless it would run to the deadline; then the budget is spent. Answers
   * how the request ends instead, if it does.
   */
  private async beforeRetry (choice: Chosen): Promise<ProxyAnswer | undefined> {
    const { ctx, incoming } = this
    const wait = backoffMs(choice.pool.retry_backoff_ms, this.launched + 1, ctx.random, Infinity)
    if (wait > 0 && wait >= this.leftMs() - DEADLINE_SLACK_MS) {
      ctx.runtime.release(choice.member.id)
      return this.failure()
    }
    if (wait > 0) await pause(wait, incoming.signal)
    if (left(incoming)) {
      ctx.runtime.release(choice.member.id)
      return this.failure()
    }
    (this.budget as RetryBudget).spend(ctx.now().getTime())
    this.retries++
    ctx.events.retried(this.poolId, 'failover')
    return undefined
  }

  /** Sends an attempt to the chosen member, bounded by what is left of the deadline. */
  private launch (choice: Chosen): Attempt {
    const own = choice.member.timeout_ms ?? DEFAULT_TIMEOUT_MS
    const bound = Math.max(1, Math.ceil(this.leftMs()))
    // Only requests that reach a provider count as first attempts (not a 503's).
    if (this.launched === 0) this.budget?.first(this.ctx.now().getTime())
    this.tried.add(choice.member.provider_id)
    this.launched++
    let cancel: (() => void) | undefined
    let goneOut: Promise<number> | undefined
    const control: BatchControl = { timeoutMs: bound, onCancel: (c: () => void) => { cancel = c } }
    // A client batch's call goes in its member's upstream batch (rpc-batch-group.ts), when it goes; a single call straight up.
    const slot = this.incoming.upstreamBatch
    if (slot !== undefined) goneOut = new Promise((resolve) => { control.onSent = () => { resolve(performance.now()) } })
    const sending = slot === undefined
      ? this.ctx.upstream.send(this.incoming, this.path, choice.pool, choice.member, control)
      : slot.send(this.ctx, this.incoming, this.path, choice.pool, choice.member, control)
    // An RPC call's answer is judged by its body before the loop reads it (rpc-answer.ts).
    const rpc = this.incoming.rpc
    const heads = rpc?.method === 'eth_blockNumber' ? this.ctx.heads : undefined
    const learn = heads === undefined ? undefined : (result: unknown): void => { heads.learned(choice.member.provider_id, result) }
    const sent: Promise<JudgedSent> = rpc === undefined ? sending : sending.then(async (s) => await judgeRpcAnswer(s, rpc, learn))
    const attempt: Attempt = { choice, sent, number: this.launched, cutByClient: this.deadline.shortened && bound < own, byDeadline: bound < own, startedAt: performance.now(), goneOut, cancel }
    this.inFlight.push(attempt)
    return attempt
  }

  /** The next attempt to settle, or `hedge` when the pool's hedge delay passes first. */
  private async settleNext (): Promise<Attempt | 'hedge'> {
    const { inFlight, pool } = this
    const first = inFlight[0] as Attempt
    const hedgeAfter = pool?.hedge_after_ms ?? 0
    const hedgeable = hedgeAfter > 0 && !this.hedgeTried && inFlight.length === 1 && this.launched < this.maxAttempts &&
      (this.incoming.rpc?.repeatable ?? mayRetry(this.incoming.method, this.incoming.headers, pool?.retry_non_idempotent === 1))
    if (inFlight.length === 1 && !hedgeable) {
      await first.sent.catch(() => {})
      return first
    }
    const settled = inFlight.map(async (a) => await a.sent.then(() => a, () => a))
    if (!hedgeable) return await Promise.race(settled)
    let timer: NodeJS.Timeout | undefined
    let over = false
    const due = new Promise<'hedge'>((resolve) => {
      const arm = (from: number): void => { if (!over) timer = setTimeout(() => { resolve('hedge') }, Math.max(0, hedgeAfter - (performance.now() - from))) }
      // A batch's call waiting for its list (or a free send) is not slow yet: its delay counts from when it goes.
      if (first.goneOut === undefined) arm(first.startedAt)
      else first.goneOut.then(arm, () => {})
    })
    try {
      return await Promise.race([...settled, due])
    } finally {
      over = true
      clearTimeout(timer)
    }
  }

  /** The hedge delay passed: a second attempt to another member, when the budget allows and one is eligible. */
  private async hedgeNow (): Promise<void> {
    const { ctx } = this
    this.hedgeTried = true
    if (left(this.incoming) || !(this.budget as RetryBudget).allows(this.pool?.retry_budget_percent ?? 0, ctx.now().getTime())) return
    const choice = await ctx.runtime.choose(this.poolId, this.resource, this.tried, undefined, this.key, this.rpcMethod)
    if (choice.kind !== 'chosen') return
    ;(this.budget as RetryBudget).spend(ctx.now().getTime())
    this.retries++
    this.hedges++
    ctx.events.retried(this.poolId, 'hedge')
    this.hedge = this.launch(choice)
  }

  /**
   * What a settled attempt means for the request. The attempt counts as in flight
   * (least_outstanding) until it ends here, or until its answer's body is closed when
   * that streams back to the client.
   */
  private async settle (attempt: Attempt): Promise<Settled> {
    const { ctx, incoming, resource: path } = this
    const { member } = attempt.choice
    this.inFlight.splice(this.inFlight.indexOf(attempt), 1)
    let streaming = false
    try {
      const sent = await attempt.sent
      const classified = heardAs(rpcResult(sent.rpc, attempt.choice.pool) ?? classifyAttempt(sent, attempt.choice.pool, ctx.now()), sent)
      // A second member refusing our credentials in one request: it is the request (a key of its
      // own in the query, a paid-only path), not our keys; its answer goes back and it is learned
      // at most as a refusal of the resource.
      const refusedUs = isCredentialsRejected(classified)
      const requestRejected = refusedUs && this.rejected
      const result = judged(ctx.runtime, attempt.choice, path, classified, this.rejected)
      this.rejected ||= refusedUs
      if (logsAttempts(incoming)) incoming.log.info(attemptLogFields(attempt.number, member, result, sent), 'proxy attempt')
      // Ours: the provider was never asked, so it is not told against; the request ends (500).
      if (result.kind === 'ours') throw result.error
      // Cut by the client's own shorter deadline: says nothing about the provider.
      const cutByClient = attempt.cutByClient && !('response' in sent) && sent.timedOut
      if (!cutByClient) record(ctx.runtime, this.poolId, attempt.choice, path, result, sent)
      const step = requestRejected ? 'answer' : nextStep(result, incoming.method, incoming.headers, attempt.choice.pool.retry_non_idempotent === 1, incoming.rpc?.repeatable)
      if (step === 'answer' && 'response' in sent) {
        streaming = !hasNoBody(incoming.method, sent.response.statusCode)
        const slow = this.inFlight[0]
        if (attempt === this.hedge && slow !== undefined) this.won = { slow: slow.choice.member.provider_id, winner: member.provider_id, afterMs: attempt.choice.pool.hedge_after_ms }
        return answerWith(ctx.runtime, sent.response, sent.secrets, streaming, attempt.choice, this.launched)
      }
      this.attempts.push(failedAttemptSummary(member, result, sent))
      this.failed = { providerId: member.provider_id, reason: failoverReason(result) }
      // Another attempt still on its way (a hedge): its answer may yet serve.
      if (this.inFlight.length > 0) { discard(sent); return 'next' }
      // Timed out on what was left of the deadline: passed, even when the timer fired a moment early (it counts from the loop's time).
      if (this.passed() || (attempt.byDeadline && !('response' in sent) && sent.timedOut)) { discard(sent); return this.overDeadline() }
      if (step === 'stop') { discard(sent); return this.failure() }
      if (this.launched >= this.maxAttempts) { discard(sent); return 'out' }
      this.free = result.kind === 'forbidden' || refusedUs || (result.kind === 'failure' && result.free === true)
      if (!this.free && !(this.budget as RetryBudget).allows(attempt.choice.pool.retry_budget_percent, ctx.now().getTime())) {
        // The budget is spent: this attempt's own answer goes back (502 when it had none).
        this.exhausted = true
        ctx.events.budgetExhausted(this.poolId)
        if (!('response' in sent)) return { kind: 'failed', attempts: this.attempts, refusals: this.refusals, retryBudget: 'exhausted' }
        streaming = !hasNoBody(incoming.method, sent.response.statusCode)
        return { ...answerWith(ctx.runtime, sent.response, sent.secrets, streaming, attempt.choice, this.launched), retryBudget: 'exhausted' }
      }
      discard(sent)
      return 'next'
    } finally {
      if (!streaming) ctx.runtime.release(member.id)
    }
  }

  /** Ends the request: what the retry policy did is counted, attempts still in flight are called off. */
  private end (answer: ProxyAnswer): ProxyAnswer {
    for (const attempt of this.inFlight.splice(0)) this.ctx.callOff(attempt, this.incoming)
    this.ctx.runtime.retriesCounted(this.poolId, { retries: this.retries, hedges: this.hedges, exhausted: this.exhausted }, this.won)
    return answer
  }
}
