/**
 * A provider's `max_logs_range` (issue 36 item 9): the most blocks one `eth_getLogs`
 * call may span at that provider, or null for no limit. An `evm` pool splits a wider
 * call into ranges of its members' smallest limit (proxy/rpc-logs.ts). Existing
 * providers get null: nothing they are sent changes.
 */
import type { Kysely, Migration } from 'kysely'

export const maxLogsRangeMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('providers').addColumn('max_logs_range', 'integer').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('providers').dropColumn('max_logs_range').execute()
  }
}
