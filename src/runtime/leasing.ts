/**
 * Quota blocks leased from the database for proxied attempts (quota-leases.ts hands
 * their uses out in memory): one lease at a time per provider, committed before a use
 * of it is handed out, so the quota is never exceeded across processes. Beside its
 * request, a lease marks the provider's pools changed, or records the window used up
 * in their history (once per window across processes: recordQuotaUsedUp).
 */
import type { WorkRunner } from '../db/work.js'
import { recordQuotaUsedUp } from '../pools/history-records.repository.js'
import type { ChangeNews } from './change-news.js'
import type { QuotaLeases } from './quota-leases.js'
import { leaseQuota } from './runtime.repository.js'

/** A block of a provider's quota window to lease, and what a record of the window used up says. */
export interface QuotaBlock {
  readonly window: string
  readonly limit: number
  readonly want: number
  /** The fewest worth taking: what the call lacks (1 for requests). */
  readonly need: number
  /** What the quota counts (the record of a window used up says it). */
  readonly unit?: string
  /** The leases' drains when it was asked for (quota-leases.ts `granted`). */
  readonly drains?: number
  /** The provider's `rate_limit_per`. */
  readonly per: string | null
  readonly resetsAt: string
}

interface Deps {
  database: WorkRunner
  now: () => Date
  warn: (error: unknown, message: string) => void
  leases: QuotaLeases
  news: Pick<ChangeNews, 'touchProviders'>
  /** True while a flush is giving back quota of the provider (runtime-state.ts). */
  returning: (providerId: number) => boolean
  /** Resolves when no flush is under way (flush-loop.ts). */
  idle: () => Promise<void>
}

/** Builds the leasing of one runtime. */
export function createLeasing ({ database, now, warn, leases, news, returning, idle }: Deps) {
  const leasing = new Map<number, Promise<void>>()
  /** provider id → the quota window this process has seen recorded as used up (it asks the database once per window). */
  const exhaustionNoted = new Map<number, string>()
  /** Writes a quota lease made beside its request (awaited before a settle and at close). */
  const sideWrites = new Set<Promise<void>>()

  /**
   * Records the provider's window as used up in the history of its pools, its pools
   * locked first and marked changed; a failure is logged (the quota itself is already counted).
   */
  async function recordUsedUp (providerId: number, block: QuotaBlock): Promise<void> {
    exhaustionNoted.set(providerId, block.window)
    const usedUp = { providerId, windowStart: block.window, limit: block.limit, per: block.per, resetsAt: block.resetsAt, unit: block.unit }
    await news.touchProviders([providerId], 'recording a used-up quota window failed', (db, pools) => recordQuotaUsedUp(db, [usedUp], pools, now().toISOString()))
  }

  return {
    /** Leases a block of the provider's window (one at a time per provider). */
    async lease (providerId: number, block: QuotaBlock): Promise<void> {
      let promise = leasing.get(providerId)
      if (promise === undefined) {
        // What this process is giving back is written first: the database would otherwise be short by it (a dear call passed over in vain).
        const written = returning(providerId) ? idle() : Promise.resolve()
        promise = written.then(async () => await database.transact((db) => leaseQuota(db, providerId, block.window, block.limit, block.want, block.need)))
          .then(({ granted, usedUp, left }) => {
            leases.granted(providerId, block.window, granted, left, block.drains, block.unit)
            // The quota shows in every pool the provider serves (after the lease: see leaseQuota).
            // Written beside the request, not before it goes on: a flush starting meanwhile would
            // give the fresh block back before the request took its use from it (and the request
            // could then find the window used up by its own block).
            const side = usedUp && exhaustionNoted.get(providerId) !== block.window
              ? recordUsedUp(providerId, block)
              : granted > 0 ? news.touchProviders([providerId]) : undefined
            if (side !== undefined) {
              // Neither rejects (each logs its own failure).
              const tracked = side.finally(() => { sideWrites.delete(tracked) })
              sideWrites.add(tracked)
            }
          })
          .catch((error: unknown) => {
            // Without the database no block can be counted: the provider is out until the next flush.
            warn(error, 'quota lease failed')
            leases.granted(providerId, block.window, 0)
          })
          .finally(() => leasing.delete(providerId))
        leasing.set(providerId, promise)
      }
      await promise
    },

    /** True while a write beside a request is under way. */
    busy: (): boolean => sideWrites.size > 0,

    /** Resolves when the writes beside requests under way now are done. */
    done: async (): Promise<void> => { await Promise.all(sideWrites) }
  }
}
