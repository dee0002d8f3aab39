/**
 * Activity for charts: per minute of a window ending now, a pool's rotations and
 * failovers (counted from the history) and each current member's mean latency
 * (from `member_minutes`), or every pool's rotations and failovers at once;
 * zero-filled, one array entry per minute. Also purges the minutes past retention.
 */
import type { WorkRunner } from '../db/work.js'
import { ACTIVITY_RETENTION_MS, activityWindow, minuteOf, minutePositions } from '../rules/activity.js'
import { countMinutesByPool, countPoolMinutes, listPoolNames, type MinuteCounts } from './activity.repository.js'
import type { ActivityOverviewValue, PoolActivityValue } from './activity.schemas.js'
import { listMembers } from './member.repository.js'
import { listPoolMemberMinutes, purgeMemberMinutes } from './member-minutes.repository.js'
import { findPool } from './pool.repository.js'
import { poolNotFound } from './pool.service.js'

/** Builds the activity service. */
export function createActivityService ({ database, now }: { database: WorkRunner, now: () => Date }) {
  /** Zero-filled rotations and failovers of the window from its minutes' counts. */
  function series (length: number, positions: ReadonlyMap<string, number>, rows: readonly MinuteCounts[]) {
    const rotations = new Array<number>(length).fill(0)
    const failovers = new Array<number>(length).fill(0)
    for (const row of rows) {
      const at = positions.get(row.minute)
      if (at === undefined) continue
      rotations[at] = row.rotations
      failovers[at] = row.failovers
    }
    return { rotations, failovers }
  }

  return {
    /** The pool's activity over the last `minutes` minutes; 404 for an unknown pool. */
    async poolActivity (poolId: number, minutes: number): Promise<PoolActivityValue> {
      const window = activityWindow(now(), minutes)
      const positions = minutePositions(window)
      return await database.read(function * (db) {
        if ((yield * findPool(db, poolId)) === undefined) throw poolNotFound(poolId)
        const members = yield * listMembers(db, poolId)
        const counts = yield * countPoolMinutes(db, poolId, window.from, window.to)
        const latencies = new Map(members.map((m) => [m.id, {
          provider_id: m.provider_id,
          provider_name: m.provider_name,
          latency_ms: new Array<number | null>(minutes).fill(null),
          samples: new Array<number>(minutes).fill(0)
        }]))
        for (const row of yield * listPoolMemberMinutes(db, members.map((m) => m.id), window.from, window.to)) {
          const at = positions.get(row.minute)
          const member = latencies.get(row.member_id)
          if (at === undefined || member === undefined || row.samples <= 0) continue
          member.samples[at] = row.samples
          member.latency_ms[at] = row.latency_sum / row.samples
        }
        return { pool_id: poolId, minutes, minute_starts: [...window.minuteStarts], ...series(minutes, positions, counts), latency: [...latencies.values()] }
      })
    },

    /** Every pool's rotations and failovers over the last `minutes` minutes (one grouped query). */
    async overview (minutes: number): Promise<ActivityOverviewValue> {
      const window = activityWindow(now(), minutes)
      const positions = minutePositions(window)
      return await database.read(function * (db) {
        const pools = yield * listPoolNames(db)
        const byPool = new Map<number, MinuteCounts[]>()
        for (const row of yield * countMinutesByPool(db, window.from, window.to)) {
          let rows = byPool.get(row.pool_id)
          if (rows === undefined) byPool.set(row.pool_id, rows = [])
          rows.push(row)
        }
        return {
          minutes,
          minute_starts: [...window.minuteStarts],
          pools: pools.map((p) => ({ pool_id: p.id, name: p.name, ...series(minutes, positions, byPool.get(p.id) ?? []) }))
        }
      })
    },

    /** Deletes the minutes past retention (25 hours); a housekeeping job (app.ts runs it every minute). */
    purgeExpired: async (): Promise<void> => {
      const before = minuteOf(new Date(now().getTime() - ACTIVITY_RETENTION_MS))
      await database.transact((db) => purgeMemberMinutes(db, before))
    }
  }
}

export type ActivityService = ReturnType<typeof createActivityService>
