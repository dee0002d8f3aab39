/**
 * Outcome reports (they move a member's health, see health.ts) and the explain
 * view of the next rotation, which reads the same eligibility rules as rotate
 * without changing any state.
 */
import type { Work, WorkRunner } from '../db/work.js'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { NotFoundError } from '../errors.js'
import { NO_EVENTS, type RotationEvents } from '../metrics/metrics.js'
import { findMemberWithName, listMembers, updateMemberHealth } from '../pools/member.repository.js'
import { insertHistory } from '../pools/history.repository.js'
import { addMemberMinutes } from '../pools/member-minutes.repository.js'
import { findPool, findPoolForRotation, touchPool } from '../pools/pool.repository.js'
import { normaliseResource } from '../providers/refusal.service.js'
import { activeRefusalsOf } from '../providers/refusal.repository.js'
import { minuteOf } from '../rules/activity.js'
import { applyOutcome, healthAt, healthChangeRecord, successRate } from '../rules/health.js'
import type { ExplanationValue, MemberHealthValue, ReportInput } from './health.schemas.js'
import { planRotation } from '../rules/plan-rotation.js'
import { LATENCY_EXPLORE, latencyChoiceIsDrawn, parseRotationState, type Strategy } from '../rules/strategies.js'

const poolNotFound = (id: number) => new NotFoundError(`Pool ${id} not found`)

/** Builds the health service. */
export function createHealthService ({ database, now, events = NO_EVENTS, changes = NO_CHANGES }: { database: WorkRunner, now: () => Date, events?: RotationEvents, changes?: ChangeFeed }) {
  return {
    /** Applies one outcome report to a member and answers its new health record. */
    async report (poolId: number, input: ReportInput): Promise<MemberHealthValue> {
      let cooldown: string | null = null
      const record = await database.transact(function * (db): Work<MemberHealthValue> {
        // The pool's row lock serialises reports with rotations and failovers of the pool.
        const pool = yield * findPoolForRotation(db, poolId)
        if (pool === undefined) throw poolNotFound(poolId)
        const member = yield * findMemberWithName(db, poolId, input.provider_id)
        if (member === undefined) throw new NotFoundError(`Member not found in pool ${poolId}`)
        const at = now()
        const { state, cooldownStarted } = applyOutcome(member, input, pool, at)
        const successes = input.success ? 1 : 0
        const lastError = input.success ? null : input.error ?? (input.status_code != null ? `HTTP ${input.status_code}` : member.last_error)
        yield * updateMemberHealth(db, member.id, { ...state, last_error: lastError, successes, failures: 1 - successes })
        // The latency folded into the moving average also counts in its minute (activity charts).
        if (input.latency_ms != null) yield * addMemberMinutes(db, [{ memberId: member.id, minute: minuteOf(at), samples: 1, latencySum: input.latency_ms }])
        // A cooldown started or a member recovered goes into the history, as the proxy's do.
        const record = healthChangeRecord(member.provider_id, healthAt(member, at), state, cooldownStarted, lastError)
        if (record !== null) yield * insertHistory(db, { pool_id: poolId, ...record, timestamp: at.toISOString() })
        yield * touchPool(db, poolId)
        cooldown = cooldownStarted
        const counts = { success_count: member.success_count + successes, failure_count: member.failure_count + 1 - successes }
        return {
          pool_id: poolId,
          provider_id: member.provider_id,
          provider_name: member.provider_name,
          health: healthAt(state, at),
          cooldown_until: state.cooldown_until,
          cooldown_reason: state.cooldown_reason,
          consecutive_failures: state.consecutive_failures,
          latency_ms: state.latency_ms,
          success_rate: successRate(counts),
          ...counts,
          last_error: lastError
        }
      })
      changes.pool(poolId)
      events.reported(input.success)
      if (cooldown !== null) events.cooldownStarted(cooldown)
      return record
    },

    /**
     * What the next rotation (or, with `resource`, the next proxy request for it) would
     * choose and why, for every member; changes nothing.
     */
    async explain (poolId: number, resource?: string, key?: string): Promise<ExplanationValue> {
      const asked = resource === undefined || resource === '' ? null : normaliseResource(resource)
      return await database.read(function * (db): Work<ExplanationValue> {
        const pool = yield * findPool(db, poolId)
        if (pool === undefined) throw poolNotFound(poolId)
        const members = yield * listMembers(db, poolId)
        const at = now()
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
            quota: a.quota === null ? null : { used: a.quota.used, limit: a.quota.limit, resets_at: a.quota.resets_at },
            last_check: a.member.last_check === null ? null : JSON.parse(a.member.last_check) as ExplanationValue['members'][number]['last_check']
          }))
        }
      })
    }
  }
}

export type HealthService = ReturnType<typeof createHealthService>
