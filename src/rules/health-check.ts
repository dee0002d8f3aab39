/**
 * Active health checks as pure rules: a provider's check settings and their
 * defaults, which status codes pass, the provider's passing and failing streaks,
 * and what one check result does to each member of the provider in the health
 * model of health.ts — the same model reports and proxied requests move:
 *
 *   `unhealthy_threshold` failing checks in a row ──▶ cooling_down (health_check),
 *       for the pool's cooldown, doubled per trip; each further failing check
 *       starts the next cooldown once the last has run out (no probe by traffic needed)
 *   cooling_down or probing ──(`healthy_threshold` passing checks since)──▶ healthy,
 *       whatever started the cooldown, except a rate limit still running: a provider
 *       that said "retry after" is taken at its word
 *   every passing check with a latency feeds the member's moving average
 */
import { cooldownSeconds, healthAt, LATENCY_ALPHA, type HealthPolicy, type HealthState } from './health.js'

/** A provider's active health check, as stored (defaults filled in). */
export interface HealthCheck {
  /** Relative to the provider's base URL (its path and query come first). */
  readonly path: string
  readonly interval_s: number
  readonly timeout_ms: number
  /** Codes (`204`) and ranges (`"200-299"`) that pass. */
  readonly expect_status: ReadonlyArray<number | string>
  readonly healthy_threshold: number
  readonly unhealthy_threshold: number
}

export const CHECK_DEFAULTS = {
  interval_s: 10,
  timeout_ms: 2000,
  expect_status: ['200-399'] as ReadonlyArray<number | string>,
  healthy_threshold: 2,
  unhealthy_threshold: 3
} as const

/** How much of a check's answer is read (the rest is never downloaded). */
export const MAX_CHECK_BODY_BYTES = 64 * 1024

/** What one check found. */
export interface CheckResult {
  readonly at: string
  readonly ok: boolean
  /** The answer's status, or null when none came. */
  readonly status_code: number | null
  /** Why no answer came (timeout, refused…), or null. */
  readonly error: string | null
  readonly latency_ms: number | null
}

/** The `result` label of `sourcepool_health_checks_total`. */
export type CheckOutcome = 'ok' | 'unexpected_status' | 'timeout' | 'error'

export function outcomeOf (result: CheckResult): CheckOutcome {
  if (result.ok) return 'ok'
  if (result.status_code !== null) return 'unexpected_status'
  return result.error === 'timeout' ? 'timeout' : 'error'
}

const RANGE = /^([1-5]\d\d)\s*-\s*([1-5]\d\d)$/

/** The inclusive range an `expect_status` item stands for, or undefined when it is not one. */
export function statusRange (item: number | string): readonly [number, number] | undefined {
  if (typeof item === 'number') return Number.isInteger(item) && item >= 100 && item <= 599 ? [item, item] : undefined
  const single = /^[1-5]\d\d$/.test(item) ? Number(item) : undefined
  if (single !== undefined) return [single, single]
  const match = RANGE.exec(item)
  if (match === null) return undefined
  const low = Number(match[1])
  const high = Number(match[2])
  return low <= high ? [low, high] : undefined
}

/** True when `status` is one of the codes or ranges of `expect`. */
export function statusExpected (expect: HealthCheck['expect_status'], status: number): boolean {
  for (const item of expect) {
    const range = statusRange(item)
    if (range !== undefined && status >= range[0] && status <= range[1]) return true
  }
  return false
}

/** A provider's streaks after one more result. */
export function countCheck (streaks: { readonly passes: number, readonly failures: number }, ok: boolean): { passes: number, failures: number } {
  return ok ? { passes: streaks.passes + 1, failures: 0 } : { passes: 0, failures: streaks.failures + 1 }
}

/** A member's stored health and its passing checks since its cooldown started. */
export interface MemberCheckState extends HealthState {
  readonly check_passes: number
  /** The cooldown (its `cooldown_until`) `check_passes` were counted for. */
  readonly check_passes_for: string | null
}

/**
 * One check result applied to one member of the checked provider: `failures` is the
 * provider's failing streak including this result. Answers the member's new state and
 * whether a cooldown started or the member recovered.
 */
export function applyCheck (
  member: MemberCheckState,
  result: { readonly ok: boolean, readonly latency_ms: number | null, readonly failures: number },
  check: Pick<HealthCheck, 'healthy_threshold' | 'unhealthy_threshold'>,
  policy: HealthPolicy,
  now: Date
): { state: MemberCheckState, change: 'cooldown' | 'recovered' | null } {
  const health = healthAt(member, now)
  const latency = !result.ok || result.latency_ms === null
    ? member.latency_ms
    : member.latency_ms === null ? result.latency_ms : member.latency_ms + LATENCY_ALPHA * (result.latency_ms - member.latency_ms)
  if (!result.ok) {
    if (result.failures >= check.unhealthy_threshold && health !== 'cooling_down') {
      return {
        state: {
          ...member,
          check_passes: 0,
          check_passes_for: null,
          cooldown_trips: member.cooldown_trips + 1,
          cooldown_until: new Date(now.getTime() + cooldownSeconds(policy, member.cooldown_trips) * 1000).toISOString(),
          cooldown_reason: 'health_check'
        },
        change: 'cooldown'
      }
    }
    return { state: { ...member, check_passes: 0, check_passes_for: null }, change: null }
  }
  const out = member.cooldown_until !== null && ((member.cooldown_reason !== 'rate_limited' && member.cooldown_reason !== 'credentials_rejected') || health === 'probing')
  if (!out) return { state: { ...member, latency_ms: latency, check_passes: 0, check_passes_for: null }, change: null }
  // Passes counted under an earlier cooldown (one a report or the proxy ended and another started) do not count.
  const passes = (member.check_passes_for === member.cooldown_until ? member.check_passes : 0) + 1
  if (passes < check.healthy_threshold) return { state: { ...member, latency_ms: latency, check_passes: passes, check_passes_for: member.cooldown_until }, change: null }
  return {
    state: { consecutive_failures: 0, cooldown_trips: 0, cooldown_until: null, cooldown_reason: null, latency_ms: latency, check_passes: 0, check_passes_for: null },
    change: 'recovered'
  }
}
