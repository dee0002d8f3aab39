/**
 * Resources a provider refuses (it answered 403 for them: a first path segment; or
 * 401/402 to our credentials: an exact path, rules/credential-refusal.ts), each remembered with that status until
 * it expires, at most a set number per provider: plain generator functions taking
 * the query builder first.
 */
import type { Selectable } from 'kysely'
import { lockRows } from '../db/create-db.js'
import type { Db, ProviderRefusalTable } from '../db/types.js'
import { all, execute, first, type Work } from '../db/work.js'

export type RefusalRow = Selectable<ProviderRefusalTable>

/**
 * Records (or renews) a refusal of `resource` by the provider until `expiresAt`,
 * taught by `statusCode` (the newest refusal's status stands),
 * keeping at most `max` of its refusals: when a new one would exceed that, the
 * provider's expired refusals are deleted first, then those that expire soonest.
 * The provider's row is locked first, so concurrent records count one after the
 * other. Answers `learned` when no refusal of the resource was in force at `at`
 * (the first to record it, of every process), `renewed` when one was, `gone` (nothing
 * recorded) when the provider no longer exists.
 */
export function * recordRefusal (
  db: Db, providerId: number, resource: string, at: string, expiresAt: string, max: number, statusCode = 403
): Work<'learned' | 'renewed' | 'gone'> {
  const provider = yield * first(lockRows(db, db.selectFrom('providers').select('id').where('id', '=', providerId)))
  if (provider === undefined) return 'gone'
  const known = yield * first(db.selectFrom('provider_refusals').select(['resource', 'expires_at']).where('provider_id', '=', providerId).where('resource', '=', resource))
  if (known === undefined) {
    const counted = yield * first(db.selectFrom('provider_refusals').select((eb) => eb.fn.countAll().as('n')).where('provider_id', '=', providerId))
    let count = Number(counted?.n ?? 0)
    if (count >= max) {
      count -= (yield * all(db.deleteFrom('provider_refusals').where('provider_id', '=', providerId).where('expires_at', '<=', at).returning('resource'))).length
    }
    if (count >= max) {
      yield * execute(db.deleteFrom('provider_refusals').where('provider_id', '=', providerId).where('resource', 'in',
        db.selectFrom('provider_refusals').select('resource').where('provider_id', '=', providerId).orderBy('expires_at').orderBy('resource').limit(count - max + 1)))
    }
  }
  yield * execute(db.insertInto('provider_refusals')
    .values({ provider_id: providerId, resource, first_seen: at, last_seen: at, expires_at: expiresAt, status_code: statusCode })
    .onConflict((oc) => oc.columns(['provider_id', 'resource']).doUpdateSet({ last_seen: at, expires_at: expiresAt, status_code: statusCode })))
  return known !== undefined && known.expires_at > at ? 'renewed' : 'learned'
}

/** Deletes every refusal (of any provider) expired at `at`. */
export function * purgeExpiredRefusals (db: Db, at: string): Work<void> {
  yield * execute(db.deleteFrom('provider_refusals').where('expires_at', '<=', at))
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

/** Forgets the provider's refusals of our credentials (401/402): its credentials changed, the new ones deserve a try. */
export function * deleteCredentialRefusals (db: Db, providerId: number): Work<void> {
  yield * execute(db.deleteFrom('provider_refusals').where('provider_id', '=', providerId).where('status_code', 'in', [401, 402]))
}

/** Forgets a refusal; false when there was none in force. */
export function * deleteRefusal (db: Db, providerId: number, resource: string, at: string): Work<boolean> {
  const row = yield * first(db.deleteFrom('provider_refusals')
    .where('provider_id', '=', providerId).where('resource', '=', resource).returning('expires_at'))
  return row !== undefined && row.expires_at > at
}
