/**
 * Where the runtime meets `pools.change_seq` and the change feed, in one place: its
 * writes go through the unit of work (db/unit-of-work.ts), which bumps what they
 * declare and tells this process's other listeners (the read model) once they have
 * committed, without the runtime hearing its own news back. The pools of providers
 * whose refusals or quota it wrote are declared touched in a transaction of their own
 * (after a flush, or beside a quota lease: locking them inside, after the provider,
 * could deadlock with a rotation). A flush declares the pools whose counters it wrote
 * as already touched (its UPDATE moves change_seq itself: writePoolDelta). News of a
 * change committed elsewhere in this process marks the pools it concerns stale.
 */
import type { ChangeFeed, ChangeListener } from '../changes.js'
import type { Db } from '../db/types.js'
import { touched, unitOfWork } from '../db/unit-of-work.js'
import type { Work, WorkRunner } from '../db/work.js'
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
  const own = (tell: () => void) => {
    telling = true
    try {
      tell()
    } finally {
      telling = false
    }
  }
  /** The runner the runtime writes through: what a write declares is told to the feed, not back to the runtime. */
  const writer = unitOfWork(database, {
    pool: (id) => { own(() => { changes.pool(id) }) },
    provider: (id) => { own(() => { changes.provider(id) }) }
  })

  /**
   * Marks every pool of the providers changed, in a transaction of its own with
   * `alsoWrite` (given the pools, locked); a failure is logged as `failure`.
   */
  async function touchProviders (
    providerIds: readonly number[], failure = 'marking pools changed failed', alsoWrite?: (db: Db, lockedPools: readonly number[]) => Work<unknown>
  ): Promise<void> {
    try {
      await writer.transact(function * (db) {
        const pools = yield * touched(db, { providers: providerIds })
        if (alsoWrite !== undefined) yield * alsoWrite(db, pools)
      })
    } catch (error) {
      warn(error, failure)
    }
  }

  return {
    writer,
    touchProviders,

    /** After a flush wrote `batch`: refusals and quotas show in every pool of the provider, declared touched. */
    async flushed (batch: FlushBatch): Promise<void> {
      const providers = providersOf(batch)
      if (providers.length > 0) await touchProviders(providers)
    },

    close: stopListening
  }
}

export type ChangeNews = ReturnType<typeof createChangeNews>
