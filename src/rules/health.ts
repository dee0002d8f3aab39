/**
 * The health model of a pool member, as pure functions of its stored state, the
 * pool's policy and the time. `enabled` is the operator's switch; health is
 * automatic and derived from `cooldown_until`:
 *
 *   healthy ──(failure_threshold consecutive failures)──▶ cooling_down
 *   any     ──(429, or any report with retry_after_s)───▶ cooling_down (rate_limited)
 *   any     ──(the provider says 0 requests left: pause_s)─▶ cooling_down (rate_limited), not a failure
 *   any     ──(401/402 on our credentials, judged our key rejected)─▶ cooling_down (credentials_rejected), max_cooldown_seconds
 *             (the judging is rules/credential-refusal.ts: a 401/402 on one resource alone is no revoked key)
 *   cooling_down ──(cooldown_until passes)──▶ probing (eligible again)
 *   probing ──(success)──▶ healthy, counters and doubling reset
 *   probing ──(failure)──▶ cooling_down again, for twice as long (up to the maximum)
 *
 * A rate limit is the provider's quota, not its sickness: once it has passed, the
 * member is judged as healthy (a failure then counts towards failure_threshold, it
 * does not double a cooldown as a failed probe does).
 */
import { COOLDOWN_PREFIX, cooldownNotes, PROVIDER_NOTES, rateLimitRecord, RECOVERED, type ServiceRecord } from './history-kind.js'
import { percentOf } from './percent.js'

export type Health = 'healthy' | 'cooling_down' | 'probing'
export type CooldownReason = 'consecutive_failures' | 'probe_failed' | 'rate_limited' | 'health_check' | 'credentials_rejected'

export interface HealthPolicy {
  readonly failure_threshold: number
  readonly cooldown_seconds: number
  readonly max_cooldown_seconds: number
  /** 1 when the pool forwards the client's credentials: a 401/402 is then the client's, not ours. */
  readonly forward_client_auth?: number
}

export const DEFAULT_POLICY: HealthPolicy & { readonly all_down: 'soonest' } = {
  failure_threshold: 3,
  cooldown_seconds: 30,
  max_cooldown_seconds: 300,
  all_down: 'soonest'
}

/** What is stored per member. */
export interface HealthState {
  readonly consecutive_failures: number
  /** Cooldowns in a row without a success between them. */
  readonly cooldown_trips: number
  readonly cooldown_until: string | null
  readonly cooldown_reason: string | null
  readonly latency_ms: number | null
}

export interface Outcome {
  readonly success: boolean
  readonly status_code?: number | null
  readonly latency_ms?: number | null
  readonly retry_after_s?: number | null
  /**
   * The provider said it has no requests left for this many seconds (X-RateLimit-Remaining: 0
   * with a reset, rules/rate-limit-signals.ts): the member pauses that long. Not a failure.
   */
  readonly pause_s?: number | null
  /**
   * For a 401/402 on our credentials: whether the credential rule (rules/credential-refusal.ts)
   * took it for our key rejected. False: a plain failure. Absent: judged so already (the proxy
   * reports only those).
   */
  readonly credentials_rejected?: boolean
}

/** Weight of the newest latency sample in the moving average. */
export const LATENCY_ALPHA = 0.3

/** The member's health at `now`. */
export function healthAt (state: Pick<HealthState, 'cooldown_until'>, now: Date): Health {
  if (state.cooldown_until === null) return 'healthy'
  return Date.parse(state.cooldown_until) > now.getTime() ? 'cooling_down' : 'probing'
}

/** How long the next cooldown lasts: doubling with each trip, capped. */
export function cooldownSeconds (policy: HealthPolicy, trips: number): number {
  return Math.min(policy.cooldown_seconds * 2 ** Math.min(trips, 30), policy.max_cooldown_seconds)
}

/**
 * True when an answer with `status` means the provider rejects the credentials we
 * hold for it (401, 402): only when they are ours, i.e. the pool does not forward
 * the client's own.
 */
