/**
 * The active health checker: a few times a second each process claims the checks
 * that are due (check.repository.ts: one lease per provider and interval, whichever
 * number of processes share the database), runs at most `concurrency` of them at
 * once (probe.ts), and writes their results down in batches, each in ONE
 * transaction: the provider's streaks and last check, and its members' health in
 * every pool it serves (rules/health-check.ts), with a history row for each
 * cooldown started and each member recovered. Results are control-plane writes:
 * committed before anyone is told (the providers declared touched, db/unit-of-work.ts:
 * the change feed, then metrics). A provider is checked once per interval, not once
 * per pool.
 */
import { Agent } from 'undici'
import type { ChangeFeed } from '../changes.js'
import type { Db } from '../db/types.js'
import { touched, unitOfWork } from '../db/unit-of-work.js'
import type { Work, WorkRunner } from '../db/work.js'
import { NO_CHECK_EVENTS, NO_EVENTS, type CheckEvents, type RotationEvents } from '../metrics/metrics.js'
import { insertHistory } from '../pools/history.repository.js'
import { addMemberMinutes } from '../pools/member-minutes.repository.js'
import { foldSample, type MinuteSample } from '../rules/activity.js'
import { applyCheck, countCheck, outcomeOf, type CheckResult, type HealthCheck } from '../rules/health-check.js'
import { CHECK_FAILED, checkFailedNotes, cooldownNotes, PROVIDER_NOTES, RECOVERED } from '../rules/history-kind.js'
import { claimDueChecks, findCheckStreaks, listCheckedMembers, saveCheckStreaks, saveMemberCheck, type ClaimedCheck } from './check.repository.js'
import { probe } from './probe.js'
import { continueSkippingConnector } from '../http/interim-answers.js'

/** How often a process looks for due checks. */
export const CHECK_TICK_MS = 250

interface Deps {
  database: WorkRunner
  now: () => Date
  changes: ChangeFeed
  events?: RotationEvents
  checkEvents?: CheckEvents
  /** Checks run at once by this process. */
  concurrency: number
  warn?: (error: unknown, message: string) => void
}

interface Done {
  readonly claim: ClaimedCheck
  readonly check: HealthCheck
  readonly result: CheckResult
}

/** The last check as the API shows it. */
function lastCheckOf (result: CheckResult): string {
  return JSON.stringify({ at: result.at, ok: result.ok, status_code: result.status_code, error: result.error, latency_ms: result.latency_ms })
}

/** What went wrong, for a history note. */
function failureOf (result: CheckResult): string {
  return result.status_code !== null ? `HTTP ${result.status_code}` : result.error ?? 'no answer'
}

/**
 * Writes a batch of results down. Pools are locked first, in id order (as every
 * transaction that writes members does), then each provider (by id) and its members
 * in those pools. A result for a provider deleted since, or whose check changed
 * since, is dropped. Every result marks the provider's pools changed: their status
 * records show its `last_check` and latency. A passing check's latency, which feeds
 * each member's moving average, also counts in the member's minute (activity charts).
 */
function * writeResults (db: Db, batch: readonly Done[], at: Date): Work<{ cooldowns: number }> {
  const ordered = [...batch].sort((a, b) => a.claim.providerId - b.claim.providerId || a.result.at.localeCompare(b.result.at))
  const providers = [...new Set(ordered.map((d) => d.claim.providerId))]
  const locked = yield * touched(db, { providers })
  let cooldowns = 0
  const latencies = new Map<string, MinuteSample>()
  for (const { claim, check, result } of ordered) {
    const streaks = yield * findCheckStreaks(db, claim.providerId, claim.healthCheck)
    if (streaks === undefined) continue
    const next = countCheck(streaks, result.ok)
    if (!(yield * saveCheckStreaks(db, claim.providerId, claim.healthCheck, next, lastCheckOf(result)))) continue
    // Only members of the pools locked above: one added to another pool since waits for the next check.
    for (const member of yield * listCheckedMembers(db, claim.providerId, locked)) {
      const { state, change } = applyCheck(member, { ok: result.ok, latency_ms: result.latency_ms, failures: next.failures }, check, member, at)
      yield * saveMemberCheck(db, member.id, state)
      if (result.ok && result.latency_ms !== null) foldSample(latencies, member.id, result.at, result.latency_ms)
      if (change === 'cooldown') {
        cooldowns++
        yield * insertHistory(db, {
          pool_id: member.pool_id,
          from_provider_id: claim.providerId,
          to_provider_id: null,
          reason: 'cooldown:health_check',
          success: 0,
          notes: `${cooldownNotes(claim.providerId, state.cooldown_until)}: its health check failed ${next.failures} times in a row (${failureOf(result)})`,
          timestamp: at.toISOString(),
          until: state.cooldown_until
        })
      } else if (!result.ok && next.failures === 1) {
        // The first failure of a streak (later ones, until it passes, are the same news).
        yield * insertHistory(db, {
          pool_id: member.pool_id,
          from_provider_id: claim.providerId,
          to_provider_id: null,
          reason: CHECK_FAILED,
          success: 0,
          notes: checkFailedNotes(claim.providerId, failureOf(result)),
          timestamp: at.toISOString(),
          until: null
        })
      } else if (change === 'recovered') {
        yield * insertHistory(db, {
          pool_id: member.pool_id,
          from_provider_id: null,
          to_provider_id: claim.providerId,
          reason: RECOVERED,
          success: 1,
          notes: `${PROVIDER_NOTES}${claim.providerId} passed its health check ${check.healthy_threshold} times in a row`,
          timestamp: at.toISOString(),
          until: null
        })
      }
    }
  }
  yield * addMemberMinutes(db, [...latencies.values()])
  return { cooldowns }
}

