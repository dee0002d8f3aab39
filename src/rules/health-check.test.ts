/**
 * The health-check rules on their own: which codes pass, the streaks, and what one
 * result does to a member (rules/health-check.ts).
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { applyCheck, countCheck, outcomeOf, statusExpected, statusRange, type MemberCheckState } from './health-check.js'
import { DEFAULT_POLICY } from './health.js'

const now = new Date('2026-01-01T00:00:00.000Z')
const later = (seconds: number) => new Date(now.getTime() + seconds * 1000).toISOString()
const healthy: MemberCheckState = { consecutive_failures: 0, cooldown_trips: 0, cooldown_until: null, cooldown_reason: null, latency_ms: null, check_passes: 0, check_passes_for: null }
const thresholds = { healthy_threshold: 2, unhealthy_threshold: 3 }

describe('health check rules', () => {
  it('reads codes and inclusive ranges, and refuses what is neither', () => {
    assert.deepEqual(statusRange(204), [204, 204])
    assert.deepEqual(statusRange('204'), [204, 204])
    assert.deepEqual(statusRange('200 - 299'), [200, 299])
    for (const bad of ['299-200', '2xx', '600', '200-', 99, 200.5]) assert.equal(statusRange(bad), undefined, String(bad))
    assert.equal(statusExpected(['200-399'], 302), true)
    assert.equal(statusExpected(['200-399'], 400), false)
    assert.equal(statusExpected([204, '500-502'], 501), true)
    assert.equal(statusExpected([204, '500-502'], 200), false)
  })

  it('keeps one streak at a time and names the outcome', () => {
    assert.deepEqual(countCheck({ passes: 4, failures: 0 }, false), { passes: 0, failures: 1 })
    assert.deepEqual(countCheck({ passes: 0, failures: 2 }, true), { passes: 1, failures: 0 })
    const result = { at: '', latency_ms: 1 }
    assert.equal(outcomeOf({ ...result, ok: true, status_code: 200, error: null }), 'ok')
    assert.equal(outcomeOf({ ...result, ok: false, status_code: 503, error: null }), 'unexpected_status')
    assert.equal(outcomeOf({ ...result, ok: false, status_code: null, error: 'timeout' }), 'timeout')
    assert.equal(outcomeOf({ ...result, ok: false, status_code: null, error: 'connection refused' }), 'error')
  })

  it('starts a cooldown at the threshold, doubling, and leaves a running one alone', () => {
    assert.equal(applyCheck(healthy, { ok: false, latency_ms: null, failures: 2 }, thresholds, DEFAULT_POLICY, now).change, null)
    const tripped = applyCheck(healthy, { ok: false, latency_ms: null, failures: 3 }, thresholds, DEFAULT_POLICY, now)
    assert.equal(tripped.change, 'cooldown')
    assert.deepEqual(tripped.state, { ...healthy, cooldown_trips: 1, cooldown_until: later(30), cooldown_reason: 'health_check' })
    const again = applyCheck(tripped.state, { ok: false, latency_ms: null, failures: 4 }, thresholds, DEFAULT_POLICY, now)
    assert.equal(again.change, null, 'still cooling down')
    const expired = applyCheck(tripped.state, { ok: false, latency_ms: null, failures: 5 }, thresholds, DEFAULT_POLICY, new Date(now.getTime() + 31_000))
    assert.equal(expired.change, 'cooldown')
    assert.equal(expired.state.cooldown_until, new Date(now.getTime() + 31_000 + 60_000).toISOString(), 'twice as long')
  })

  it('brings a member back after healthy_threshold passes since its cooldown, but not from a running rate limit', () => {
    const cooling: MemberCheckState = { ...healthy, consecutive_failures: 3, cooldown_trips: 1, cooldown_until: later(30), cooldown_reason: 'consecutive_failures' }
    const once = applyCheck(cooling, { ok: true, latency_ms: 40, failures: 0 }, thresholds, DEFAULT_POLICY, now)
    assert.deepEqual([once.change, once.state.check_passes, once.state.check_passes_for, once.state.latency_ms], [null, 1, cooling.cooldown_until, 40])
    const twice = applyCheck(once.state, { ok: true, latency_ms: 50, failures: 0 }, thresholds, DEFAULT_POLICY, now)
    assert.equal(twice.change, 'recovered')
    assert.deepEqual(twice.state, { ...healthy, latency_ms: 43 })
    const limited: MemberCheckState = { ...healthy, cooldown_until: later(120), cooldown_reason: 'rate_limited' }
    const pass = { ok: true, latency_ms: null, failures: 0 }
    assert.equal(applyCheck(applyCheck(limited, pass, thresholds, DEFAULT_POLICY, now).state, pass, thresholds, DEFAULT_POLICY, now).change, null)
    const afterLimit = new Date(now.getTime() + 121_000)
    assert.equal(applyCheck({ ...limited, check_passes: 1, check_passes_for: limited.cooldown_until }, pass, thresholds, DEFAULT_POLICY, afterLimit).change, 'recovered')
    // A pass counted under a cooldown that has since been replaced (a probe failed, say) counts for nothing.
    const replaced = applyCheck({ ...once.state, cooldown_until: later(90), cooldown_reason: 'probe_failed' }, pass, thresholds, DEFAULT_POLICY, now)
    assert.deepEqual([replaced.change, replaced.state.check_passes], [null, 1])
    const failed = applyCheck({ ...cooling, check_passes: 1, check_passes_for: cooling.cooldown_until }, { ok: false, latency_ms: null, failures: 1 }, thresholds, DEFAULT_POLICY, now)
    assert.equal(failed.state.check_passes, 0, 'a failure starts the count again')
    assert.equal(applyCheck({ ...healthy, check_passes: 1 }, pass, thresholds, DEFAULT_POLICY, now).state.check_passes, 0, 'nothing to count without a cooldown')
  })
})
