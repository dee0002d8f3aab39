/**
 * Resources a provider refuses (it answered 403 for them), each remembered until
 * it expires: plain generator functions taking the query builder first.
 */
import type { Selectable } from 'kysely'
import type { Db, ProviderRefusalTable } from '../db/types.js'
import { all, execute, first, type Work } from '../db/work.js'

export type RefusalRow = Selectable<ProviderRefusalTable>

/** Records (or renews) a refusal of `resource` by the provider until `expiresAt`. */
export function * recordRefusal (db: Db, providerId: number, resource: string, at: string, expiresAt: string): Work<void> {
  yield * execute(db.insertInto('provider_refusals')
    .values({ provider_id: providerId, resource, first_seen: at, last_seen: at, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['provider_id', 'resource']).doUpdateSet({ last_seen: at, expires_at: expiresAt })))
}

/** The refusals of `resource` among `providerIds` still in force at `at`. */
export function * activeRefusalsOf (db: Db, providerIds: readonly number[], resource: string, at: string): Work<RefusalRow[]> {
  if (providerIds.length === 0) return []
  return yield * all(db.selectFrom('provider_refusals').selectAll()
    .where('resource', '=', resource).where('expires_at', '>', at).where('provider_id', 'in', providerIds))
}

/** The provider's refusals still in force at `at`, by resource. */
export function * listRefusals (db: Db, providerId: number, at: string): Work<RefusalRow[]> {
  return yield * all(db.selectFrom('provider_refusals').selectAll()
    .where('provider_id', '=', providerId).where('expires_at', '>', at).orderBy('resource'))
}

/** Forgets a refusal; false when there was none in force. */
export function * deleteRefusal (db: Db, providerId: number, resource: string, at: string): Work<boolean> {
  const row = yield * first(db.deleteFrom('provider_refusals')
    .where('provider_id', '=', providerId).where('resource', '=', resource).returning('expires_at'))
  return row !== undefined && row.expires_at > at
}
