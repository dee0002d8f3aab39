import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { applyOutcome, cooldownSeconds, healthAt, isPlainSuccess, latencyAfter, type HealthState, type Outcome } from './health.js'
import { candidatesFor, assess } from './eligibility.js'
import { quotaAt, windowStart } from './quota.js'

const policy = { failure_threshold: 3, cooldown_seconds: 30, max_cooldown_seconds: 100 }
const fresh: HealthState = { consecutive_failures: 0, cooldown_trips: 0, cooldown_until: null, cooldown_reason: null, latency_ms: null }
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s))

describe('applyOutcome', () => {
  it('trips a cooldown at the failure threshold, not before', () => {
    let state = fresh
    for (let i = 1; i <= 2; i++) {
      const r = applyOutcome(state, { success: false }, policy, at(0))
      assert.equal(r.cooldownStarted, null)
      state = r.state
    }
    const r = applyOutcome(state, { success: false }, policy, at(0))
    assert.equal(r.cooldownStarted, 'consecutive_failures')
    assert.equal(r.state.cooldown_until, at(30).toISOString())
    assert.equal(healthAt(r.state, at(29)), 'cooling_down')
    assert.equal(healthAt(r.state, at(30)), 'probing')
  })

  it('a success resets the consecutive count', () => {
    let state = applyOutcome(applyOutcome(fresh, { success: false }, policy, at(0)).state, { success: false }, policy, at(0)).state
    state = applyOutcome(state, { success: true }, policy, at(0)).state
    assert.equal(state.consecutive_failures, 0)
    state = applyOutcome(state, { success: false }, policy, at(0)).state
    assert.equal(healthAt(state, at(0)), 'healthy')
  })

  it('probing: a failure starts a doubled cooldown, capped; a success makes it healthy and resets the doubling', () => {
    let state: HealthState = { ...fresh, consecutive_failures: 3, cooldown_trips: 1, cooldown_until: at(30).toISOString(), cooldown_reason: 'consecutive_failures' }
    let r = applyOutcome(state, { success: false }, policy, at(31))
    assert.equal(r.cooldownStarted, 'probe_failed')
    assert.equal(r.state.cooldown_until, at(31 + 60).toISOString())
    r = applyOutcome(r.state, { success: false }, policy, at(91))
    assert.equal(r.state.cooldown_until, at(91 + 100).toISOString(), 'capped at max_cooldown_seconds')
    state = applyOutcome(r.state, { success: true }, policy, at(200)).state
    assert.deepEqual({ ...state, latency_ms: null }, fresh)
  })

  it('a success during a cooldown resets counters but does not cut the cooldown short', () => {
    const cooling: HealthState = { ...fresh, consecutive_failures: 3, cooldown_trips: 1, cooldown_until: at(30).toISOString(), cooldown_reason: 'rate_limited' }
    const r = applyOutcome(cooling, { success: true }, policy, at(10))
    assert.equal(healthAt(r.state, at(10)), 'cooling_down')
    assert.equal(r.state.consecutive_failures, 0)
    assert.equal(r.state.cooldown_trips, 0)
  })

  it('a 429 or a retry_after_s cools down at once until then, whatever the threshold', () => {
    let r = applyOutcome(fresh, { success: false, status_code: 429, retry_after_s: 12 }, policy, at(0))
    assert.equal(r.cooldownStarted, 'rate_limited')
    assert.equal(r.state.cooldown_until, at(12).toISOString())
    r = applyOutcome(fresh, { success: false, status_code: 429 }, policy, at(0))
    assert.equal(r.state.cooldown_until, at(30).toISOString(), 'a 429 without Retry-After cools down for the policy\'s cooldown')
    r = applyOutcome(fresh, { success: false, status_code: 503, retry_after_s: 5 }, policy, at(0))
    assert.equal(r.state.cooldown_reason, 'rate_limited')
  })

  it('keeps a moving average of latency', () => {
    let state = applyOutcome(fresh, { success: true, latency_ms: 100 }, policy, at(0)).state
    assert.equal(state.latency_ms, 100)
    state = applyOutcome(state, { success: true, latency_ms: 200 }, policy, at(0)).state
    assert.equal(state.latency_ms, 130)
    state = applyOutcome(state, { success: true }, policy, at(0)).state
    assert.equal(state.latency_ms, 130)
  })

  it('cooldownSeconds doubles per trip up to the maximum', () => {
    assert.deepEqual([0, 1, 2, 3, 60].map((t) => cooldownSeconds(policy, t)), [30, 60, 100, 100, 100])
  })
})

