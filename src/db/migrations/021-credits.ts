/**
 * Quota in credits (issue 36 item 8): a provider's `rate_limit_unit`, what its
 * `rate_limit_requests` limit counts (`requests`, the default and what every existing
 * quota counts, or `credits`), and its `method_costs`, JSON text of what each
 * JSON-RPC method costs in credits (rules/method-costs.ts), or null (every call 1).
 * Existing providers keep their quota, its counter and window as they were.
 */
import type { Kysely, Migration } from 'kysely'

export const creditsMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('providers').addColumn('rate_limit_unit', 'text', (c) => c.notNull().defaultTo('requests')).execute()
    await db.schema.alterTable('providers').addColumn('method_costs', 'text').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('providers').dropColumn('method_costs').execute()
    await db.schema.alterTable('providers').dropColumn('rate_limit_unit').execute()
  }
}
