/**
 * The four pool fields an `evm` pool reads (issue 36 items 5 and 6), stored for any
 * pool: `finality_depth` (blocks below the highest head taken as final where a node
 * has no `finalized` tag, default 64), `cache_unfinalized_ms` (how long an answer
 * that may still change is stored, default 0: shared while in flight, not stored),
 * `head_check_interval_s` (how often each member's head is asked, default 5) and
 * `max_block_lag` (blocks a member may be behind the highest head and still answer
 * at `latest`, default 5). Existing pools get the defaults. Integers without a
 * CHECK, as the other policy fields: the API's schema holds the bounds.
 */
import type { Kysely, Migration } from 'kysely'

const COLUMNS: ReadonlyArray<readonly [string, number]> = [
  ['finality_depth', 64], ['cache_unfinalized_ms', 0], ['head_check_interval_s', 5], ['max_block_lag', 5]
]

export const evmFieldsMigration: Migration = {
  async up (db: Kysely<any>) {
    for (const [column, value] of COLUMNS) {
      await db.schema.alterTable('pools').addColumn(column, 'integer', (c) => c.notNull().defaultTo(value)).execute()
    }
  },
  async down (db: Kysely<any>) {
    for (const [column] of [...COLUMNS].reverse()) await db.schema.alterTable('pools').dropColumn(column).execute()
  }
}
