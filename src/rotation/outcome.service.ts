/**
 * Outcome reports (`POST …/report`): a caller tells how one call to a
 * member went (with the provider's answer headers, if it likes, whose rate-limit
 * signals are read as the proxy reads them; a 401/402 on our credentials is a
 * failure whatever `success` says, judged by the proxy's credential rule,
 * rules/credential-refusal.ts: our key rejected on the health check's target, a
 * refusal of the reported path alone — recorded as the proxy records one — or, with
 * no path, a plain failure), and the member's health moves
 * (rules/health.ts) in one transaction
 * that locks the pool's row first, serialised with rotations and failovers of the
 * pool. A cooldown started or a member recovered goes into the history; the pool
 * is declared touched (db/unit-of-work.ts), so its change_seq moves and the change
 * feed is told once the report commits.
 */
import type { Db } from '../db/types.js'
import { touched, unitOfWork } from '../db/unit-of-work.js'
import type { Work, WorkRunner } from '../db/work.js'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { NotFoundError } from '../errors.js'
import { NO_EVENTS, type RotationEvents } from '../metrics/metrics.js'
import { findMemberWithName, updateMemberHealth, type MemberWithName } from '../pools/member.repository.js'
import { insertHistory } from '../pools/history.repository.js'
import { addMemberMinutes } from '../pools/member-minutes.repository.js'
import { findPoolForRotation, type RotationPoolRow } from '../pools/pool.repository.js'
import { recordRefusal } from '../providers/refusal.repository.js'
import { DEFAULT_MAX_REFUSALS_PER_PROVIDER, MAX_RESOURCE_LENGTH } from '../providers/refusal.service.js'
import { minuteOf } from '../rules/activity.js'
import { healthCheckPathOf, judgeRefusal, refusalSeconds, refusedPathOf, refusesCredentials, type CredentialVerdict } from '../rules/credential-refusal.js'
import { applyOutcome, healthAt, healthChangeRecord, rejectsOurCredentials, successRate, type OutcomeEffect } from '../rules/health.js'
import { refusalRecord } from '../rules/history-kind.js'
import { rateLimitSignals } from '../rules/rate-limit-signals.js'
import type { MemberHealthValue, ReportInput } from './outcome.schemas.js'

const poolNotFound = (id: number) => new NotFoundError(`Pool ${id} not found`)

/** The reported headers by lower-case name (the signals are read by name). */
function lowerCased (headers: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {}
  if (headers !== undefined) for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value
  return out
}

/**
 * The credential rule's verdict on a reported 401/402 on our credentials: with its
 * path, our key rejected on the provider's health check target, else a refusal of that
 * path alone, recorded as the proxy records one (its history record goes into this
 * pool when it is new); without one, a plain failure. A report says nothing of earlier
 * successes, and refusals of other paths are no evidence (the caller chose them).
 */
function * judgeReport (
  db: Db, pool: RotationPoolRow, member: MemberWithName, report: { path: string | null, status: number }, at: Date, maxRefusals: number
): Work<CredentialVerdict> {
  const iso = at.toISOString()
  const verdict = judgeRefusal({ path: report.path, succeededBefore: false, healthCheckPath: healthCheckPathOf(member.health_check) })
  if (verdict !== 'resource_refused' || report.path === null) return verdict
  const resource = refusedPathOf(report.path)
  if (resource.length > MAX_RESOURCE_LENGTH) return verdict
  const expiresAt = new Date(at.getTime() + refusalSeconds(report.status, pool) * 1000).toISOString()
  if ((yield * recordRefusal(db, member.provider_id, resource, iso, expiresAt, maxRefusals, report.status)) === 'learned') {
    yield * insertHistory(db, { pool_id: pool.id, ...refusalRecord(member.provider_id, resource, expiresAt, report.status), timestamp: iso })
  }
  return verdict
}