describe('quotaAt', () => {
  const limited = { rate_limit_requests: 2, rate_limit_per: 'minute', quota_window_start: null, quota_used: 0 }
  it('aligns windows to the clock and counts within the current window only', () => {
    const now = new Date('2026-01-01T10:20:30.500Z')
    assert.equal(windowStart('minute', now).toISOString(), '2026-01-01T10:20:00.000Z')
    assert.equal(windowStart('day', now).toISOString(), '2026-01-01T00:00:00.000Z')
    assert.deepEqual(quotaAt({ ...limited, quota_window_start: '2026-01-01T10:20:00.000Z', quota_used: 2 }, now),
      { used: 2, limit: 2, unit: 'requests', resets_at: '2026-01-01T10:21:00.000Z', window_start: '2026-01-01T10:20:00.000Z', exhausted: true })
    assert.equal(quotaAt({ ...limited, quota_window_start: '2026-01-01T10:19:00.000Z', quota_used: 2 }, now)?.used, 0)
  })
  it('is null without a rate limit', () => {
    assert.equal(quotaAt({ ...limited, rate_limit_requests: null }, new Date()), null)
  })
})

describe('eligibility', () => {
  const base = { provider_id: 1, enabled: 1, cooldown_until: null, rate_limit_requests: null, rate_limit_per: null, quota_window_start: null, quota_used: 0 }
  const now = at(0)
  it('names why a member is out', () => {
    assert.equal(assess({ ...base, id: 1, enabled: 0 }, now).reason, 'disabled')
    assert.deepEqual(
      [assess({ ...base, id: 1, cooldown_until: at(5).toISOString() }, now).reason, assess({ ...base, id: 1, cooldown_until: at(5).toISOString() }, now).until],
      ['cooling_down', at(5).toISOString()])
    const exhausted = assess({ ...base, id: 1, rate_limit_requests: 1, rate_limit_per: 'hour', quota_window_start: '2026-01-01T00:00:00.000Z', quota_used: 1 }, now)
    assert.equal(exhausted.reason, 'quota_exhausted')
    assert.equal(exhausted.until, '2026-01-01T01:00:00.000Z')
    assert.equal(assess({ ...base, id: 1, cooldown_until: at(-1).toISOString() }, now).eligible, true, 'probing is eligible')
  })

  it('offers the member whose cooldown ends first when all are down and all_down is soonest', () => {
    const members = [
      { ...base, id: 1, provider_id: 1, cooldown_until: at(50).toISOString() },
      { ...base, id: 2, provider_id: 2, cooldown_until: at(20).toISOString() },
      { ...base, id: 3, provider_id: 3, enabled: 0 }
    ].map((m) => assess(m, now))
    assert.deepEqual(candidatesFor(members, 'soonest'), { candidates: [members[1]?.member], degraded: true })
    assert.deepEqual(candidatesFor(members, 'fail'), { candidates: [], degraded: false })
    assert.deepEqual(candidatesFor(members, 'soonest', new Set([2])).candidates.map((m) => m.id), [1])
  })
})

