/**
 * What the declared state is compared with: every provider, pool and membership,
 * read in one unit of work (inside the apply's transaction, after the pools are
 * locked, so the plan applied is the plan of what is stored then).
 */
import { lockRows } from '../db/create-db.js'
import type { Db } from '../db/types.js'
import { all, type Work } from '../db/work.js'
import { listProviders } from '../providers/provider.repository.js'
import type { Current } from './declared.rules.js'

/** Everything a plan compares, by id. */
export function * readCurrent (db: Db): Work<Current> {
  const providers = yield * listProviders(db)
  const pools = yield * all(db.selectFrom('pools').selectAll().orderBy('id'))
  const members = yield * all(db.selectFrom('pool_members').select(['id', 'pool_id', 'provider_id', 'priority', 'weight', 'enabled']).orderBy('id'))
  return { providers, pools, members }
}

/**
 * Locks every pool, in id order, as the first thing an apply does: it may write any
 * pool, provider and member, and every transaction that writes them locks pools
 * first, in that order (no deadlock with rotations, reports or flushes).
 */
export function * lockAllPools (db: Db): Work<void> {
  yield * all(lockRows(db, db.selectFrom('pools').select('id').orderBy('id')))
}
