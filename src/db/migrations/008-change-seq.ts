/**
 * The read model (pools/read-model.ts) serves a pool's status record from memory
 * until the pool changes: `change_seq` is bumped in the same transaction as every
 * write that changes what the record shows, by any process, so a reader compares
 * one integer instead of rebuilding the record.
 */
import type { Kysely, Migration } from 'kysely'

export const changeSeqMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('pools').addColumn('change_seq', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('pools').dropColumn('change_seq').execute()
  }
}
