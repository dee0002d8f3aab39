/**
 * The rules of one proxy attempt (attempt.ts) on their own: how an upstream
 * call's answer or error is classified, what the request does next, what the
 * runtime is told, how the 502 lists the attempt and what its log line says.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import {
  attemptLogFields, classifyAttempt, failedAttemptSummary, failoverReason, heardAs, nextStep, reportedOutcome, whenNoneLeft, type SentAttempt
} from './attempt.js'

const answered = (statusCode: number, headers: Record<string, string> = {}, latencyMs = 12): SentAttempt => ({ response: { statusCode, headers }, latencyMs })
const errored = (error: unknown, timedOut = false, latencyMs = 7): SentAttempt => ({ error, timedOut, latencyMs })
const withCode = (code: string) => Object.assign(new Error(code), { code })
const member = { provider_id: 4, provider_name: 'alpha' }
const pool = { forward_client_auth: 0, max_cooldown_seconds: 300 }
const clients = { forward_client_auth: 1, max_cooldown_seconds: 300 }
const at = new Date('2026-01-01T12:00:00.000Z')

describe('one proxy attempt', () => {
  it('tells health nothing of a failure marked neutral (an upstream batch\'s failure told once), and still moves a read on', () => {
    const shared: SentAttempt = { ...answered(502), neutral: true }
    const result = heardAs(classifyAttempt(shared, pool, at), shared)
    assert.deepEqual(result, { kind: 'failure', reason: 'http_502', statusCode: 502, neutral: true })
    assert.equal(reportedOutcome(result, shared), undefined)
    assert.equal(nextStep(result, 'POST', {}, false, true), 'move_on')
    assert.equal(nextStep(result, 'POST', {}, false, undefined), 'stop')
    // Only a failure is made neutral: a success or a refusal is what it is.
    assert.deepEqual(heardAs(classifyAttempt({ ...answered(200), neutral: true }, pool, at), shared), { kind: 'success' })
    assert.deepEqual(heardAs(classifyAttempt(answered(502), pool, at), answered(502)), { kind: 'failure', reason: 'http_502', statusCode: 502 })
  })

  it('classifies answers by status: 2xx to 4xx answer, 403 refuses, 429 and 5xx fail', () => {
    for (const status of [200, 201, 204, 301, 304, 400, 404, 499]) assert.deepEqual(classifyAttempt(answered(status), pool, at), { kind: 'success' }, String(status))
    assert.deepEqual(classifyAttempt(answered(403), pool, at), { kind: 'forbidden', statusCode: 403 })
    assert.deepEqual(classifyAttempt(answered(500), pool, at), { kind: 'failure', reason: 'http_500', statusCode: 500 })
    assert.deepEqual(classifyAttempt(answered(503), pool, at), { kind: 'failure', reason: 'http_503', statusCode: 503 })
    assert.deepEqual(classifyAttempt(answered(429), pool, at), { kind: 'failure', reason: 'rate_limited', statusCode: 429 })
    assert.deepEqual(classifyAttempt(answered(429, { 'retry-after': '30' }), pool, at), { kind: 'failure', reason: 'rate_limited', statusCode: 429, retryAfterS: 30 })
    assert.deepEqual(classifyAttempt(answered(429, { 'retry-after': 'soon' }), pool, at), { kind: 'failure', reason: 'rate_limited', statusCode: 429 })
  })

  it('reads the provider\'s signals: Retry-After on 503 (seconds or a date), remaining 0 on a success, capped at max_cooldown_seconds', () => {
    assert.deepEqual(classifyAttempt(answered(503, { 'retry-after': '20' }), pool, at), { kind: 'failure', reason: 'http_503', statusCode: 503, retryAfterS: 20 })
    assert.deepEqual(classifyAttempt(answered(429, { 'retry-after': 'Thu, 01 Jan 2026 12:00:45 GMT' }), pool, at), { kind: 'failure', reason: 'rate_limited', statusCode: 429, retryAfterS: 45 })
    assert.deepEqual(classifyAttempt(answered(429, { 'retry-after': '99999' }), pool, at), { kind: 'failure', reason: 'rate_limited', statusCode: 429, retryAfterS: 300 })
    const paused = classifyAttempt(answered(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' }), pool, at)
    assert.equal(paused.kind, 'success')
    assert.equal((paused as { pauseS?: number }).pauseS, 30)
    assert.deepEqual(classifyAttempt(answered(200, { 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '30' }), pool, at), { kind: 'success' })
  })

  it('counts a 401 or 402 as our credentials rejected (moving on whatever the method), unless the pool forwards the client\'s', () => {
    for (const status of [401, 402]) {
      const result = classifyAttempt(answered(status), pool, at)
      assert.deepEqual(result, { kind: 'failure', reason: 'credentials_rejected', statusCode: status })
      assert.equal(nextStep(result, 'POST', {}, false), 'move_on')
      assert.deepEqual(classifyAttempt(answered(status), clients, at), { kind: 'success' })
    }
  })

  it('classifies errors of the call: a passed deadline is a timeout, a refused connection a connect error, a bad argument ours', () => {
    assert.deepEqual(classifyAttempt(errored(withCode('UND_ERR_ABORTED'), true), pool, at), { kind: 'failure', reason: 'timeout' })
    assert.deepEqual(classifyAttempt(errored(withCode('UND_ERR_HEADERS_TIMEOUT')), pool, at), { kind: 'failure', reason: 'timeout' })
    assert.deepEqual(classifyAttempt(errored(withCode('ECONNREFUSED')), pool, at), { kind: 'failure', reason: 'connect_error' })
    const ours = withCode('UND_ERR_INVALID_ARG')
    assert.deepEqual(classifyAttempt(errored(ours), pool, at), { kind: 'ours', error: ours })
  })

  it('answers a success, moves on after a refusal, throws an error of ours', () => {
    assert.equal(nextStep({ kind: 'success' }, 'POST', {}, false), 'answer')
    assert.equal(nextStep({ kind: 'forbidden', statusCode: 403 }, 'POST', {}, false), 'move_on')
    assert.equal(nextStep({ kind: 'ours', error: new TypeError('x') }, 'GET', {}, false), 'throw')
  })

  it('moves on after a failure only when the request may be repeated', () => {
    const failure = { kind: 'failure', reason: 'http_502' } as const
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']) assert.equal(nextStep(failure, method, {}, false), 'move_on', method)
    for (const method of ['POST', 'PATCH']) assert.equal(nextStep(failure, method, {}, false), 'stop', method)
    assert.equal(nextStep(failure, 'POST', { 'idempotency-key': 'k-1' }, false), 'move_on')
    assert.equal(nextStep(failure, 'PATCH', {}, true), 'move_on')
  })

  it('tells the runtime of successes and failures, with status, latency and Retry-After, and nothing of refusals or errors of ours', () => {
    assert.deepEqual(reportedOutcome({ kind: 'success' }, answered(200, {}, 15)),
      { success: true, status_code: 200, latency_ms: 15, retry_after_s: null, pause_s: null, pause_source: null, error: null })
    assert.deepEqual(reportedOutcome({ kind: 'failure', reason: 'rate_limited', statusCode: 429, retryAfterS: 30 }, answered(429, {}, 3)),
      { success: false, status_code: 429, latency_ms: 3, retry_after_s: 30, pause_s: null, pause_source: null, error: 'proxy: rate_limited' })
    assert.deepEqual(reportedOutcome({ kind: 'failure', reason: 'timeout' }, errored(new Error('x'), true, 10_001)),
      { success: false, status_code: null, latency_ms: 10_001, retry_after_s: null, pause_s: null, pause_source: null, error: 'proxy: timeout' })
    assert.equal(reportedOutcome({ kind: 'forbidden', statusCode: 403 }, answered(403)), undefined)
    assert.equal(reportedOutcome({ kind: 'ours', error: new TypeError('x') }, errored(new TypeError('x'))), undefined)
  })

  it('names the failover after a failed attempt as the history shows it', () => {
    assert.equal(failoverReason({ kind: 'forbidden', statusCode: 403 }), 'proxy:forbidden')
    assert.equal(failoverReason({ kind: 'forbidden', statusCode: 401 }), 'proxy:unauthorized', 'a 401/402 the credential rule took for a refusal of the resource')
    assert.equal(failoverReason({ kind: 'failure', reason: 'http_503', statusCode: 503 }), 'proxy:http_503')
    assert.equal(failoverReason({ kind: 'failure', reason: 'connect_error' }), 'proxy:connect_error')
  })

  it("lists a failed attempt in the 502 by the answer's status or the call's error, keys in the body's order", () => {
    const byStatus = failedAttemptSummary(member, { kind: 'failure', reason: 'http_500', statusCode: 500 }, answered(500, {}, 21))
    assert.deepEqual(byStatus, { provider_id: 4, provider_name: 'alpha', status_code: 500, latency_ms: 21 })
    assert.deepEqual(Object.keys(byStatus), ['provider_id', 'provider_name', 'status_code', 'latency_ms'])
    const refused = failedAttemptSummary(member, { kind: 'forbidden', statusCode: 403 }, answered(403, {}, 2))
    assert.deepEqual(refused, { provider_id: 4, provider_name: 'alpha', status_code: 403, latency_ms: 2 })
    const byError = failedAttemptSummary(member, { kind: 'failure', reason: 'connect_error' }, errored(withCode('ECONNREFUSED'), false, 1))
    assert.deepEqual(byError, { provider_id: 4, provider_name: 'alpha', error: 'connect_error', latency_ms: 1 })
    assert.deepEqual(Object.keys(byError), ['provider_id', 'provider_name', 'error', 'latency_ms'])
  })

  it('ends with 503 when nothing was tried and a member comes back or none refused, else with 502', () => {
    assert.equal(whenNoneLeft(0, 0, null), 'unavailable')
    assert.equal(whenNoneLeft(0, 0, 5), 'unavailable')
    assert.equal(whenNoneLeft(0, 2, 5), 'unavailable')
    assert.equal(whenNoneLeft(0, 2, null), 'failed')
    assert.equal(whenNoneLeft(1, 0, null), 'failed')
    assert.equal(whenNoneLeft(3, 0, 5), 'failed')
  })

  it("logs each attempt with its outcome, and the provider's own request id when its answer had one", () => {
    assert.deepEqual(attemptLogFields(1, member, { kind: 'success' }, answered(200, { 'x-request-id': 'up-9' })), {
      attempt: 1, providerId: 4, provider: 'alpha', outcome: 'success', latencyMs: 12, statusCode: 200, upstreamRequestId: 'up-9'
    })
    assert.deepEqual(attemptLogFields(2, member, { kind: 'failure', reason: 'http_503', statusCode: 503 }, answered(503)), {
      attempt: 2, providerId: 4, provider: 'alpha', outcome: 'http_503', latencyMs: 12, statusCode: 503
    })
    assert.deepEqual(attemptLogFields(3, member, { kind: 'failure', reason: 'timeout' }, errored(withCode('UND_ERR_ABORTED'), true)), {
      attempt: 3, providerId: 4, provider: 'alpha', outcome: 'timeout', latencyMs: 7
    })
  })
})
