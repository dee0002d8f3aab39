/**
 * Activity for charts and the event stream's further events:
 * - `member_minutes`: each member's latency observations per UTC minute (how many,
 *   and their sum), added to by every write that feeds a member's moving average, so
 *   a minute's mean is exact across processes; keyed by member, so removing a member
 *   (or its pool, or its provider) removes its minutes. The index on `minute` serves
 *   the purge of minutes older than the longest chart (25 hours).
 * - an index on `rotation_history.timestamp`: the activity of every pool reads one
 *   time range of the whole history (a pool's own range has its index since 001).
 * - `rotation_history.until`: when the state a record tells of ends (a cooldown, a
 *   refusal, a quota window), for the event stream; null for rotations.
 * - `providers.quota_exhausted_window`: the quota window whose exhaustion has been
 *   recorded, so processes sharing the database record it once per window.
 */
import type { Kysely, Migration } from 'kysely'
import type { Dialect } from '../types.js'

export function activityMigration (dialect: Dialect): Migration {
  // PostgreSQL's `real` is four bytes: a sum of many latencies needs eight (SQLite's `real` has them).
  const sumType = dialect === 'sqlite' ? 'real' : 'double precision'
  return {
    async up (db: Kysely<any>) {
      await db.schema.createTable('member_minutes')
        .addColumn('member_id', 'integer', (c) => c.notNull().references('pool_members.id').onDelete('cascade'))
        .addColumn('minute', 'text', (c) => c.notNull())
        .addColumn('samples', 'integer', (c) => c.notNull())
        .addColumn('latency_sum', sumType, (c) => c.notNull())
        .addPrimaryKeyConstraint('member_minutes_pk', ['member_id', 'minute'])
        .execute()
      await db.schema.createIndex('member_minutes_minute_idx').on('member_minutes').column('minute').execute()
      await db.schema.createIndex('rotation_history_time_idx').on('rotation_history').column('timestamp').execute()
      await db.schema.alterTable('rotation_history').addColumn('until', 'text').execute()
      await db.schema.alterTable('providers').addColumn('quota_exhausted_window', 'text').execute()
    },
    async down (db: Kysely<any>) {
      await db.schema.alterTable('providers').dropColumn('quota_exhausted_window').execute()
      await db.schema.alterTable('rotation_history').dropColumn('until').execute()
      await db.schema.dropIndex('rotation_history_time_idx').execute()
      await db.schema.dropTable('member_minutes').execute()
    }
  }
}