/**
 * Writes finished checks down in batches, one transaction each: results that finish
 * while a batch is being written go into the next one.
 */
function createResultWriter ({ database, now, events, warn }: { database: WorkRunner, now: () => Date, events: RotationEvents, warn: (error: unknown, message: string) => void }) {
  let done: Done[] = []
  let writing: Promise<void> = Promise.resolve()
  let queued = false

  async function write (): Promise<void> {
    queued = false
    const batch = done
    done = []
    if (batch.length === 0) return
    try {
      const written = await database.transact((db) => writeResults(db, batch, now()))
      for (let i = 0; i < written.cooldowns; i++) events.cooldownStarted('health_check')
    } catch (error) {
      // The lease has moved on: the next check of these providers comes one interval later.
      warn(error, 'writing health check results failed')
    }
  }

  return {
    add (result: Done): void {
      done.push(result)
      if (!queued) {
        queued = true
        writing = writing.then(write)
      }
    },
    /** Resolves once every result added so far is written down (or its batch failed). */
    written: async (): Promise<void> => { await writing }
  }
}

/** Builds the checker; nothing runs until `start` (or `checkNow`). */
export function createHealthChecker ({
  database: handle, now, changes, events = NO_EVENTS, checkEvents = NO_CHECK_EVENTS, concurrency, warn = () => {}
}: Deps) {
  const database = unitOfWork(handle, changes)
  // Its own connections: a check never waits behind proxied traffic, nor holds its sockets.
  // No cap per origin (many providers may share one host): `concurrency` bounds them all.
  // A provider's unsolicited 100 Continue is skipped, as on the proxy's (http/interim-answers.ts).
  const agent = new Agent({ keepAliveTimeout: 4_000, connect: continueSkippingConnector() })
  // Aborted at close: nothing more is claimed.
  const stopping = new AbortController()
  // One per check under way, each aborted at close too: the checks end at once (shutdown never
  // waits for a provider's timeout). Each check listens to its own signal, so a busy process
  // never piles one listener per check on a shared one (Node warns past 10).
  const stops = new Set<AbortController>()
  const running = new Set<Promise<void>>()
  const results = createResultWriter({ database, now, events, warn })
  let claiming: Promise<void> | undefined
  /** The last claim took all it could: more may be due as soon as a slot frees. */
  let backlog = false
  let timer: NodeJS.Timeout | undefined
  let closing: Promise<void> | undefined

  function run (claim: ClaimedCheck): void {
    const check = JSON.parse(claim.healthCheck) as HealthCheck
    const stop = new AbortController()
    // Claimed just before close: it ends at once too.
    if (stopping.signal.aborted) stop.abort()
    stops.add(stop)
    const checking = probe(agent, claim.baseUrl, claim.authHeaders, check, now(), stop.signal).then((result) => {
      // Cut short by close: it says nothing about the provider.
      if (stopping.signal.aborted) return
      checkEvents.checked(claim.providerName, outcomeOf(result), (result.latency_ms ?? 0) / 1000)
      results.add({ claim, check, result })
    }).finally(() => {
      stops.delete(stop)
      running.delete(checking)
      if (backlog && !stopping.signal.aborted) {
        backlog = false
        // claimDue logs its own failures and never rejects.
        claimOnce().catch(() => {})
      }
    })
    running.add(checking)
  }

  async function claimDue (): Promise<void> {
    const free = concurrency - running.size
    if (free <= 0 || stopping.signal.aborted) {
      backlog = free <= 0
      return
    }
    try {
      const claimed = await database.transact((db) => claimDueChecks(db, now(), free))
      for (const claim of claimed) run(claim)
      if (claimed.length === free) backlog = true
    } catch (error) {
      warn(error, 'claiming health checks failed')
    }
  }

  /** One claim at a time in this process. */
  function claimOnce (): Promise<void> {
    claiming ??= claimDue().finally(() => { claiming = undefined })
    return claiming
  }

  /** Resolves once no claim and no check is under way and every result is written down. */
  async function drained (): Promise<void> {
    // A check that ends may claim the next due one (backlog): wait for that too.
    for (let current = claiming; current !== undefined || running.size > 0; current = claiming) {
      await current
      await Promise.all(running)
    }
    await results.written()
  }

  return {
    /** Looks for due checks every CHECK_TICK_MS. */
    start (): void {
      if (timer !== undefined || stopping.signal.aborted) return
      timer = setInterval(() => { claimOnce().catch(() => {}) }, CHECK_TICK_MS)
      timer.unref()
    },

    /** Claims what is due now, and waits until every check under way is run and written down. */
    async checkNow (): Promise<void> {
      await claiming
      await claimOnce()
      await drained()
    },

    /** Stops claiming, aborts the checks under way (their results are dropped) and writes down those that ended. */
    async close (): Promise<void> {
      closing ??= (async () => {
        if (timer !== undefined) clearInterval(timer)
        stopping.abort()
        for (const stop of stops) stop.abort()
        await drained()
        await agent.close()
      })()
      await closing
    }
  }
}

export type HealthChecker = ReturnType<typeof createHealthChecker>
