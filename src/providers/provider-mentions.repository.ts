/**
 * The pools whose status record shows a provider by name: it is a member, the
 * current provider, or named in one of the pool's newest history records. A
 * provider's rename or deletion changes each of those records, not only its
 * members' (provider.repository.ts `touchPoolsOfProvider` covers quotas and
 * credentials, which show through memberships alone).
 */
import { lockRows } from '../db/create-db.js'
import { prepared } from '../db/prepared.js'
import type { Db } from '../db/types.js'
import { all, type Work } from '../db/work.js'
import { touchPools } from './provider.repository.js'

/**
 * How many of a pool's newest history records its status record shows
 * (pools/pool-status.ts takes it from here: pools may read providers, not the reverse).
 */
export const RECENT_ROTATIONS_SHOWN = 10

// Selected in id order and locked (PostgreSQL) before they are bumped: see touchPools.
const poolsShowing = prepared((db, p: { providerId: number }) => lockRows(db, db.selectFrom('pools')
  .select('id')
  .where((eb) => eb.or([
    eb('current_provider_id', '=', p.providerId),
    eb('id', 'in', eb.selectFrom('pool_members').select('pool_id').where('provider_id', '=', p.providerId)),
    // Only the records a status record shows: one short walk of the (pool_id, timestamp, id)
    // index per pool, however long the history.
    eb.exists(eb.selectFrom('rotation_history as shown')
      .select('shown.id')
      .where('shown.id', 'in', eb.selectFrom('rotation_history as newest')
        .select('newest.id')
        .whereRef('newest.pool_id', '=', 'pools.id')
        .orderBy('newest.timestamp', 'desc').orderBy('newest.id', 'desc')
        .limit(RECENT_ROTATIONS_SHOWN))
      .where((inner) => inner.or([
        inner('shown.from_provider_id', '=', p.providerId),
        inner('shown.to_provider_id', '=', p.providerId)
      ])))
  ]))
  .orderBy('id')))

/**
 * Marks changed (pools.change_seq, migration 008) every pool whose status record
 * shows the provider: call it in the transaction of a rename or, before the row
 * goes, of a deletion (deleting it clears memberships and the current provider).
 */
export function * touchPoolsShowingProvider (db: Db, providerId: number): Work<void> {
  yield * touchPools(db, (yield * all(poolsShowing(db, { providerId }))).map((row) => row.id))
}
