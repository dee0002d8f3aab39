/**
 * A refusal remembers the status that taught it (issue 34): 403 (the resource is
 * forbidden) or 401/402 (our credentials refused for that resource). Two 401/402
 * refusals of different resources are what takes a member out as
 * credentials_rejected (rules/credential-refusal.ts); refusals written before are 403s.
 */
import type { Kysely, Migration } from 'kysely'

export const refusalStatusMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('provider_refusals').addColumn('status_code', 'integer', (c) => c.notNull().defaultTo(403)).execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('provider_refusals').dropColumn('status_code').execute()
  }
}
