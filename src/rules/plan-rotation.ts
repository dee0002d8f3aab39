/**
 * One plan for "who is next": the pure function behind the API's rotate and
 * failover, the explain endpoint and the proxy's in-memory runtime, so what
 * explain says can never drift from what a rotation does. `planRotation` assesses
 * every member (explain shows them all); `planChoice` asks the pool's ChoiceIndex
 * (choice-index.ts), which looks at the members it needs only, and plans in full only
 * when no member is eligible (a degraded choice, or when the soonest comes back).
 */
import { ChoiceIndex } from './choice-index.js'
import { assess, candidatesFor, type Assessment, type EligibilityInput } from './eligibility.js'
import { chooseAmong, type RotationState } from './strategies.js'

/** What a plan needs of the pool. */
export interface PlanPool {
  readonly enabled: number
  readonly rotation_strategy: string
  readonly all_down: string
}

/** What a plan needs of a member (its provider's quota state included). */
export interface PlanMember extends EligibilityInput {
  readonly priority: number
  readonly weight: number
  readonly use_count: number
  readonly latency_ms?: number | null
  /** Requests in flight through this process's proxy (the runtime sets it). */
  readonly outstanding?: number
}

export interface RotationPlan<M extends PlanMember> {
  /** Every member, with why it is out (a refused resource counts as `refuses_resource`). */
  readonly assessments: ReadonlyArray<Assessment<M>>
  /** The members the strategy chose among. */
  readonly candidates: readonly M[]
  /** Every eligible member was cooling down; the one whose cooldown ends first is offered. */
  readonly degraded: boolean
  /** The strategy's choice, undefined when there is no candidate. */
  readonly chosen: Assessment<M> | undefined
  /** The strategy's cursor after the choice (unchanged when nothing was chosen). */
  readonly state: RotationState
  /**
   * With nothing chosen: milliseconds until the soonest member left out by a
   * cooldown, a rate limit or a quota (and not excluded) comes back; null when none will.
   */
  readonly retryAfterMs: number | null
}

/**
 * Plans the next rotation of `pool` at `at`: assesses every member, leaves out
 * those in `exclude` (by provider id) and those refusing the resource asked for
 * (`refusals`: provider id → when the refusal ends), and lets the pool's strategy
 * choose among the rest from the cursor `state` (and the client's `key`, for consistent_hash).
 */
export function planRotation<M extends PlanMember> (
  pool: PlanPool,
  members: readonly M[],
  refusals: ReadonlyMap<number, string>,
  at: Date,
  exclude: ReadonlySet<number>,
  state: RotationState,
  random: () => number = Math.random,
  key?: string
): RotationPlan<M> {
  const assessments = members.map((m) => {
    const assessment = assess(m, at)
    const until = refusals.get(m.provider_id)
    return assessment.eligible && until !== undefined ? { ...assessment, eligible: false, reason: 'refuses_resource' as const, until } : assessment
  })
  const left = refusals.size === 0 ? exclude : new Set([...exclude, ...refusals.keys()])
  const { candidates, degraded } = pool.enabled === 1 ? candidatesFor(assessments, pool.all_down, left) : { candidates: [], degraded: false }
  const choice = chooseAmong(pool.rotation_strategy, candidates, state, random, key)
  const chosen = choice === undefined ? undefined : assessments.find((a) => a.member === choice.member)
  let retryAfterMs: number | null = null
  if (chosen === undefined && pool.enabled === 1) {
    for (const a of assessments) {
      if (left.has(a.member.provider_id) || a.until === null || (a.reason !== 'cooling_down' && a.reason !== 'rate_limited' && a.reason !== 'quota_exhausted')) continue
      const ms = Date.parse(a.until) - at.getTime()
      if (retryAfterMs === null || ms < retryAfterMs) retryAfterMs = ms
    }
  }
  return { assessments, candidates, degraded, chosen, state: choice?.state ?? state, retryAfterMs }
}

/** What a rotation needs of a plan: the choice, not the assessment of every member. */
export type ChoicePlan<M extends PlanMember> = Pick<RotationPlan<M>, 'chosen' | 'degraded' | 'state' | 'retryAfterMs'>

/** What planChoice may be told beyond planRotation's arguments. */
export interface ChoiceOptions<M> {
  /** Requests in flight per member (the proxy's least_outstanding). */
  readonly outstanding?: (m: M) => number
  /** The member as it stands now (the proxy's quota leases overlaid), read before it is assessed. */
  readonly view?: (m: M) => M
}

/** Builds the choice index of `members`, every member assessed once at `at` (so the first draws are exact). */
export function indexMembers<M extends PlanMember> (members: readonly M[], at: Date): ChoiceIndex<M> {
  return new ChoiceIndex(members).assessAll((m) => !assess(m, at).eligible)
}

/**
 * The same plan as planRotation for the members of `index`, but for `chosen`'s
 * assessment alone: per choice it costs O(log n) plus the members found out, not n.
 */
export function planChoice<M extends PlanMember> (
  pool: PlanPool,
  index: ChoiceIndex<M>,
  refusals: ReadonlyMap<number, string>,
  at: Date,
  exclude: ReadonlySet<number>,
  state: RotationState,
  random: () => number = Math.random,
  key?: string,
  options: ChoiceOptions<M> = {}
): ChoicePlan<M> {
  const { view, outstanding } = options
  if (pool.enabled === 1) {
    const left = refusals.size === 0 ? exclude : new Set([...exclude, ...refusals.keys()])
    const isOut = (m: M): boolean => left.has(m.provider_id) || !assess(view === undefined ? m : view(m), at).eligible
    const choice = index.choose(pool.rotation_strategy, state, { isOut, outProviders: left.size === 0 ? undefined : left, random, key, outstanding })
    if (choice !== undefined) {
      const member = view === undefined ? choice.member : view(choice.member)
      return { chosen: assess(member, at), degraded: false, state: choice.state, retryAfterMs: null }
    }
  }
  // Nobody eligible: the full plan finds the degraded choice, or when the soonest comes back.
  const members = view === undefined ? index.members : index.members.map(view)
  const withOutstanding = outstanding === undefined ? members : members.map((m) => ({ ...m, outstanding: outstanding(m) }))
  return planRotation(pool, withOutstanding, refusals, at, exclude, state, random, key)
}
