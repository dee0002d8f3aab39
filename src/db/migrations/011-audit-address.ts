/**
 * The client's address in each audit record (`client_address`): who made a change
 * is a token's name, and where from is the address the request came from (behind
 * a trusted front door, the one it reported). Null for records written before, and
 * for changes made outside a request (CONFIG_FILE at start).
 */
import type { Kysely, Migration } from 'kysely'

export const auditAddressMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('audit_log').addColumn('client_address', 'text').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('audit_log').dropColumn('client_address').execute()
  }
}
