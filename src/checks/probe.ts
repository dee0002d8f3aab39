/**
 * One active health check over HTTP: GET the check's path under the provider's
 * base URL with the provider's credentials, never following a redirect (undici's
 * `request` follows none), reading at most 64 KiB of the answer and giving up at
 * the check's timeout (answer and body together). Answers what it found; never throws.
 */
import type { Dispatcher } from 'undici'
import { MAX_CHECK_BODY_BYTES, statusExpected, type CheckResult, type HealthCheck } from '../rules/health-check.js'
import { parseBase, providerCredentials, upstreamTarget } from '../rules/upstream-url.js'

export const CHECK_USER_AGENT = 'sourcepool-health-check'

/** An error's short description for `last_check.error` (no stack, bounded). */
function describe (error: unknown, timedOut: boolean): string {
  if (timedOut) return 'timeout'
  const { code, message } = error as { code?: unknown, message?: unknown }
  if (code === 'ECONNREFUSED') return 'connection refused'
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset'
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found'
  const text = typeof code === 'string' ? code : typeof message === 'string' ? message : 'request failed'
  return text.slice(0, 200)
}

/**
 * Runs one check of `baseUrl` at `at` (the time it started, as recorded); `stop`
 * aborts it (the result then reads `error: "stopped"`).
 */
export async function probe (
  dispatcher: Dispatcher, baseUrl: string, authHeaders: string | null, check: HealthCheck, at: Date, stop: AbortSignal
): Promise<CheckResult> {
  const started = performance.now()
  const timeout = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => { timedOut = true; timeout.abort() }, check.timeout_ms)
  const onStop = (): void => { timeout.abort() }
  if (stop.aborted) timeout.abort()
  else stop.addEventListener('abort', onStop, { once: true })
  const result = (fields: { ok: boolean, status_code: number | null, error: string | null }): CheckResult => ({
    at: at.toISOString(), ...fields, latency_ms: Math.round((performance.now() - started) * 10) / 10
  })
  try {
    const target = upstreamTarget(parseBase(baseUrl), check.path)
    const { statusCode, body } = await dispatcher.request({
      origin: target.origin,
      path: target.path,
      method: 'GET',
      headers: { ...providerCredentials(baseUrl, authHeaders), 'user-agent': CHECK_USER_AGENT },
      signal: timeout.signal
    })
    let read = 0
    for await (const chunk of body) {
      read += (chunk as Buffer).length
      // Enough is known: the rest is never downloaded (leaving the loop destroys the body).
      if (read >= MAX_CHECK_BODY_BYTES) break
    }
    return result({ ok: statusExpected(check.expect_status, statusCode), status_code: statusCode, error: null })
  } catch (error) {
    return result({ ok: false, status_code: null, error: stop.aborted ? 'stopped' : describe(error, timedOut) })
  } finally {
    clearTimeout(timer)
    stop.removeEventListener('abort', onStop)
  }
}
