/**
 * The proxy: one client request, answered by whichever member of the pool
 * works (one Forwarding per request: forwarding.ts, its steps in attempt-steps.ts).
 * `forward` is a loop of four steps per attempt: choose (the pool runtime,
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
import { NO_RETRY_EVENTS, type RetryEvents } from '../metrics/metrics.js'
import { BUDGET_WINDOW_MS, RetryBudget } from '../rules/retry-policy.js'
import { discard, logsAttempts, type Attempt, type ProxyAnswer, type Runtime } from './attempt-steps.js'
import type { ProxyRequest } from './forward.js'
import { Forwarding, type ForwardingContext } from './forwarding.js'
import { BatchRefusals } from './rpc-batch-refusals.js'
import { createUpstreamClient } from './upstream-client.js'

export type { FailedAttemptSummary } from './attempt.js'
export type { ProxyAnswer } from './attempt-steps.js'
export type { ProxyRequest } from './forward.js'
export { MAX_WAITING } from './forwarding.js'
export { DEFAULT_TIMEOUT_MS } from './upstream-client.js'

interface Deps {
  runtime: Runtime
  now?: () => Date
  /** Draws the backoff's jitter (injectable for tests). */
  random?: () => number
  events?: RetryEvents
  /** The evm pools' heads, told each `eth_blockNumber` answer. */
  heads?: ForwardingContext['heads']
}

/** Builds the proxy over the pool runtime; `close` ends its upstream connections. */
export function createProxyService ({ runtime, now = () => new Date(), random = Math.random, events = NO_RETRY_EVENTS, heads }: Deps) {
  const upstream = createUpstreamClient()
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

  const batchRefusals = new BatchRefusals()
  const context: ForwardingContext = { runtime, upstream, now, random, events, budgetOf, callOff, waiting: 0, heads, batchRefusals }

  return {
    close: upstream.close,

    /** Whether this process saw the provider, as it is now, refuse an upstream batch (its record's `batches`). */
    batchesRefused: batchRefusals.shown,

    /** Answers one proxied request through the pool (see the file's header). */
    forward: async (poolId: number, incoming: ProxyRequest): Promise<ProxyAnswer> => await new Forwarding(context, poolId, incoming).run()
  }
}

export type ProxyService = ReturnType<typeof createProxyService>