export function rejectsOurCredentials (status: number | null | undefined, policy: Pick<HealthPolicy, 'forward_client_auth'>): boolean {
  return (status === 401 || status === 402) && policy.forward_client_auth !== 1
}

/** The moving average of latency after one sample (unchanged without one). */
export function latencyAfter (average: number | null, sample: number | null | undefined): number | null {
  if (sample == null) return average
  return average === null ? sample : average + LATENCY_ALPHA * (sample - average)
}

/**
 * True when the outcome is a plain success of a member with a clean health (no
 * cooldown, no failures counted, no doubling): applyOutcome would leave it so, with
 * only its latency moved, and start, end or record nothing. The runtime folds such
 * an outcome, the one nearly every proxied request has, without the whole fold.
 */
export function isPlainSuccess (state: HealthState, outcome: Outcome, policy: Pick<HealthPolicy, 'forward_client_auth'>): boolean {
  return outcome.success && state.cooldown_until === null && state.cooldown_reason === null && state.consecutive_failures === 0 && state.cooldown_trips === 0 &&
    outcome.status_code !== 429 && outcome.retry_after_s == null && !(outcome.pause_s != null && outcome.pause_s > 0) &&
    !rejectsOurCredentials(outcome.status_code, policy)
}

/** What one outcome did to a member's health. */
export interface OutcomeEffect {
  readonly state: HealthState
  /** The cooldown it started, or null. */
  readonly cooldownStarted: CooldownReason | null
  /** When the provider's own pause (pause_s) ends, when the outcome started or lengthened one; else null. */
  readonly pausedUntil: string | null
  /** Whether the outcome counts as a success (a 401/402 on our credentials never does, whatever it said). */
  readonly success: boolean
}

/**
 * The state after one outcome, and the reason of the cooldown it started (or null).
 * A success resets the consecutive count and the doubling; it ends a cooldown only
 * once that cooldown has run out (probing), so an in-flight success cannot cut a
 * rate limit short. A 401/402 on our credentials (rejectsOurCredentials) is a
 * failure whatever `success` says, and, unless the outcome says the credential rule
 * did not take it for our key rejected, takes the member out for
 * max_cooldown_seconds. A pause the provider asked for (pause_s) is applied on top
 * of whatever else the outcome did, when it ends later.
 */
export function applyOutcome (state: HealthState, outcome: Outcome, policy: HealthPolicy, now: Date): OutcomeEffect {
  const effect = healthAfter(state, outcome, policy, now)
  const pause = outcome.pause_s
  if (pause == null || !(pause > 0)) return effect
  const until = secondsAfter(now, pause)
  const current = effect.state.cooldown_until
  // A pause ending within a second of the one running is the same pause (answers in flight together).
  if (current !== null && Date.parse(until) - Date.parse(current) < 1000) return effect
  return { state: { ...effect.state, cooldown_until: until, cooldown_reason: 'rate_limited' }, cooldownStarted: null, pausedUntil: until, success: effect.success }
}

