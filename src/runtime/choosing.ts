/**
 * Choosing the provider for one proxied attempt, in memory: the pool's strategy
 * (rules/plan-rotation.ts, as rotate and failover use it) among the eligible members
 * that have a base URL, do not refuse the path and are not excluded, a metered
 * provider's use taken from the block of its quota leased here (leasing.ts leases the
 * next one on the way, the only database round trip): one request, or for a quota in
 * credits what the call costs at that provider (rules/method-costs.ts; a provider
 * with too few credits left for the call is passed over for it alone). The use is
 * counted by accounting.ts.
 * A member cooling down after a failed connection is handed out as its probe gate
 * allows (probe-gates.ts: one probe at a time, one a second); otherwise the choice
 * goes on without it, and with no one else it ends as when nothing is eligible, told
 * when the next probe may go.
 */
import type { MemberWithName } from '../pools/member.repository.js'
import type { ChoiceIndex } from '../rules/choice-index.js'
import { refusedPathOf, resourceOf } from '../rules/credential-refusal.js'
import { callCost } from '../rules/method-costs.js'
import { indexMembers, planChoice } from '../rules/plan-rotation.js'
import type { Accounting, FailedAttempt } from './accounting.js'
import type { QuotaBlock } from './leasing.js'
import { refusersOf } from './method-routing.js'
import type { Member, PoolState, RuntimeState } from './runtime-state.js'
import type { RuntimePoolRow } from './runtime.repository.js'

/** A provider's refusal of a resource (403) or of the exact path (401/402) that kept it out of a proxy choice. */
export interface ProxyRefusal {
  readonly provider_id: number
  readonly provider_name: string | null
  readonly resource: string
  readonly expires_at: string
}

/** What the proxy gets for one attempt: a provider to call, or why there is none. */
export type ProxyChoice =
  | { readonly kind: 'chosen', readonly pool: RuntimePoolRow, readonly member: MemberWithName, readonly degraded: boolean }
  | { readonly kind: 'none', readonly pool: RuntimePoolRow, readonly retryAfterS: number | null, readonly retryAfterMs: number | null, readonly refusals: ProxyRefusal[] }
  | { readonly kind: 'unknown_pool' }

interface Deps {
  now: () => Date
  random: () => number
  memory: Pick<RuntimeState, 'inFlight' | 'leases' | 'probes'>
  /** The pool as kept here (pool-loader.ts). */
  stateOf: (poolId: number) => Promise<PoolState | undefined>
  lease: (providerId: number, block: QuotaBlock) => Promise<void>
  accounting: Pick<Accounting, 'chosen'>
}

const NO_REFUSALS: ReadonlyMap<number, string> = new Map()

/** How often one choice may lease a quota block before giving up on that provider. */
const MAX_LEASE_ROUNDS = 4

/**
 * Builds `choose`: by the pool's strategy among the eligible members that have a base
 * URL, do not refuse `path` (rules/credential-refusal.ts: a 403 its resource, a 401/402
 * the exact path), are not in `exclude` and, for an RPC call's `rpcMethod`, whose
 * provider allows it (method-routing.ts), with a use of the provider's
 * quota, and passed by its probe gate. With `failed`, the choice is a failover and goes
 * into the history. With none eligible, `retryAfterS` tells when the soonest member
 * comes back (or may be probed), and `refusals` which were left out for refusing.
 */
