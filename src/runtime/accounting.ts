/**
 * What proxied attempts did, counted in the runtime's memory (runtime-state.ts) and
 * added to what the next flush writes (batch.ts): a use of the chosen member (a
 * failover into the history when an attempt failed before it), each outcome folded
 * into the member's health and counters (a cooldown started or a member recovered
 * into the history), refusals learned, and the attempts in flight per member
 * (least_outstanding). A failed connection opens the member's probe gate
 * (probe-gates.ts); a probe that answers ends a cooldown its failures started, at
 * once and for every request of this process.
 */
import { NO_EVENTS, type RotationEvents } from '../metrics/metrics.js'
import { MAX_RESOURCE_LENGTH } from '../providers/refusal.service.js'
import { foldSample } from '../rules/activity.js'
import { refusesCredentials } from '../rules/credential-refusal.js'
import { applyOutcome, healthAt, healthChangeRecord, isPlainSuccess, latencyAfter, type HealthState, type Outcome } from '../rules/health.js'
import { hedgeRecord } from '../rules/history-kind.js'
import { memberPendingOf, poolPendingOf, type Pending, type PendingMember } from './batch.js'
import type { Member, RuntimeState } from './runtime-state.js'

/** The attempt that failed before this choice: the choice is then a failover, recorded in the history. */
export interface FailedAttempt {
  readonly providerId: number
  /** `proxy:<why>`, as the history shows it. */
  readonly reason: string
}

interface Deps {
  now: () => Date
  events?: RotationEvents
  memory: Pick<RuntimeState, 'pools' | 'inFlight' | 'pending' | 'probes'>
}

/** A member's health as the fold reads it (rules/health.ts HealthState), and nothing else of it. */
function healthOf (member: Member): HealthState {
  return {
    consecutive_failures: member.consecutive_failures,
    cooldown_trips: member.cooldown_trips,
    cooldown_until: member.cooldown_until,
    cooldown_reason: member.cooldown_reason,
    latency_ms: member.latency_ms
  }
}

/**
 * A plain success of a member with a clean health (rules/health.ts isPlainSuccess):
 * its latency and counters, as the whole fold would leave them, without its objects.
 */
function foldPlainSuccess (member: Member, delta: PendingMember, pending: Pending, at: Date, latencyMs: number | null | undefined): void {
  member.latency_ms = latencyAfter(member.latency_ms, latencyMs)
  member.last_error = null
  // Kept until written, as in the fold: the flush clears the stored cooldown a probe ended early.
  const ended = delta.health?.ended_cooldown
  const health = { consecutive_failures: 0, cooldown_trips: 0, cooldown_until: null, cooldown_reason: null, latency_ms: member.latency_ms, last_error: null }
  delta.health = ended === undefined ? health : { ...health, ended_cooldown: ended }
  if (latencyMs != null) foldSample(pending.latencies, member.id, at, latencyMs)
  member.success_count++
  delta.successes++
}

/** Sets the provider's refusal of `resource` to end at `expiresAt`. */
function refuse (refusals: Map<number, Map<string, string>>, providerId: number, resource: string, expiresAt: string): void {
  let byResource = refusals.get(providerId)
  if (byResource === undefined) refusals.set(providerId, byResource = new Map())
  byResource.set(resource, expiresAt)
}

