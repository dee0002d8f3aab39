/**
 * Which members a rotation may choose, and why the others are out: pure
 * functions shared by rotate, failover and the explain endpoint.
 */
import { healthAt, type Health } from './health.js'
import { quotaAt, type QuotaState, type QuotaView } from './quota.js'

/**
 * Why a member is out: switched off; cooling down (a failure, a failed check, our
 * credentials rejected); paused by the provider's own rate limit (a 429 with
 * Retry-After, or its headers saying no requests are left); our quota window used
 * up; refusing the resource asked for.
 */
export type Ineligibility = 'disabled' | 'cooling_down' | 'rate_limited' | 'quota_exhausted' | 'refuses_resource'

export interface EligibilityInput extends QuotaState {
  readonly id: number
  readonly provider_id: number
  readonly enabled: number
  readonly cooldown_until: string | null
  /** Why the cooldown started (a rate limit shows as `rate_limited`; rejected credentials are never offered degraded). */
  readonly cooldown_reason?: string | null
}

export interface Assessment<M> {
  readonly member: M
  readonly health: Health
  readonly quota: QuotaView | null
  readonly eligible: boolean
  readonly reason: Ineligibility | null
  /** When the member becomes eligible again (cooldown end or quota reset), if that is known. */
  readonly until: string | null
}

/** Assesses one member at `now`. */
export function assess<M extends EligibilityInput> (member: M, now: Date): Assessment<M> {
  const health = healthAt(member, now)
  const quota = quotaAt(member, now)
  if (member.enabled !== 1) return { member, health, quota, eligible: false, reason: 'disabled', until: null }
  if (health === 'cooling_down') {
    const reason = member.cooldown_reason === 'rate_limited' ? 'rate_limited' : 'cooling_down'
    return { member, health, quota, eligible: false, reason, until: member.cooldown_until }
  }
  if (quota?.exhausted === true) return { member, health, quota, eligible: false, reason: 'quota_exhausted', until: quota.resets_at }
  return { member, health, quota, eligible: true, reason: null, until: null }
}

/**
 * The members a rotation may choose from. When every enabled member (with quota
 * left) is cooling down and the pool's `all_down` is `soonest`, the one whose
 * cooldown ends first is offered alone, marked degraded. A provider that said it
 * has no requests left (rate_limited) or rejected our credentials is never offered:
 * it would refuse.
 */
export function candidatesFor<M extends EligibilityInput> (
  assessments: ReadonlyArray<Assessment<M>>, allDown: string, excludeProviderIds: ReadonlySet<number> = new Set()
): { candidates: M[], degraded: boolean } {
  const considered = assessments.filter((a) => !excludeProviderIds.has(a.member.provider_id))
  const eligible = considered.filter((a) => a.eligible).map((a) => a.member)
  if (eligible.length > 0 || allDown !== 'soonest') return { candidates: eligible, degraded: false }
  const cooling = considered
    .filter((a) => a.reason === 'cooling_down' && a.quota?.exhausted !== true && a.member.cooldown_reason !== 'credentials_rejected')
    .sort((a, b) => (a.until as string).localeCompare(b.until as string) || a.member.id - b.member.id)
  return cooling[0] === undefined ? { candidates: [], degraded: false } : { candidates: [cooling[0].member], degraded: true }
}
