/**
 * Reading and clearing the resources a provider refuses (see refusal.repository.ts),
 * and the background purge of expired refusals. Clearing one declares the provider
 * touched (db/unit-of-work.ts): the change_seq of the pools it serves is bumped
 * (their runtimes choose by refusals) and the change feed told once it commits.
 */
import { recordAudit, type Actor } from '../audit/audit.js'
import { NO_CHANGES, type ChangeFeed } from '../changes.js'
import { touched, unitOfWork } from '../db/unit-of-work.js'
import type { WorkRunner } from '../db/work.js'
import { NotFoundError } from '../errors.js'
import { findProvider } from './provider.repository.js'
import { deleteRefusal, listRefusals, purgeExpiredRefusals, type RefusalRow } from './refusal.repository.js'

/** The longest resource remembered (as `/next?resource` accepts); a longer one is never recorded. */
export const MAX_RESOURCE_LENGTH = 1000

/** Refusals kept per provider unless configured (MAX_REFUSALS_PER_PROVIDER). */
export const DEFAULT_MAX_REFUSALS_PER_PROVIDER = 1000

/** A resource as stored: its first path segment with a leading slash (`despesas` → `/despesas`). */
export function normaliseResource (resource: string): string {
  return resource.startsWith('/') ? resource : `/${resource}`
}

/** Builds the refusal service over the database's work runner, a clock and the change feed. */
export function createRefusalService ({ database: handle, now, changes = NO_CHANGES }: { database: WorkRunner, now: () => Date, changes?: ChangeFeed }) {
  const database = unitOfWork(handle, changes)
  return {
    /** The provider's refusals in force, by resource; 404 for an unknown provider. */
    async list (providerId: number): Promise<RefusalRow[]> {
      return await database.read(function * (db) {
        if ((yield * findProvider(db, providerId)) === undefined) throw new NotFoundError(`Provider ${providerId} not found`)
        return yield * listRefusals(db, providerId, now().toISOString())
      })
    },

    /** Deletes every expired refusal; a housekeeping job (app.ts runs it every minute). */
    purgeExpired: async (): Promise<void> => {
      const at = now().toISOString()
      await database.transact((db) => purgeExpiredRefusals(db, at))
    },

    /** Forgets one refusal, so the provider serves the resource again at once. */
    async clear (providerId: number, resource: string, actor: Actor): Promise<void> {
      const at = now()
      await database.transact(function * (db) {
        if ((yield * findProvider(db, providerId)) === undefined) throw new NotFoundError(`Provider ${providerId} not found`)
        // Pools first, as rotations and the runtime's flush lock them before providers.
        yield * touched(db, { providers: [providerId] })
        if (!(yield * deleteRefusal(db, providerId, resource, at.toISOString()))) {
          throw new NotFoundError(`Provider ${providerId} has no refusal of '${resource}'`)
        }
        yield * recordAudit(db, actor, { action: 'provider.refusal.clear', target: `provider:${providerId}`, changes: { resource }, at })
      })
    }
  }
}

export type RefusalService = ReturnType<typeof createRefusalService>
