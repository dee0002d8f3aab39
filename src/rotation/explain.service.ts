/**
 * The explain view (`GET …/next`): what the next rotation (or, with a resource, the
 * next proxy request for it) would choose and why, for every member. It reads the
 * same eligibility rules as rotate (rules/plan-rotation.ts) and changes nothing. The
 * members are those rotations keep in this process at the pool's change_seq, read
 * again only when it moved. An `evm` pool's members also show their nodes' heads as
 * this process tracks them (pools/member-heads.ts), and the explanation names those
 * left out of calls at the head for lagging.
 */
import type { Work, WorkRunner } from '../db/work.js'
import { NotFoundError } from '../errors.js'
import { NO_HEADS, headFieldsOf, type HeadFields, type MemberHeads } from '../pools/member-heads.js'
import { findPool } from '../pools/pool.repository.js'
import { normaliseResource } from '../providers/refusal.service.js'
import { activeRefusalsOf } from '../providers/refusal.repository.js'
import type { ExplanationValue } from './explain.schemas.js'
import { planRotation } from '../rules/plan-rotation.js'
import { LATENCY_EXPLORE, latencyChoiceIsDrawn, parseRotationState, type Strategy } from '../rules/strategies.js'
import { knownMembersOf, membersOf } from './rotation.service.js'

const poolNotFound = (id: number) => new NotFoundError(`Pool ${id} not found`)

/** Builds the explain service: reads only. */
export function createExplainService ({ database, now, memberHeads = NO_HEADS }: { database: WorkRunner, now: () => Date, memberHeads?: MemberHeads }) {
  // The members rotations keep per pool at its change_seq (read again only when it moved).
  const known = knownMembersOf(database)
  return {
    /**
     * What the next rotation (or, with `resource`, the next proxy request for it) would
     * choose and why, for every member; changes nothing.
     */
    async explain (poolId: number, resource?: string, key?: string): Promise<ExplanationValue> {
      const asked = resource === undefined || resource === '' ? null : normaliseResource(resource)
      return await database.read(function * (db): Work<ExplanationValue> {
        const pool = yield * findPool(db, poolId)
        if (pool === undefined) throw poolNotFound(poolId)
        const at = now()
        const { members } = yield * membersOf(db, known, poolId, at)
        const refusals = asked === null ? [] : yield * activeRefusalsOf(db, members.map((m) => m.provider_id), asked, at.toISOString())
        const refusedUntil = new Map(refusals.map((r) => [r.provider_id, r.expires_at]))
        const strategy = pool.rotation_strategy as Strategy
        const plan = planRotation(pool, members, refusedUntil, at, new Set(), parseRotationState(pool.rotation_state), Math.random, key)
        const { assessments, candidates, degraded } = plan
        // A random pick (or a least_latency draw) is made when the rotation happens; explain cannot name it.
        const drawn = strategy === 'least_latency' && latencyChoiceIsDrawn(candidates)
        const choice = strategy === 'random' || drawn ? undefined : plan.chosen
        const chosen = choice?.member
        let explanation: string
        if (pool.enabled !== 1) explanation = 'The pool is disabled: rotations answer 404.'
        else if (candidates.length === 0) explanation = 'No member is eligible: rotations answer 404.'
        else if (drawn) {
          const fastest = candidates.reduce((best, m) => (m.latency_ms as number) < (best.latency_ms as number) ? m : best)
          explanation = 'The least_latency strategy draws two members at random and takes the lower average latency ' +
            `(one pick in ${Math.round(1 / LATENCY_EXPLORE)} goes to any member); the fastest now is '${fastest.provider_name ?? fastest.provider_id}' (${Math.round(fastest.latency_ms as number)} ms).`
        } else if (chosen === undefined) explanation = `The ${strategy} strategy picks at random among the candidates.`
        else explanation = `The ${strategy} strategy picks '${chosen.provider_name ?? chosen.provider_id}'${degraded ? ', the member whose cooldown ends first, because every eligible member is cooling down' : ''}.`
        // Members kept out by a failing active check are named with what the check found.
        const failingChecks = assessments.filter((a) => a.reason === 'cooling_down' && a.member.cooldown_reason === 'health_check').map((a) => {
          const last = a.member.last_check === null ? null : JSON.parse(a.member.last_check) as { status_code: number | null, error: string | null }
          const found = last === null ? '' : ` (${last.status_code !== null ? `HTTP ${last.status_code}` : last.error ?? 'no answer'})`
          return `'${a.member.provider_name ?? a.member.provider_id}' is cooling down after failing its health check${found} until ${a.until ?? '?'}`
        })
        if (failingChecks.length > 0) explanation += ` ${failingChecks.join('; ')}.`
        const headsOf = pool.protocol === 'evm' ? headFieldsOf(memberHeads(pool.id), pool.max_block_lag) : undefined
        if (headsOf !== undefined) explanation += laggingNote(assessments.map((a) => a.member), headsOf, pool.max_block_lag)
        return {
          pool_id: pool.id,
          resource: asked,
          pool_enabled: pool.enabled === 1,
          rotation_strategy: strategy,
          provider_id: chosen?.provider_id ?? null,
          provider_name: chosen?.provider_name ?? null,
          degraded,
          candidates: candidates.map((m) => m.provider_id),
          explanation,
          members: assessments.map((a) => ({
            member_id: a.member.id,
            provider_id: a.member.provider_id,
            provider_name: a.member.provider_name,
            eligible: a.eligible,
            reason: a.reason,
            until: a.until,
            refuses_resource: refusedUntil.has(a.member.provider_id),
            health: a.health,
            cooldown_reason: a.member.cooldown_reason,
            quota: a.quota === null ? null : { used: a.quota.used, limit: a.quota.limit, unit: a.quota.unit, resets_at: a.quota.resets_at },
            last_check: a.member.last_check === null ? null : JSON.parse(a.member.last_check) as ExplanationValue['members'][number]['last_check'],
            ...headsOf?.(a.member.provider_id)
          }))
        }
      })
    }
  }
}

/** The evm members left out of calls at the head, in words (with a leading space); '' when none. */
function laggingNote (members: ReadonlyArray<{ provider_id: number, provider_name: string | null }>, headsOf: (providerId: number) => HeadFields, maxLag: number): string {
  const lagging = members.flatMap((m) => {
    const { head_block: head, block_lag: lag, lagging } = headsOf(m.provider_id)
    return lagging ? [`'${m.provider_name ?? m.provider_id}' (head ${head ?? '?'}, ${lag ?? '?'} blocks behind)`] : []
  })
  if (lagging.length === 0) return ''
  return ` Lagging more than ${maxLag} blocks behind the pool's highest head, left out of calls at latest or pending, above their head and head-dependent reads: ${lagging.join(', ')}.`
}

export type ExplainService = ReturnType<typeof createExplainService>
