/**
 * An attempt's log line is built only when the request's log writes `info` lines
 * (issue 28: the fields cost a failing request and a successful one alike even at
 * LOG_LEVEL=warn). With a log that says it writes them, or one that cannot say
 * (no isLevelEnabled, as a test's stub), each attempt still gets its line. The
 * proxy service runs over a runtime of one member, against a provider that refuses
 * connections, so no database is needed.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ProxyChoice } from '../runtime/pool-runtime.js'
import { refusingUrl } from '../../test/upstreams.js'
import type { AttemptLog } from './forward.js'
import { createProxyService } from './proxy.service.js'

const POOL = {
  id: 1,
  enabled: 1,
  rotation_strategy: 'round_robin',
  rotation_state: null,
  current_provider_id: null,
  failure_threshold: 3,
  cooldown_seconds: 30,
  max_cooldown_seconds: 300,
  all_down: 'soonest',
  max_attempts: 1,
  retry_non_idempotent: 0,
  forward_client_auth: 0,
  forbidden_ttl_seconds: 60,
  cache_ttl_seconds: null,
  cache_stale_seconds: null,
  max_wait_ms: 0,
  deadline_ms: 30_000,
  retry_budget_percent: 20,
  retry_backoff_ms: 0,
  hedge_after_ms: null,
  change_seq: 1
}

/** The service over a runtime whose one member (provider 7) goes to `baseUrl`; `reported` counts the outcomes it was told. */
function serviceOver (baseUrl: string) {
  const reported: boolean[] = []
  const member = { id: 70, provider_id: 7, provider_name: 'refusing', base_url: baseUrl, auth_headers: null, timeout_ms: 2_000 }
  const service = createProxyService({
    runtime: {
      choose: async (_poolId: number, _resource: string, exclude: ReadonlySet<number>) => (exclude.has(7)
        ? { kind: 'none', pool: POOL, retryAfterS: null, retryAfterMs: null, refusals: [] }
        : { kind: 'chosen', pool: POOL, member, degraded: false }) as unknown as ProxyChoice,
      report: (_poolId, _providerId, outcome) => { reported.push(outcome.success) },
      learnRefusal: () => {},
      credentialsWorked: () => {},
      judgeRefusal: () => 'resource_refused',
      release: () => {},
      retriesCounted: () => {}
    }
  })
  return { service, reported }
}

/** A log that keeps the fields of each `info` line; `enabled` is what its isLevelEnabled answers (absent when undefined). */
function logOf (enabled: boolean | undefined): AttemptLog & { lines: object[] } {
  const lines: object[] = []
  const log = { lines, info: (fields: object) => { lines.push(fields) } }
  return enabled === undefined ? log : { ...log, isLevelEnabled: (level: string) => level === 'info' ? enabled : true }
}

async function forwardWith (log: AttemptLog) {
  const { service, reported } = serviceOver(await refusingUrl())
  try {
    const answer = await service.forward(1, { method: 'GET', url: '/api/pools/1/proxy/data', headers: {}, body: undefined, peer: '127.0.0.1', protocol: 'http', requestId: 'r1', log })
    return { answer, reported }
  } finally {
    await service.close()
  }
}

describe("an attempt's log line", () => {
  it('is not built when the log does not write info lines; the attempt is reported and answered all the same', async () => {
    const log = logOf(false)
    const { answer, reported } = await forwardWith(log)
    assert.equal(log.lines.length, 0)
    assert.deepEqual(reported, [false])
    assert.equal(answer.kind, 'failed')
    assert.deepEqual(answer.kind === 'failed' ? answer.attempts.map((a) => a.error) : [], ['connect_error'])
  })

  it('is written when the log writes info lines, and when the log cannot tell', async () => {
    for (const enabled of [true, undefined]) {
      const log = logOf(enabled)
      await forwardWith(log)
      assert.equal(log.lines.length, 1, `isLevelEnabled: ${String(enabled)}`)
      assert.deepEqual({ ...log.lines[0] as object, latencyMs: 0 }, { attempt: 1, providerId: 7, provider: 'refusing', outcome: 'connect_error', latencyMs: 0 })
    }
  })
})