export function createChoosing ({ now, random, memory, stateOf, lease, accounting }: Deps) {
  const { inFlight, leases, probes } = memory
  const outstanding = (m: Member): number => inFlight.get(m.id) ?? 0

  return async function choose (poolId: number, path: string, exclude: ReadonlySet<number>, failed?: FailedAttempt, key?: string, rpcMethod?: string): Promise<ProxyChoice> {
    for (let round = 0; ; round++) {
      const state = await stateOf(poolId)
      if (state === undefined) return { kind: 'unknown_pool' }
      const { pool } = state
      if (pool.enabled !== 1) return { kind: 'none', pool, retryAfterS: null, retryAfterMs: null, refusals: [] }
      const at = now()
      const iso = at.toISOString()
      const { index, metered, unroutable } = viewOf(state, at)
      // Allocated only when needed: most pools have no quota, no refusal and no member without a URL.
      const view = metered ? (m: Member): Member => m.rate_limit_requests === null ? m : { ...m, ...leases.view(m.provider_id, m, at) } : undefined
      const refused = refusalsFor(state, path, iso)
      // An RPC call (`rpcMethod`) leaves out the members whose provider does not allow its method (method-routing.ts).
      const unallowed = rpcMethod === undefined ? undefined : refusersOf(state, rpcMethod)
      let left = metered || unroutable.length > 0 || (unallowed !== undefined && unallowed.size > 0) ? new Set(exclude) : exclude as Set<number>
      for (const providerId of unroutable) left.add(providerId)
      if (unallowed !== undefined) for (const providerId of unallowed) left.add(providerId)
      const options = { view, outstanding: pool.rotation_strategy === 'least_outstanding' ? outstanding : undefined }
      let block: (QuotaBlock & { providerId: number }) | undefined
      // The soonest a member held back by its probe gate may be probed, in ms.
      let heldMs: number | null = null
      while (block === undefined) {
        const plan = planChoice(pool, index, refused, at, left, state.cursor, random, key, options)
        const chosen = plan.chosen?.member
        if (chosen === undefined) {
          // In member order, as the members are listed.
          const order = (providerId: number) => state.members.findIndex((m) => m.provider_id === providerId)
          const refusals = [...refused].filter(([id]) => !exclude.has(id) && unallowed?.has(id) !== true).sort(([a], [b]) => order(a) - order(b)).map(([id, until]) => ({
            provider_id: id, provider_name: state.members.find((m) => m.provider_id === id)?.provider_name ?? null, resource: refusedKey(state, id, path, iso), expires_at: until
          }))
          const planned = plan.retryAfterMs === null ? null : Math.max(0, plan.retryAfterMs)
          const retryAfterMs = heldMs === null ? planned : Math.min(planned ?? heldMs, heldMs)
          return { kind: 'none', pool, retryAfterS: retryAfterMs === null ? null : Math.max(1, Math.ceil(retryAfterMs / 1000)), retryAfterMs, refusals }
        }
        // Cooling down after a failed connection, its probe out or sent less than a second ago: the choice goes on without it.
        const held = probes.empty() ? undefined : probes.heldFor(chosen, at.getTime())
        if (held !== undefined) {
          if (left === exclude) left = new Set(exclude)
          left.add(chosen.provider_id)
          heldMs = heldMs === null ? held : Math.min(heldMs, held)
          continue
        }
        if (chosen.rate_limit_requests !== null) {
          // A quota in credits spends what the call costs there (an RPC call's method; anything else, the default).
          const cost = chosen.rate_limit_unit === 'credits' ? callCost(chosen, rpcMethod) : 1
          if (!leases.take(chosen.provider_id, chosen, at, cost)) {
            const want = round < MAX_LEASE_ROUNDS ? leases.want(chosen.provider_id, chosen, at, cost) : undefined
            if (want === undefined) {
              left.add(chosen.provider_id)
              // Its quota here is spent (or too short for this call): out until the lease or the window changes; looked at again each choice.
              index.suspect(chosen.id)
            } else block = { providerId: chosen.provider_id, per: chosen.rate_limit_per, unit: chosen.rate_limit_unit, ...want }
            continue
          }
        }
        state.cursor = plan.state
        const member = index.member(chosen.id) as Member
        if (!probes.empty()) probes.claim(member, at.getTime())
        // Its outcome may start a cooldown in place (accounting.report): the index asks each member it looks at, live.
        accounting.chosen(poolId, member, iso, plan.degraded, failed)
        return { kind: 'chosen', pool, member, degraded: plan.degraded }
      }
      // Lease outside the loop: after the wait, choose again from what is then true.
      await lease(block.providerId, block)
    }
  }
}

/** What choosing keeps of one read of a pool (a PoolState): its index, and whether quotas or members without a URL are in play. */
interface PoolView { readonly index: ChoiceIndex<Member>, readonly metered: boolean, readonly unroutable: readonly number[] }

/** One view per read of a pool: a new read (pool-loader.ts) makes a new PoolState, and so a new view. */
const views = new WeakMap<PoolState, PoolView>()

function viewOf (state: PoolState, at: Date): PoolView {
  let view = views.get(state)
  if (view === undefined) {
    view = {
      index: indexMembers(state.members, at),
      metered: state.members.some((m) => m.rate_limit_requests !== null),
      unroutable: state.members.filter((m) => m.base_url === null).map((m) => m.provider_id)
    }
    views.set(state, view)
  }
  return view
}

/**
 * provider id → when its refusal of `path` ends, for the members of the pool refusing
 * it at `at`: a 403 refusal of its resource, or a 401/402 refusal of the path itself
 * (the later end when both are in force).
 */
function refusalsFor (state: PoolState, path: string, at: string): ReadonlyMap<number, string> {
  if (state.refusals.size === 0 && state.rejections.size === 0) return NO_REFUSALS
  const found = new Map<number, string>()
  // The providers with refusals, not every member: only members' providers are kept (pool-loader.ts, accounting's learnRefusal).
  for (const [byKey, key] of [[state.refusals, resourceOf(path)], [state.rejections, refusedPathOf(path)]] as const) {
    for (const [providerId, byResource] of byKey) {
      const until = byResource.get(key)
      if (until !== undefined && until > at && !((found.get(providerId) ?? '') > until)) found.set(providerId, until)
    }
  }
  return found
}

/** What the provider's refusal of `path` in force is remembered by: the exact path when a 401/402 refused it, else its resource. */
function refusedKey (state: PoolState, providerId: number, path: string, at: string): string {
  const exact = refusedPathOf(path)
  return (state.rejections.get(providerId)?.get(exact) ?? '') > at ? exact : resourceOf(path)
}