function healthAfter (state: HealthState, outcome: Outcome, policy: HealthPolicy, now: Date): OutcomeEffect {
  const health = healthAt(state, now)
  const latency = latencyAfter(state.latency_ms, outcome.latency_ms)
  const refused = rejectsOurCredentials(outcome.status_code, policy)
  const rejected = refused && outcome.credentials_rejected !== false
  const success = outcome.success && !refused
  const consecutive = success ? 0 : state.consecutive_failures + 1
  const trips = success ? 0 : state.cooldown_trips

  if (rejected) {
    const until = secondsAfter(now, policy.max_cooldown_seconds)
    const longer = health === 'cooling_down' && (state.cooldown_until as string) > until
    return {
      state: {
        consecutive_failures: consecutive,
        cooldown_trips: trips,
        cooldown_until: longer ? state.cooldown_until : until,
        cooldown_reason: longer ? state.cooldown_reason : 'credentials_rejected',
        latency_ms: latency
      },
      cooldownStarted: longer ? null : 'credentials_rejected',
      pausedUntil: null,
      success
    }
  }
  if (outcome.status_code === 429 || outcome.retry_after_s != null) {
    const seconds = outcome.retry_after_s ?? cooldownSeconds(policy, trips)
    const until = secondsAfter(now, seconds)
    // A cooldown already running that ends later stands (a late answer never shortens it).
    if (health === 'cooling_down' && (state.cooldown_until as string) >= until) {
      return { state: { ...state, consecutive_failures: consecutive, cooldown_trips: trips, latency_ms: latency }, cooldownStarted: null, pausedUntil: null, success }
    }
    return {
      state: { consecutive_failures: consecutive, cooldown_trips: trips, cooldown_until: until, cooldown_reason: 'rate_limited', latency_ms: latency },
      cooldownStarted: 'rate_limited',
      pausedUntil: null,
      success
    }
  }
  if (success) {
    const cooldown = health === 'cooling_down' ? { cooldown_until: state.cooldown_until, cooldown_reason: state.cooldown_reason } : { cooldown_until: null, cooldown_reason: null }
    return { state: { consecutive_failures: 0, cooldown_trips: 0, ...cooldown, latency_ms: latency }, cooldownStarted: null, pausedUntil: null, success }
  }
  // A rate limit that has passed leaves the member healthy, not on probation.
  const judged = health === 'probing' && state.cooldown_reason === 'rate_limited' ? 'healthy' : health
  const tripped: CooldownReason | null = judged === 'probing' ? 'probe_failed' : judged === 'healthy' && consecutive >= policy.failure_threshold ? 'consecutive_failures' : null
  if (tripped !== null) {
    return {
      state: { consecutive_failures: consecutive, cooldown_trips: trips + 1, cooldown_until: secondsAfter(now, cooldownSeconds(policy, trips)), cooldown_reason: tripped, latency_ms: latency },
      cooldownStarted: tripped,
      pausedUntil: null,
      success
    }
  }
  return { state: { ...state, consecutive_failures: consecutive, latency_ms: latency }, cooldownStarted: null, pausedUntil: null, success }
}

/** What a history record of a health change reads of an outcome's effect. */
export interface ChangeOf {
  readonly state: Pick<HealthState, 'cooldown_until'>
  readonly cooldownStarted: CooldownReason | null
  readonly pausedUntil?: string | null
}

/** What the history records of a health change (the rest of the row is the caller's: pool and time). */
export type HealthChangeRecord = ServiceRecord

/**
 * The history record of the health change one outcome made — a cooldown started, or a
 * member that was probing answering again — or null when it changed neither. Reports,
 * failovers and proxied attempts record them alike.
 */
export function healthChangeRecord (
  providerId: number, before: Health, effect: ChangeOf, lastError: string | null, pauseSource: string | null = null
): HealthChangeRecord | null {
  const { state: after, cooldownStarted, pausedUntil } = effect
  if (pausedUntil != null) return rateLimitRecord(providerId, pausedUntil, pauseSource)
  if (cooldownStarted !== null) {
    return {
      from_provider_id: providerId,
      to_provider_id: null,
      reason: `${COOLDOWN_PREFIX}${cooldownStarted}`,
      success: 0,
      notes: `${cooldownNotes(providerId, after.cooldown_until)}${lastError === null ? '' : ` after: ${lastError}`}`,
      until: after.cooldown_until
    }
  }
  if (before === 'probing' && after.cooldown_until === null) {
    return { from_provider_id: null, to_provider_id: providerId, reason: RECOVERED, success: 1, notes: `${PROVIDER_NOTES}${providerId} answered again after its cooldown`, until: null }
  }
  return null
}

/** `seconds` after `now`, as stored. */
function secondsAfter (now: Date, seconds: number): string {
  return new Date(now.getTime() + seconds * 1000).toISOString()
}

/**
 * The success rate as the original service showed it: a percentage of outcomes,
 * successes / (successes + failures) × 100 to two decimals, and 0 before any outcome.
 */
export function successRate (counts: { readonly success_count: number, readonly failure_count: number }): number {
  return percentOf(counts.success_count, counts.success_count + counts.failure_count, 2)
}
