/**
 * Provider rows: plain generator functions taking the query builder first,
 * run by the database's work runner (db/work.ts).
 */
import type { Insertable, Selectable, Updateable } from 'kysely'
import { prepared } from '../db/prepared.js'
import type { Db, ProviderTable } from '../db/types.js'
import { all, first, type Work } from '../db/work.js'

export type ProviderRow = Selectable<ProviderTable>

/** Inserts a provider and returns its row. */
export function * insertProvider (db: Db, row: Insertable<ProviderTable>): Work<ProviderRow> {
  return (yield * first(db.insertInto('providers').values(row).returningAll())) as ProviderRow
}

/** The provider with `id`, or undefined. */
export function * findProvider (db: Db, id: number): Work<ProviderRow | undefined> {
  return yield * first(db.selectFrom('providers').selectAll().where('id', '=', id))
}

/** The names of the providers among `ids` that exist. */
export function * findProviderNames (db: Db, ids: readonly number[]): Work<Map<number, string>> {
  if (ids.length === 0) return new Map()
  const rows = yield * all(db.selectFrom('providers').select(['id', 'name']).where('id', 'in', ids))
  return new Map(rows.map((r) => [r.id, r.name]))
}

/** Providers by id: `limit` of them after skipping `offset` (every one when `limit` is undefined). */
export function * listProviders (db: Db, page: { offset: number, limit?: number } = { offset: 0 }): Work<ProviderRow[]> {
  let query = db.selectFrom('providers').selectAll().orderBy('id')
  // SQLite takes an OFFSET only after a LIMIT.
  if (page.limit !== undefined || page.offset > 0) query = query.limit(page.limit ?? Number.MAX_SAFE_INTEGER)
  if (page.offset > 0) query = query.offset(page.offset)
  return yield * all(query)
}

/** How many providers there are. */
export function * countProviders (db: Db): Work<number> {
  const row = yield * first(db.selectFrom('providers').select((eb) => eb.fn.countAll<number | string>().as('count')))
  return Number(row?.count ?? 0)
}

/** Applies `changes` and returns the new row, or undefined when there is no such provider. */
export function * updateProvider (db: Db, id: number, changes: Updateable<ProviderTable>): Work<ProviderRow | undefined> {
  return yield * first(db.updateTable('providers').set(changes).where('id', '=', id).returningAll())
}

/** Deletes a provider (its memberships go with it); returns the deleted row. */
export function * deleteProvider (db: Db, id: number): Work<ProviderRow | undefined> {
  return yield * first(db.deleteFrom('providers').where('id', '=', id).returningAll())
}

const takeQuota = prepared((db, p: { id: number, windowStart: string, cost: number, most: number }) => db.updateTable('providers')
  .set((eb) => ({
    quota_used: eb.case().when('quota_window_start', '=', p.windowStart).then(eb('quota_used', '+', p.cost)).else(p.cost).end(),
    quota_window_start: p.windowStart
  }))
  .where('id', '=', p.id)
  .where((eb) => eb.or([
    eb('quota_window_start', 'is', null),
    eb('quota_window_start', '<>', p.windowStart),
    // `most`: the limit less the cost (a prepared query's parameters are filled in, never computed).
    eb('quota_used', '<=', p.most)
  ]))
  .returning('quota_used'))

/**
 * Counts one use (`cost`: a request, or the credits one costs) against the provider's
 * quota in the window starting at `windowStart`; answers the window's uses counted
 * now, or undefined when fewer than `cost` were left. One conditional UPDATE, so
 * processes sharing a database never hand out more than `limit`.
 */
export function * consumeQuota (db: Db, id: number, windowStart: string, limit: number, cost = 1): Work<number | undefined> {
  return (yield * first(takeQuota(db, { id, windowStart, cost, most: limit - cost })))?.quota_used
}

/**
 * Claims the recording of the provider's quota window (by its start) as used up:
 * true for the first transaction to ask in that window, across processes; false
 * after (or when the provider is gone).
 */
export function * claimQuotaExhaustion (db: Db, id: number, windowStart: string): Work<boolean> {
  return (yield * first(db.updateTable('providers').set({ quota_exhausted_window: windowStart })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('quota_exhausted_window', 'is', null), eb('quota_exhausted_window', '<>', windowStart)]))
    .returning('id'))) !== undefined
}

/**
 * Ends the provider's cooldowns for rejected credentials in every pool (its
 * credentials were just changed: the new ones deserve a try). Answers how many ended.
 */
export function * endCredentialCooldowns (db: Db, providerId: number): Work<number> {
  const rows = yield * all(db.updateTable('pool_members')
    .set({ cooldown_until: null, cooldown_reason: null, consecutive_failures: 0 })
    .where('provider_id', '=', providerId)
    .where('cooldown_reason', '=', 'credentials_rejected')
    .returning('id'))
  return rows.length
}
