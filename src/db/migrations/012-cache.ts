/**
 * The response cache and the bounded wait (issue 27): per pool, how long the proxy
 * keeps an answer (`cache_ttl_seconds`, 0 = off), how long after that it may still
 * serve it as stale (`cache_stale_seconds`), and how long a request may wait for a
 * member to become eligible instead of a 503 (`max_wait_ms`). And the cache's
 * counters, added by the write-behind flush: hits, misses, stale answers, and the
 * live entry count as the last flush saw it.
 */
import type { Kysely, Migration } from 'kysely'

const COLUMNS = ['cache_ttl_seconds', 'cache_stale_seconds', 'max_wait_ms', 'cache_hits', 'cache_misses', 'cache_stale', 'cache_entries']

export const cacheMigration: Migration = {
  async up (db: Kysely<any>) {
    for (const column of COLUMNS) {
      await db.schema.alterTable('pools').addColumn(column, 'integer', (c) => c.notNull().defaultTo(0)).execute()
    }
  },
  async down (db: Kysely<any>) {
    for (const column of [...COLUMNS].reverse()) await db.schema.alterTable('pools').dropColumn(column).execute()
  }
}
