/**
 * History retention (HISTORY_MAX_PER_POOL, HISTORY_MAX_AGE_DAYS): rotation_history
 * would otherwise grow with every rotation. A housekeeping job (app.ts) deletes each
 * pool's records beyond its newest `maxPerPool` (list order: timestamp, then id,
 * descending) and those older than `maxAgeDays`, by the injected clock.
 *
 * Never on a request's path, and never holding the database for long: at most
 * `batchSize` records per statement, each batch its own short transaction, the event
 * loop free between batches, and at most `maxBatchesPerRun` batches per run, so a
 * large backlog is worked off over several runs (SQLite has one writer at a time).
 * Deletes are by position (records at or below a cutoff), so several processes
 * pruning one database at once never delete a record that should be kept.
 */
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import type { Db } from '../db/types.js'
import { touched, unitOfWork } from '../db/unit-of-work.js'
import type { Work, WorkRunner } from '../db/work.js'
import * as repo from './history.repository.js'
import { RECENT_ROTATIONS } from './pool-status.js'

/** Records deleted per statement (and transaction). */
export const PRUNE_BATCH = 1000

/** Batches per run: 100,000 records at most, a fraction of a second of SQLite's time. */
export const MAX_BATCHES_PER_RUN = 100

/** Pools read per query when looking for work. */
const POOL_PAGE = 500

const DAY_MS = 24 * 60 * 60 * 1000

export interface HistoryRetentionDeps {
  database: WorkRunner
  now: () => Date
  /** Records kept per pool (the newest); null keeps them all. */
  maxPerPool: number | null
  /** Records older than this many days are deleted; null keeps them. */
  maxAgeDays: number | null
  /** Told of pools whose status record may have lost a record. */
  changes?: ChangeFeed
  batchSize?: number
  maxBatchesPerRun?: number
}

/** What one run did: records deleted, and whether it got through all the work it found. */
export interface PruneResult {
  deleted: number
  finished: boolean
}

/** What a run may still do; shared by both kinds of pruning. */
interface Budget {
  batches: number
  deleted: number
}

const yieldToEventLoop = async () => await new Promise((resolve) => setImmediate(resolve))

/** Builds the retention job; with both limits null, `prune` deletes nothing. */
export function createHistoryRetention ({
  database: handle, now, maxPerPool, maxAgeDays, changes = NO_CHANGES, batchSize = PRUNE_BATCH, maxBatchesPerRun = MAX_BATCHES_PER_RUN
}: HistoryRetentionDeps) {
  const database = unitOfWork(handle, changes)
  // Per pool, its newest record's id when it was last found within maxPerPool records:
  // while that is still the newest, nothing was added and the pool is skipped.
  const withinLimit = new Map<number, number>()
  let running: Promise<PruneResult> | undefined

  /** Deletes the pool's records `remove` picks, batch by batch; false when the budget ran out first. */
  async function drain (poolId: number, remove: (db: Db) => Work<number>, visible: boolean, budget: Budget): Promise<boolean> {
    while (budget.batches > 0) {
      budget.batches--
      const count = await database.transact(function * (db) {
        const count = yield * remove(db)
        // The status record shows the newest records: it must be rebuilt without this one.
        if (visible && count > 0) yield * touched(db, { pools: [poolId] })
        return count
      })
      budget.deleted += count
      await yieldToEventLoop()
      if (count < batchSize) return true
    }
    return false
  }

  async function pruneByAge (days: number, budget: Budget): Promise<boolean> {
    const before = new Date(now().getTime() - days * DAY_MS).toISOString()
    for (let after = 0; ;) {
      const pools = await database.read((db) => repo.listPoolsWithHistoryBefore(db, before, after, POOL_PAGE))
      for (const poolId of pools) {
        if (!await drain(poolId, (db) => repo.deleteHistoryBefore(db, poolId, before, batchSize), true, budget)) return false
      }
      if (pools.length < POOL_PAGE) return true
      after = pools[pools.length - 1] as number
      await yieldToEventLoop()
    }
  }

  async function pruneByCount (limit: number, budget: Budget): Promise<boolean> {
    const seen = new Set<number>()
    for (let after = 0; ;) {
      const heads = await database.read((db) => repo.listHistoryHeads(db, after, POOL_PAGE))
      for (const { pool_id: poolId, newest_id: newestId } of heads) {
        seen.add(poolId)
        if (newestId === null || withinLimit.get(poolId) === newestId) continue
        if (budget.batches === 0) return false
        const cutoff = await database.read((db) => repo.findHistoryAt(db, poolId, limit))
        // Records past the newest RECENT_ROTATIONS never show in a status record.
        const done = cutoff === undefined ||
          await drain(poolId, (db) => repo.deleteHistoryThrough(db, poolId, cutoff, batchSize), limit < RECENT_ROTATIONS, budget)
        if (!done) return false
        withinLimit.set(poolId, newestId)
      }
      if (heads.length < POOL_PAGE) break
      after = (heads[heads.length - 1] as repo.PoolHistoryHead).pool_id
      await yieldToEventLoop()
    }
    // A full pass saw every pool: forget the deleted ones and those with no history left.
    for (const poolId of withinLimit.keys()) if (!seen.has(poolId)) withinLimit.delete(poolId)
    return true
  }

  async function run (): Promise<PruneResult> {
    const budget: Budget = { batches: maxBatchesPerRun, deleted: 0 }
    let finished = true
    if (maxAgeDays !== null) finished = await pruneByAge(maxAgeDays, budget)
    if (finished && maxPerPool !== null) finished = await pruneByCount(maxPerPool, budget)
    return { deleted: budget.deleted, finished }
  }

  return {
    /**
     * One housekeeping run: deletes records over either limit, up to the run's budget;
     * what is left is deleted by the next runs. A call while a run is under way
     * waits for that run rather than starting another.
     */
    async prune (): Promise<PruneResult> {
      running ??= run().finally(() => { running = undefined })
      return await running
    }
  }
}

export type HistoryRetention = ReturnType<typeof createHistoryRetention>
