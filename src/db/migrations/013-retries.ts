/**
 * The proxy's retry policy (issue 28): per pool, the deadline across a request's
 * attempts and waits (`deadline_ms`), the retry budget (`retry_budget_percent` of
 * first attempts over a sliding window), the backoff before a retry
 * (`retry_backoff_ms`, full jitter) and the hedging delay (`hedge_after_ms`, 0 =
 * off). And the counters the write-behind flush adds: retries made (hedges among
 * them) and requests the spent budget ended.
 */
import type { Kysely, Migration } from 'kysely'

const COLUMNS: ReadonlyArray<readonly [string, number]> = [
  ['deadline_ms', 30_000], ['retry_budget_percent', 20], ['retry_backoff_ms', 0], ['hedge_after_ms', 0],
  ['proxy_retries', 0], ['proxy_hedges', 0], ['retry_budget_exhausted', 0]
]

export const retriesMigration: Migration = {
  async up (db: Kysely<any>) {
    for (const [column, value] of COLUMNS) {
      await db.schema.alterTable('pools').addColumn(column, 'integer', (c) => c.notNull().defaultTo(value)).execute()
    }
  },
  async down (db: Kysely<any>) {
    for (const [column] of [...COLUMNS].reverse()) await db.schema.alterTable('pools').dropColumn(column).execute()
  }
}
