/**
 * Health-aware rotation: per-pool cooldown policy, per-member health state,
 * and per-provider quotas (fixed windows).
 */
import type { Kysely, Migration } from 'kysely'

export const healthMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('pools').addColumn('failure_threshold', 'integer', (c) => c.notNull().defaultTo(3)).execute()
    await db.schema.alterTable('pools').addColumn('cooldown_seconds', 'integer', (c) => c.notNull().defaultTo(30)).execute()
    await db.schema.alterTable('pools').addColumn('max_cooldown_seconds', 'integer', (c) => c.notNull().defaultTo(300)).execute()
    await db.schema.alterTable('pools').addColumn('all_down', 'text', (c) => c.notNull().defaultTo('soonest')).execute()

    await db.schema.alterTable('pool_members').addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0)).execute()
    // Consecutive cooldowns without a success in between: the next one lasts cooldown_seconds × 2^trips.
    await db.schema.alterTable('pool_members').addColumn('cooldown_trips', 'integer', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('pool_members').addColumn('cooldown_until', 'text').execute()
    await db.schema.alterTable('pool_members').addColumn('cooldown_reason', 'text').execute()
    await db.schema.alterTable('pool_members').addColumn('latency_ms', 'real').execute()
    await db.schema.alterTable('pool_members').addColumn('last_error', 'text').execute()

    await db.schema.alterTable('providers').addColumn('rate_limit_requests', 'integer').execute()
    await db.schema.alterTable('providers').addColumn('rate_limit_per', 'text').execute()
    await db.schema.alterTable('providers').addColumn('quota_window_start', 'text').execute()
    await db.schema.alterTable('providers').addColumn('quota_used', 'integer', (c) => c.notNull().defaultTo(0)).execute()
  },
  async down (db: Kysely<any>) {
    for (const column of ['failure_threshold', 'cooldown_seconds', 'max_cooldown_seconds', 'all_down']) {
      await db.schema.alterTable('pools').dropColumn(column).execute()
    }
    for (const column of ['consecutive_failures', 'cooldown_trips', 'cooldown_until', 'cooldown_reason', 'latency_ms', 'last_error']) {
      await db.schema.alterTable('pool_members').dropColumn(column).execute()
    }
    for (const column of ['rate_limit_requests', 'rate_limit_per', 'quota_window_start', 'quota_used']) {
      await db.schema.alterTable('providers').dropColumn(column).execute()
    }
  }
}
