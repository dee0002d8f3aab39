/**
 * What one proxy attempt's outcome means, as pure rules the attempt loop
 * (proxy.service.ts) reads in order: how the upstream call went (classifyAttempt:
 * a success, a provider's failure or refusal, or an error of ours), what the
 * request does next (nextStep: answer, move on to another provider, stop, or
 * throw; a request that never reached its provider moves on whatever its method),
 * what the runtime is told (reportedOutcome, failoverReason), how the
 * 502 lists a failed attempt, and what the attempt's log line says
 * (attemptLogFields, with the provider's own request id so both sides' logs can
 * be joined). Kept apart from the loop so each rule is tested on its own
 * (attempt.test.ts), without an upstream or a database.
 */
import type { Outcome } from '../rules/health.js'
import { classifyError, classifyStatus, CREDENTIALS_REJECTED, mayRetry, upstreamRequestIdOf, type AttemptResult, type ClassifyingPool } from './forward.js'

/** The start of an upstream answer, as far as the rules read it. */
export interface AnswerStart {
  readonly statusCode: number
  readonly headers: Record<string, string | string[] | undefined>
}

/**
 * What one attempt's upstream call gave, and the time it took: the start of an
 * answer, or the error the call failed with (`timedOut` when the attempt's
 * deadline had passed; `unreached` when the request was never written to a
 * connection, so the provider saw nothing: upstream-client.ts says when).
 * `neutral`: a failure here tells the member's health nothing (an upstream batch's
 * failure, told once by another of its calls; a batch's call that never went:
 * rpc-batch-send.ts).
 */
export type SentAttempt<A extends AnswerStart = AnswerStart> =
  | { readonly response: A, readonly latencyMs: number, readonly neutral?: true }
  | { readonly error: unknown, readonly timedOut: boolean, readonly cancelled?: boolean, readonly unreached?: boolean, readonly latencyMs: number, readonly neutral?: true }

/** Classifies what an attempt's call gave: an answer by its status and headers (classifyStatus), an error by its kind (classifyError). */
export function classifyAttempt (sent: SentAttempt, pool: ClassifyingPool, now: Date): AttemptResult {
  return 'response' in sent
    ? classifyStatus(sent.response.statusCode, sent.response.headers, pool, now)
    : classifyError(sent.error, sent.timedOut, sent.unreached === true)
}

/** The result as health hears it: a failure of an outcome marked `neutral` is neutral (see SentAttempt). */
export const heardAs = (result: AttemptResult, sent: SentAttempt): AttemptResult =>
  sent.neutral === true && result.kind === 'failure' ? { ...result, neutral: true } : result

/**
 * Whether an attempt failed at the connection, with no answer: the request never
 * reached the provider (refused, DNS, TLS, connect timeout), or its connection was
 * reset or closed before any answer. A member cooling down after one gets one
 * probe at a time, one a second (runtime/probe-gates.ts); a timeout of a request
 * the provider received is not one.
 */
export function failedToConnect (result: AttemptResult, sent: SentAttempt): boolean {
  return result.kind === 'failure' && !('response' in sent) && (result.reason === 'connect_error' || result.unreached === true)
}

/**
 * What the request does after an attempt: `answer` (its answer goes back to the
 * client), `move_on` (to another provider, while attempts are left), `stop` (no
 * other provider is tried: 502) or `throw` (an error of ours: 500).
 */
export type AttemptStep = 'answer' | 'move_on' | 'stop' | 'throw'

/**
 * The step after an attempt that went as `result`. A refusal, our credentials
 * rejected (401/402), a member that did no work (`free`: an RPC rate limit), or a
 * request that never reached the provider (`unreached`: no
 * connection carried it, NGINX's rule) means the provider did nothing, so moving on
 * is always safe; another failure (an answer, or a connection lost after the request
 * was written) may have had an effect, so only a request that may be repeated
 * (mayRetry; for an RPC call, `repeatable`: a read, not a transaction) moves on.
 */
export function nextStep (result: AttemptResult, method: string, headers: Record<string, unknown>, retryNonIdempotent: boolean, repeatable?: boolean): AttemptStep {
  switch (result.kind) {
    case 'success': return 'answer'
    case 'forbidden': return 'move_on'
    case 'failure': return result.reason === CREDENTIALS_REJECTED || result.unreached === true || result.free === true || (repeatable ?? mayRetry(method, headers, retryNonIdempotent)) ? 'move_on' : 'stop'
    case 'ours': return 'throw'
  }
}

/**
 * What the runtime's health and counters are told of an attempt; nothing for a
 * refusal, an error of ours or a neutral failure (an RPC node lacking the state). `connect_failed` is set when it failed at the
 * connection (failedToConnect).
 */