describe("the provider's own signals", () => {
  const ours = { ...policy, forward_client_auth: 0 }
  const theirs = { ...policy, forward_client_auth: 1 }

  it('a 401 or 402 on our credentials is a failure that takes the member out for max_cooldown_seconds, whatever success says', () => {
    for (const status of [401, 402]) {
      const r = applyOutcome(fresh, { success: true, status_code: status }, ours, at(0))
      assert.equal(r.cooldownStarted, 'credentials_rejected')
      assert.deepEqual([r.state.cooldown_until, r.state.cooldown_reason, r.state.consecutive_failures], [at(100).toISOString(), 'credentials_rejected', 1])
      const passed = applyOutcome(fresh, { success: true, status_code: status }, theirs, at(0))
      assert.deepEqual([passed.cooldownStarted, passed.state.cooldown_until, passed.state.consecutive_failures], [null, null, 0], "the client's own credentials")
    }
    // A longer cooldown already running is kept.
    const paused = { ...fresh, cooldown_until: at(500).toISOString(), cooldown_reason: 'rate_limited' }
    const r = applyOutcome(paused, { success: false, status_code: 401 }, ours, at(0))
    assert.deepEqual([r.cooldownStarted, r.state.cooldown_until, r.state.cooldown_reason], [null, at(500).toISOString(), 'rate_limited'])
  })

  it('a pause (no requests left) is no failure: the member rests until the reset, a longer rest is never shortened', () => {
    const r = applyOutcome(fresh, { success: true, pause_s: 40 }, policy, at(0))
    assert.deepEqual([r.pausedUntil, r.cooldownStarted], [at(40).toISOString(), null])
    assert.deepEqual([r.state.cooldown_until, r.state.cooldown_reason, r.state.consecutive_failures, r.state.cooldown_trips], [at(40).toISOString(), 'rate_limited', 0, 0])
    const shorter = applyOutcome(r.state, { success: true, pause_s: 10 }, policy, at(0))
    assert.deepEqual([shorter.pausedUntil, shorter.state.cooldown_until], [null, at(40).toISOString()])
    const longer = applyOutcome(r.state, { success: true, pause_s: 90 }, policy, at(0))
    assert.equal(longer.pausedUntil, at(90).toISOString())
    assert.equal(applyOutcome(fresh, { success: true, pause_s: 0 }, policy, at(0)).pausedUntil, null)
  })

  it('once a rate limit has passed, a failure counts towards the threshold instead of doubling a cooldown as a failed probe does', () => {
    const limited = { ...fresh, cooldown_until: at(10).toISOString(), cooldown_reason: 'rate_limited' }
    const r = applyOutcome(limited, { success: false }, policy, at(20))
    assert.equal(r.cooldownStarted, null)
    const sick = { ...fresh, cooldown_until: at(10).toISOString(), cooldown_reason: 'consecutive_failures' }
    assert.equal(applyOutcome(sick, { success: false }, policy, at(20)).cooldownStarted, 'probe_failed')
  })

  it('eligibility names a rate limit, and never offers a rate-limited member or rejected credentials when all are down', () => {
    const base = { provider_id: 1, enabled: 1, rate_limit_requests: null, rate_limit_per: null, quota_window_start: null, quota_used: 0 }
    const now = at(0)
    const limited = assess({ ...base, id: 1, cooldown_until: at(30).toISOString(), cooldown_reason: 'rate_limited' }, now)
    assert.deepEqual([limited.eligible, limited.reason, limited.until], [false, 'rate_limited', at(30).toISOString()])
    const rejected = assess({ ...base, id: 2, provider_id: 2, cooldown_until: at(5).toISOString(), cooldown_reason: 'credentials_rejected' }, now)
    assert.equal(rejected.reason, 'cooling_down')
    assert.deepEqual(candidatesFor([limited, rejected], 'soonest'), { candidates: [], degraded: false })
    const sick = assess({ ...base, id: 3, provider_id: 3, cooldown_until: at(60).toISOString(), cooldown_reason: 'consecutive_failures' }, now)
    assert.deepEqual(candidatesFor([limited, rejected, sick], 'soonest').candidates.map((m) => m.id), [3])
  })
})

describe('isPlainSuccess (the runtime folds these without applyOutcome)', () => {
  const ours = { ...policy, forward_client_auth: 0 }
  const cases: Array<[string, HealthState, Outcome, boolean]> = [
    ['a 200 of a clean member', { ...fresh, latency_ms: 40 }, { success: true, status_code: 200, latency_ms: 10 }, true],
    ['a success without a status or latency', fresh, { success: true }, true],
    ['a failure', fresh, { success: false, status_code: 500 }, false],
    ['a member with failures counted', { ...fresh, consecutive_failures: 1 }, { success: true, status_code: 200 }, false],
    ['a member with a cooldown reason left', { ...fresh, cooldown_reason: 'rate_limited' }, { success: true, status_code: 200 }, false],
    ['a member whose cooldowns doubled', { ...fresh, cooldown_trips: 2 }, { success: true, status_code: 200 }, false],
    ['a member cooling down', { ...fresh, cooldown_until: at(60).toISOString(), cooldown_reason: 'rate_limited' }, { success: true, status_code: 200 }, false],
    ['a 429', fresh, { success: true, status_code: 429 }, false],
    ['a Retry-After', fresh, { success: true, status_code: 200, retry_after_s: 5 }, false],
    ['a pause asked for', fresh, { success: true, status_code: 200, pause_s: 5 }, false],
    ['a 401 on our credentials', fresh, { success: true, status_code: 401 }, false]
  ]
  for (const [name, state, outcome, plain] of cases) {
    it(`${name}: ${String(plain)}, and applyOutcome agrees`, () => {
      assert.equal(isPlainSuccess(state, outcome, ours), plain)
      if (!plain) return
      const effect = applyOutcome(state, outcome, ours, at(0))
      assert.deepEqual(effect, {
        state: { ...fresh, latency_ms: latencyAfter(state.latency_ms, outcome.latency_ms) },
        cooldownStarted: null,
        pausedUntil: null,
        success: true
      })
    })
  }

  it('latencyAfter moves the average by the sample, starts it, or keeps it', () => {
    assert.equal(latencyAfter(null, 10), 10)
    assert.equal(latencyAfter(40, null), 40)
    assert.equal(latencyAfter(40, 10), 31)
  })
})
