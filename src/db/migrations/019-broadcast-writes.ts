/**
 * The pool field `broadcast_writes` (issue 36 item 4), stored for any pool and read
 * by `evm` pools: 1 sends each `eth_sendRawTransaction` to every eligible member at
 * once and answers with the first acceptance (proxy/rpc-broadcast.ts); 0 (the
 * default, and what existing pools get) sends it to one. An INTEGER flag like
 * `retry_non_idempotent`, without a CHECK: the API's schema holds it to a boolean.
 */
import type { Kysely, Migration } from 'kysely'

export const broadcastWritesMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('pools').addColumn('broadcast_writes', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('pools').dropColumn('broadcast_writes').execute()
  }
}
