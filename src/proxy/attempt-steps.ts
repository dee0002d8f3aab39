/**
 * The steps of one proxied attempt that the attempt loop (forwarding.ts) runs in
 * turn, each a small function: wait (a backoff, a member coming back), record an
 * outcome into the runtime, judge a 401/402 by the credential rule, answer with an
 * attempt's response, or throw one away. No state of its own.
 */
import type { Readable } from 'node:stream'
import type { Dispatcher } from 'undici'
import type { FailedAttempt, PoolRuntime, ProxyChoice, ProxyRefusal } from '../runtime/pool-runtime.js'
import { refusalSeconds, refusedPathOf, refusesCredentials } from '../rules/credential-refusal.js'
import { reportedOutcome, type FailedAttemptSummary } from './attempt.js'
import { CREDENTIALS_REJECTED, downstreamHeaders, resourceOf, type AttemptResult, type ProxyRequest } from './forward.js'
import type { JudgedSent } from './rpc-answer.js'
import type { SentUpstream } from './upstream-client.js'

export type ProxyAnswer =
  /** `body` is null for an answer that has none (HEAD, 204, 304). */
  | {
    kind: 'answer',
    status: number,
    headers: Record<string, string | string[]>,
    body: Readable | null,
    provider: string | null,
    /** The provider's id (an evm pool's stored answers ask what its node's head was: rpc-coalesce.ts). */
    providerId?: number,
    attempts: number,
    /** Set when a failing attempt's own answer goes back because the retry budget was spent. */
    retryBudget?: 'exhausted'
  }
  | { kind: 'unavailable', retryAfterS: number | null }
  | { kind: 'failed', attempts: FailedAttemptSummary[], refusals: ProxyRefusal[], retryBudget?: 'exhausted' }
  /** The request's deadline passed before an answer started (504). */
  | { kind: 'deadline', deadlineMs: number, attempts: FailedAttemptSummary[] }

/** What the attempt loop uses of the pool runtime. */
export type Runtime = Pick<PoolRuntime, 'choose' | 'report' | 'learnRefusal' | 'release' | 'retriesCounted' | 'credentialsWorked' | 'judgeRefusal'>

export type { FailedAttempt }

/** True for our credentials rejected (a 401/402). */
export const isCredentialsRejected = (result: AttemptResult): boolean => result.kind === 'failure' && result.reason === CREDENTIALS_REJECTED

/** True when the request's log writes `info` lines (an attempt's fields are built only then). */
export const logsAttempts = (incoming: ProxyRequest): boolean => incoming.log.isLevelEnabled?.('info') !== false

/** True once the client has left (its signal aborted). */
export const left = (incoming: ProxyRequest): boolean => incoming.gone !== undefined ? incoming.gone() : incoming.signal?.aborted === true

/** Resolves after `ms`, or at once when `signal` aborts (the client left). */
export async function pause (ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted === true) return
  await new Promise<void>((resolve) => {
    const done = () => { clearTimeout(timer); signal?.removeEventListener('abort', done); resolve() }
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
  })
}

export type Chosen = Extract<ProxyChoice, { kind: 'chosen' }>

/** One attempt sent: its choice, what its call will give, and how to call it off before its answer starts. */
export interface Attempt {
  readonly choice: Chosen
  /** What its call gave (an RPC call's answer judged by its body: rpc-answer.ts). */
  readonly sent: Promise<JudgedSent>
  /** Its number in the request (1 for the first), as its log line shows it. */
  readonly number: number
  /** The bound it was sent with was the client's shortened deadline, not the member's own timeout. */
  readonly cutByClient: boolean
  /** The bound it was sent with was what was left of the request's deadline (shorter than the member's own timeout). */
  readonly byDeadline: boolean
  readonly startedAt: number
  /** A client batch's call: when it went (its list, or its turn among the batch's sends), which may be after startedAt; its hedge delay counts from then. */
  readonly goneOut?: Promise<number>
  cancel: (() => void) | undefined
}

/**
 * Folds an attempt's outcome into the runtime: its health and counters, or the refusal
 * it met; a 2xx on our credentials is remembered for `path` (evidence for the credential rule).
 */
export function record (runtime: Runtime, poolId: number, { pool, member }: Chosen, path: string, result: AttemptResult, sent: SentUpstream): void {
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
export function judged (runtime: Runtime, { member }: Chosen, path: string, result: AttemptResult, again: boolean): AttemptResult {
  if (!isCredentialsRejected(result)) return result
  if (!again && runtime.judgeRefusal(member, path) === 'credentials_rejected') return result
  return { kind: 'forbidden', statusCode: (result as { statusCode?: number }).statusCode ?? 401 }
}

/**
 * The answer that ends the request. With a body, the attempt stays in flight
 * (least_outstanding) until that body is closed, sent to the client or left by
 * it; without one, what the provider sent anyway is thrown away.
 */
export function answerWith (
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
    providerId: member.provider_id,
    attempts
  }
}

/** Throws away an answer the request does not use (its body, read or not, is let go). */
export function discard (sent: SentUpstream): void {
  if ('response' in sent) sent.response.body.on('error', () => {}).destroy()
}
