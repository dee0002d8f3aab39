/**
 * What the declared state is compared with: every provider, pool and membership,
 * read in one unit of work (inside the apply's transaction, after the pools are
 * locked, so the plan applied is the plan of what is stored then).
 */
import type { Compilable } from 'kysely'
import { lockRows } from '../db/create-db.js'
import type { Db } from '../db/types.js'
import { all, type Work } from '../db/work.js'
import { listProviders } from '../providers/provider.repository.js'
import type { Current } from './declared.rules.js'

/** Rows per statement when everything is read: the runner may let the event loop turn between pages. */
const PAGE = 2000

/** Every row `page` reads, a page at a time in id order (`page(after)`: the next PAGE rows with ids above `after`). */
function * everyRow<R extends { id: number }> (page: (after: number) => Compilable<R>): Work<R[]> {
  const rows: R[] = []
  for (let after = 0; ;) {
    const got = yield * all(page(after))
    for (const row of got) rows.push(row)
    if (got.length < PAGE) return rows
    after = (got[got.length - 1] as R).id
  }
}

/** Everything a plan compares, by id (pools and members a page at a time: tens of thousands of rows). */
export function * readCurrent (db: Db): Work<Current> {
  const providers = yield * listProviders(db)
  const pools = yield * everyRow((after) => db.selectFrom('pools').selectAll().where('id', '>', after).orderBy('id').limit(PAGE))
  const members = yield * everyRow((after) => db.selectFrom('pool_members').select(['id', 'pool_id', 'provider_id', 'priority', 'weight', 'enabled'])
    .where('id', '>', after).orderBy('id').limit(PAGE))
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
