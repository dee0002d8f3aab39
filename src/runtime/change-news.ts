/**
 * Where the runtime meets `pools.change_seq` and the change feed, in one place. The
 * pools of providers whose refusals or quota it wrote are marked changed in a
 * transaction of their own (after a flush, or beside a quota lease: locking them
 * inside, after the provider, could deadlock with a rotation); after a flush, this
 * process's other listeners (the read model) are told what it wrote; news of a change
 * committed elsewhere in this process marks the pools it concerns stale, and the
 * runtime's own news it ignores. (A flush also bumps the change_seq of each pool it
 * writes counters to, in the same statement: runtime.repository.ts writePoolDelta.)
 */
import type { ChangeFeed, ChangeListener } from '../changes.js'
import type { Db } from '../db/types.js'
import type { Work, WorkRunner } from '../db/work.js'
import { touchPoolsOfProviders } from '../providers/provider.repository.js'
import { providersOf, type FlushBatch } from './batch.js'

interface Deps {
  database: WorkRunner
  changes: ChangeFeed
  warn: (error: unknown, message: string) => void
  /** What a change told by another part of this process does to the runtime's state. */
  markChanged: ChangeListener
}

/** Starts following the feed; `close` stops. */
export function createChangeNews ({ database, changes, warn, markChanged }: Deps) {
  /** True while the runtime tells the feed about its own writes. */
  let telling = false
  const stopListening = changes.listen((change) => { if (!telling) markChanged(change) })

  /**
   * Marks every pool of the providers changed, in a transaction of its own with
   * `alsoWrite` (given the pools, locked); a failure is logged as `failure`.
   */
  async function touchProviders (
    providerIds: readonly number[], failure = 'marking pools changed failed', alsoWrite?: (db: Db, lockedPools: readonly number[]) => Work<unknown>
  ): Promise<void> {
    try {
      await database.transact(function * (db) {
        const pools = yield * touchPoolsOfProviders(db, providerIds)
        if (alsoWrite !== undefined) yield * alsoWrite(db, pools)
      })
    } catch (error) {
      warn(error, failure)
    }
  }

  return {
    touchProviders,

    /** After a flush wrote `batch`: refusals and quotas show in every pool of the provider, marked changed; then the feed is told. */
    async flushed (batch: FlushBatch): Promise<void> {
      const providers = providersOf(batch)
      if (providers.length > 0) await touchProviders(providers)
      telling = true
      try {
        for (const id of batch.pools.keys()) changes.pool(id)
        for (const providerId of providers) changes.provider(providerId)
      } finally {
        telling = false
      }
    },

    close: stopListening
  }
}

export type ChangeNews = ReturnType<typeof createChangeNews>