/** Builds the accounting of one runtime. */
export function createAccounting ({ now, events = NO_EVENTS, memory }: Deps) {
  const { pools, inFlight, probes } = memory

  return {
    /** Counts a use of `member`, chosen at `at` (ISO) for an attempt, after `failed` when one failed before it. */
    chosen (poolId: number, member: Member, at: string, degraded: boolean, failed: FailedAttempt | undefined): void {
      const pending = memory.pending()
      member.use_count++
      member.last_used = at
      inFlight.set(member.id, (inFlight.get(member.id) ?? 0) + 1)
      const memberDelta = memberPendingOf(pending, poolId, member.id)
      memberDelta.uses++
      memberDelta.lastUsed = at
      const poolDelta = poolPendingOf(pending, poolId)
      poolDelta.rotations++
      poolDelta.currentProviderId = member.provider_id
      poolDelta.lastRotation = at
      if (failed !== undefined) {
        pending.history.push({ kind: 'failover', poolId, failedProviderId: failed.providerId, chosen: { providerId: member.provider_id, degraded }, reason: failed.reason, at })
      }
      events.rotated(poolId, member.provider_name)
    },

    /**
     * Folds one attempt's outcome into the member's health and counters, in memory;
     * a cooldown started or a member recovered goes into the history. A member
     * removed meanwhile has nothing to report to. `connect_failed`: the attempt
     * failed at the connection (proxy/attempt.ts failedToConnect).
     */
    report (
      poolId: number, providerId: number,
      outcome: Outcome & { readonly error?: string | null, readonly pause_source?: string | null, readonly connect_failed?: boolean }
    ): void {
      const state = pools.get(poolId)
      const member = state?.members.find((m) => m.provider_id === providerId)
      if (state === undefined || member === undefined) return
      const pending = memory.pending()
      const at = now()
      const connectFailed = outcome.connect_failed === true
      const delta = memberPendingOf(pending, poolId, member.id)
      if (!connectFailed && probes.empty() && isPlainSuccess(member, outcome, state.pool)) {
        foldPlainSuccess(member, delta, pending, at, outcome.latency_ms)
        poolPendingOf(pending, poolId)
        events.reported(true)
        return
      }
      // Kept until written: the flush clears the stored cooldown a probe ended early (runtime.repository.ts writeMemberDelta).
      let ended = delta.health?.ended_cooldown
      // A probe that answered: its cooldown ends now (the fold reads the member as probing, so it recovers, into the history).
      if ((connectFailed || !probes.empty()) && probes.reported(member, connectFailed, outcome.success, at.getTime()) && healthAt(member, at) === 'cooling_down') {
        ended = member.cooldown_until as string
        member.cooldown_until = at.toISOString()
      }
      const before = healthAt(member, at)
      // The health fields alone go through the fold (not the whole member, which its
      // unchanged cases would copy field by field, twice, for every failure).
      const effect = applyOutcome(healthOf(member), outcome, state.pool, at)
      const { state: health, cooldownStarted } = effect
      const lastError = effect.success ? null : outcome.error ?? (outcome.status_code != null ? `HTTP ${outcome.status_code}` : member.last_error)
      // The fold's state holds the five health fields alone (it was given nothing else).
      Object.assign(member, health, { last_error: lastError })
      delta.health = ended === undefined ? { ...health, last_error: lastError } : { ...health, last_error: lastError, ended_cooldown: ended }
      // The latency folded into the moving average also counts in its minute (activity charts).
      if (outcome.latency_ms != null) foldSample(pending.latencies, member.id, at, outcome.latency_ms)
      if (effect.success) {
        member.success_count++
        delta.successes++
      } else {
        member.failure_count++
        delta.failures++
      }
      poolPendingOf(pending, poolId)
      const record = healthChangeRecord(providerId, before, effect, lastError, outcome.pause_source ?? null)
      if (record !== null) pending.history.push({ kind: 'health', poolId, record, at: at.toISOString() })
      if (cooldownStarted !== null) events.cooldownStarted(cooldownStarted)
      events.reported(effect.success)
    },

    /**
     * Remembers that the provider refuses `resource` for `ttlSeconds` (it answered
     * `statusCode`: 403, or 401/402 to our credentials), in every pool it serves here
     * at once and in the database at the next flush (its history record in `poolId`,
     * whose request met it).
     */
    learnRefusal (poolId: number, providerId: number, resource: string, ttlSeconds: number, statusCode = 403): void {
      if (resource.length > MAX_RESOURCE_LENGTH) return
      const at = now()
      const expiresAt = new Date(at.getTime() + ttlSeconds * 1000).toISOString()
      for (const state of pools.values()) {
        if (!state.members.some((m) => m.provider_id === providerId)) continue
        // The newest refusal sets the end, and its status, as the database's upsert does:
        // a 401/402 refuses its exact path (`rejections`), a 403 a resource (`refusals`).
        const [kept, other] = refusesCredentials(statusCode) ? [state.rejections, state.refusals] : [state.refusals, state.rejections]
        refuse(kept, providerId, resource, expiresAt)
        other.get(providerId)?.delete(resource)
      }
      memory.pending().refusals.push({ poolId, providerId, resource, at: at.toISOString(), expiresAt, statusCode })
    },

    /**
     * Counts what the response cache did for one proxied request of the pool (a hit
     * or a stale answer spent no upstream call; a miss went upstream), and, when
     * known, how many entries the pool now has. Written down by the next flush.
     */
    cacheCounted (poolId: number, result: 'hit' | 'miss' | 'stale' | null, entries?: number): void {
      const delta = poolPendingOf(memory.pending(), poolId)
      if (result === 'hit') delta.cacheHits++
      else if (result === 'miss') delta.cacheMisses++
      else if (result === 'stale') delta.cacheStale++
      if (entries !== undefined) delta.cacheEntries = entries
    },

    /**
     * Counts what the retry policy did for one proxied request of the pool: `retries`
     * (attempts after its first, hedges among them), `hedges`, and whether a spent
     * budget ended it. A hedge that won (`won`: the slow provider and the winner)
     * goes into the history. Written down by the next flush.
     */
    retriesCounted (poolId: number, counts: { readonly retries: number, readonly hedges: number, readonly exhausted: boolean }, won?: { slow: number, winner: number, afterMs: number }): void {
      if (counts.retries === 0 && !counts.exhausted && won === undefined) return
      const pending = memory.pending()
      const delta = poolPendingOf(pending, poolId)
      delta.retries += counts.retries
      delta.hedges += counts.hedges
      if (counts.exhausted) delta.budgetExhausted++
      if (won !== undefined) pending.history.push({ kind: 'hedge', poolId, record: hedgeRecord(won.slow, won.winner, won.afterMs), at: now().toISOString() })
    },

    /** Ends an attempt `choose` handed out (its answer is complete, or it failed). */
    release (memberId: number): void {
      probes.released(memberId)
      const count = inFlight.get(memberId)
      if (count === undefined) return
      if (count <= 1) inFlight.delete(memberId)
      else inFlight.set(memberId, count - 1)
    }
  }
}

export type Accounting = ReturnType<typeof createAccounting>
