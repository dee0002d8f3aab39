/**
 * Reading and clearing the resources a provider refuses (see refusal.repository.ts).
 */
import { recordAudit, type Actor } from '../audit/audit.js'
import type { WorkRunner } from '../db/work.js'
import { NotFoundError } from '../errors.js'
import { findProvider } from '../providers/provider.repository.js'
import { deleteRefusal, listRefusals, type RefusalRow } from './refusal.repository.js'

/** A resource as stored: its first path segment with a leading slash (`despesas` → `/despesas`). */
export function normaliseResource (resource: string): string {
  return resource.startsWith('/') ? resource : `/${resource}`
}

/** Builds the refusal service over the database's work runner and a clock. */
export function createRefusalService ({ database, now }: { database: WorkRunner, now: () => Date }) {
  return {
    /** The provider's refusals in force, by resource; 404 for an unknown provider. */
    async list (providerId: number): Promise<RefusalRow[]> {
      return await database.read(function * (db) {
        if ((yield * findProvider(db, providerId)) === undefined) throw new NotFoundError(`Provider ${providerId} not found`)
        return yield * listRefusals(db, providerId, now().toISOString())
      })
    },

    /** Forgets one refusal, so the provider serves the resource again at once. */
    async clear (providerId: number, resource: string, actor: Actor): Promise<void> {
      const at = now()
      await database.transact(function * (db) {
        if ((yield * findProvider(db, providerId)) === undefined) throw new NotFoundError(`Provider ${providerId} not found`)
        if (!(yield * deleteRefusal(db, providerId, resource, at.toISOString()))) {
          throw new NotFoundError(`Provider ${providerId} has no refusal of '${resource}'`)
        }
        yield * recordAudit(db, actor, { action: 'provider.refusal.clear', target: `provider:${providerId}`, changes: { resource }, at })
      })
    }
  }
}

export type RefusalService = ReturnType<typeof createRefusalService>