export function reportedOutcome (
  result: AttemptResult, sent: SentAttempt
): (Outcome & { readonly error: string | null, readonly pause_source: string | null, readonly connect_failed?: true }) | undefined {
  if (result.kind === 'forbidden' || result.kind === 'ours' || (result.kind === 'failure' && result.neutral === true)) return undefined
  const failure = result.kind === 'failure'
  return {
    success: !failure,
    status_code: 'response' in sent ? sent.response.statusCode : null,
    latency_ms: sent.latencyMs,
    retry_after_s: failure ? result.retryAfterS ?? null : null,
    pause_s: result.pauseS ?? null,
    pause_source: result.pauseSource ?? null,
    error: failure ? `proxy: ${result.reason}${result.reason === CREDENTIALS_REJECTED ? ` (HTTP ${result.statusCode ?? '?'})` : ''}` : null,
    ...(failedToConnect(result, sent) ? { connect_failed: true as const } : {})
  }
}

/** What an attempt that did not succeed is called in the history and the log: a failure's reason, `forbidden` (403), `unauthorized` (a 401/402 refusing the resource) or `error` (ours). */
function outcomeName (result: Exclude<AttemptResult, { kind: 'success' }>): string {
  if (result.kind === 'failure') return result.reason
  if (result.kind === 'forbidden') return result.statusCode === 403 ? 'forbidden' : 'unauthorized'
  return 'error'
}

/** Why the next choice is a failover, as the history shows it (`proxy:<why>`). */
export function failoverReason (result: AttemptResult): string {
  return `proxy:${result.kind === 'success' ? 'error' : outcomeName(result)}`
}

/**
 * One failed attempt, as the 502 body lists it. (Not the runtime's FailedAttempt,
 * which tells the next choice that it is a failover.)
 */
export interface FailedAttemptSummary {
  provider_id: number
  provider_name: string | null
  status_code?: number
  error?: string
  /** An RPC call's JSON-RPC error, as rules/jsonrpc-errors.ts judged it (`rate_limited`, `unsupported` …). */
  jsonrpc_error?: string
  latency_ms: number
}

/** The 502's entry for an attempt that did not end the request: the answer's status, or the call's error. */
export function failedAttemptSummary (
  member: { readonly provider_id: number, readonly provider_name: string | null }, result: AttemptResult, sent: SentAttempt
): FailedAttemptSummary {
  const verdict = (sent as { readonly rpc?: string }).rpc
  return 'response' in sent
    ? verdict === undefined || verdict === 'ok'
      ? { provider_id: member.provider_id, provider_name: member.provider_name, status_code: sent.response.statusCode, latency_ms: sent.latencyMs }
      : { provider_id: member.provider_id, provider_name: member.provider_name, status_code: sent.response.statusCode, jsonrpc_error: verdict, latency_ms: sent.latencyMs }
    : { provider_id: member.provider_id, provider_name: member.provider_name, error: result.kind === 'failure' ? result.reason : 'failed', latency_ms: sent.latencyMs }
}

/**
 * How a request ends when no member is left to choose: with nothing tried yet, 503
 * (`unavailable`, with Retry-After when a member comes back); but when the members
 * left out refuse the resource and no one comes back, or attempts have failed, 502
 * (`failed`, naming them).
 */
export function whenNoneLeft (attempted: number, refusals: number, retryAfterS: number | null): 'unavailable' | 'failed' {
  return attempted === 0 && (refusals === 0 || retryAfterS !== null) ? 'unavailable' : 'failed'
}

/** One attempt as its log line shows it (the line also carries the request's `reqId`). */
export interface AttemptLogFields {
  /** 1 for the first provider asked in the request, 2 for the next… */
  readonly attempt: number
  readonly providerId: number
  readonly provider: string | null
  /** `success`, `forbidden`, `unauthorized` (a 401/402 refusing the resource), or a failure's reason (`http_503`, `rate_limited`, `timeout`, `connect_error`, `credentials_rejected`); `error` for an error of ours. */
  readonly outcome: string
  readonly statusCode?: number
  readonly latencyMs: number
  /** The provider's own `X-Request-Id`, when its answer had one. */
  readonly upstreamRequestId?: string
}

/** The fields of attempt number `attempt`'s log line. */
export function attemptLogFields (
  attempt: number, member: { readonly provider_id: number, readonly provider_name: string | null }, result: AttemptResult, sent: SentAttempt
): AttemptLogFields {
  const outcome = result.kind === 'success' ? 'success' : outcomeName(result)
  const fields = { attempt, providerId: member.provider_id, provider: member.provider_name, outcome, latencyMs: sent.latencyMs }
  if (!('response' in sent)) return fields
  const upstreamRequestId = upstreamRequestIdOf(sent.response.headers)
  return { ...fields, statusCode: sent.response.statusCode, ...(upstreamRequestId === undefined ? {} : { upstreamRequestId }) }
}