/** What a refusal of a resource alone does to the member's health: nothing (the report still counts as a failure). */
function untouched (member: MemberWithName): OutcomeEffect {
  const state = {
    consecutive_failures: member.consecutive_failures,
    cooldown_trips: member.cooldown_trips,
    cooldown_until: member.cooldown_until,
    cooldown_reason: member.cooldown_reason,
    latency_ms: member.latency_ms
  }
  return { state, cooldownStarted: null, pausedUntil: null, success: false }
}

interface Deps {
  database: WorkRunner
  now: () => Date
  events?: RotationEvents
  changes?: ChangeFeed
  /** At most this many refusals per provider (MAX_REFUSALS_PER_PROVIDER), as the proxy keeps them. */
  maxRefusalsPerProvider?: number
}

/** Builds the outcome service. */
export function createOutcomeService ({ database: handle, now, events = NO_EVENTS, changes = NO_CHANGES, maxRefusalsPerProvider = DEFAULT_MAX_REFUSALS_PER_PROVIDER }: Deps) {
  const database = unitOfWork(handle, changes)
  return {
    /** Applies one outcome report to a member and answers its new health record. */
    async report (poolId: number, input: ReportInput): Promise<MemberHealthValue> {
      let cooldown: string | null = null
      let reportedSuccess = input.success
      const record = await database.transact(function * (db): Work<MemberHealthValue> {
        // A 401/402 may teach a refusal, which every pool of the provider reads: those pools are locked (in id order) and bumped first.
        if (refusesCredentials(input.status_code)) yield * touched(db, { providers: [input.provider_id] })
        // The pool's row lock serialises reports with rotations and failovers of the pool.
        const pool = yield * findPoolForRotation(db, poolId)
        if (pool === undefined) throw poolNotFound(poolId)
        const member = yield * findMemberWithName(db, poolId, input.provider_id)
        if (member === undefined) throw new NotFoundError(`Member not found in pool ${poolId}`)
        const at = now()
        const signals = rateLimitSignals(input.status_code ?? 0, lowerCased(input.headers), at, pool.max_cooldown_seconds)
        const verdict = rejectsOurCredentials(input.status_code, pool)
          ? yield * judgeReport(db, pool, member, { path: input.path ?? null, status: input.status_code as number }, at, maxRefusalsPerProvider)
          : undefined
        const outcome = {
          ...input,
          // A client's word, like a provider's Retry-After, pauses a member for max_cooldown_seconds at most.
          retry_after_s: input.retry_after_s != null ? Math.min(input.retry_after_s, pool.max_cooldown_seconds) : signals.retryAfterS ?? null,
          pause_s: signals.pauseS ?? null,
          ...(verdict === undefined ? {} : { credentials_rejected: verdict === 'credentials_rejected' })
        }
        const effect = verdict === 'resource_refused' ? untouched(member) : applyOutcome(member, outcome, pool, at)
        const { state, cooldownStarted } = effect
        const failed = !effect.success
        const successes = failed ? 0 : 1
        const lastError = !failed ? null : input.error ?? (input.status_code != null ? `HTTP ${input.status_code}` : member.last_error)
        yield * updateMemberHealth(db, member.id, { ...state, last_error: lastError, successes, failures: 1 - successes })
        // The latency folded into the moving average also counts in its minute (activity charts).
        if (input.latency_ms != null) yield * addMemberMinutes(db, [{ memberId: member.id, minute: minuteOf(at), samples: 1, latencySum: input.latency_ms }])
        // A cooldown started or a member recovered goes into the history, as the proxy's do.
        const record = healthChangeRecord(member.provider_id, healthAt(member, at), effect, lastError, signals.source ?? null)
        if (record !== null) yield * insertHistory(db, { pool_id: poolId, ...record, timestamp: at.toISOString() })
        yield * touched(db, { pools: [poolId] })
        cooldown = cooldownStarted
        reportedSuccess = !failed
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
      events.reported(reportedSuccess)
      if (cooldown !== null) events.cooldownStarted(cooldown)
      return record
    }
  }
}

export type OutcomeService = ReturnType<typeof createOutcomeService>
