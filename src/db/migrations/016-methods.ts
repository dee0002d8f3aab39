/**
 * A provider's `methods` (issue 36 item 7): which JSON-RPC methods an RPC pool sends
 * it, as JSON text (`{"allow": [...], "deny": [...]}`, rules/rpc-methods.ts), or null
 * for every method. Existing providers get null: nothing they are sent changes.
 */
import type { Kysely, Migration } from 'kysely'

export const methodsMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('providers').addColumn('methods', 'text').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('providers').dropColumn('methods').execute()
  }
}
