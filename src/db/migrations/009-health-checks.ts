/**
 * Active health checks (rules/health-check.ts): a provider's check settings, its
 * lease (`check_due_at`: the next time any process may check it, claimed with one
 * conditional UPDATE so processes sharing the database check it once per interval),
 * its passing/failing streaks and its last result; and per member, the passing
 * checks counted since its cooldown started, with the cooldown they were counted
 * for (a new cooldown, started by anyone, starts the count again). The index serves the scheduler's
 * "which checks are due" query, run a few times a second by every process.
 */
import type { Kysely, Migration } from 'kysely'

export const healthChecksMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('providers').addColumn('health_check', 'text').execute()
    await db.schema.alterTable('providers').addColumn('check_due_at', 'text').execute()
    await db.schema.alterTable('providers').addColumn('check_passes', 'integer', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('providers').addColumn('check_failures', 'integer', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('providers').addColumn('last_check', 'text').execute()
    await db.schema.alterTable('pool_members').addColumn('check_passes', 'integer', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('pool_members').addColumn('check_passes_for', 'text').execute()
    await db.schema.createIndex('providers_check_due_at').on('providers').column('check_due_at').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropIndex('providers_check_due_at').execute()
    await db.schema.alterTable('pool_members').dropColumn('check_passes_for').execute()
    await db.schema.alterTable('pool_members').dropColumn('check_passes').execute()
    for (const column of ['last_check', 'check_failures', 'check_passes', 'check_due_at', 'health_check']) {
      await db.schema.alterTable('providers').dropColumn(column).execute()
    }
  }
}
