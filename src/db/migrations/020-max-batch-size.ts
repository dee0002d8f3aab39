/**
 * A provider's `max_batch_size` (issue 36 item 2): the most calls of one client
 * batch an RPC pool sends it as one upstream JSON-RPC batch (1 sends them one by
 * one). Existing providers get the default, 10: their calls start going in batches,
 * and a provider that refuses a batch is sent single calls from then on
 * (proxy/rpc-batch-send.ts). An INTEGER without a CHECK, as the other provider
 * fields: the API's schema holds it to 1..1000.
 */
import type { Kysely, Migration } from 'kysely'

export const maxBatchSizeMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('providers').addColumn('max_batch_size', 'integer', (c) => c.notNull().defaultTo(10)).execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('providers').dropColumn('max_batch_size').execute()
  }
}
