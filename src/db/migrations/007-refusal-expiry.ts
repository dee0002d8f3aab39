/**
 * Refusals are purged by expiry in the background (every provider's expired ones
 * at once): an index on `expires_at` keeps that purge from scanning the table.
 */
import type { Kysely, Migration } from 'kysely'

export const refusalExpiryMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.createIndex('provider_refusals_expires_at').on('provider_refusals').column('expires_at').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropIndex('provider_refusals_expires_at').execute()
  }
}
