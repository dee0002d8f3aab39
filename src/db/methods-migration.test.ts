/**
 * Migration 016 (a provider's `methods`) on a database that already holds
 * providers, on both dialects: a database as the previous version left it (no
 * column, the migration not recorded) keeps every provider when the service starts
 * on it again, each with `methods` null (every method allowed).
 */
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { sql, type Migration } from 'kysely'
import { describeOn, dialects, sharedDatabase } from '../../test/helpers.js'
import { createDb } from './create-db.js'
import { methodsMigration } from './migrations/016-methods.js'
import { maxLogsRangeMigration } from './migrations/017-max-logs-range.js'
import { evmFieldsMigration } from './migrations/018-evm-fields.js'
import { broadcastWritesMigration } from './migrations/019-broadcast-writes.js'
import { maxBatchSizeMigration } from './migrations/020-max-batch-size.js'
import { creditsMigration } from './migrations/021-credits.js'

const AT = '2026-01-01T00:00:00.000Z'

/** The migrations after 016, newest first: undone before it, as the previous version had none of them (none yet). */
const LATER: ReadonlyArray<readonly [string, Migration]> = [['021-credits', creditsMigration], ['020-max-batch-size', maxBatchSizeMigration], ['019-broadcast-writes', broadcastWritesMigration], ['018-evm-fields', evmFieldsMigration], ['017-max-logs-range', maxLogsRangeMigration]]

for (const dialect of dialects) {
  describeOn(dialect, 'migration 016-methods', () => {
    it('keeps the providers of an existing database, each allowing every method', async () => {
      const database = await sharedDatabase(dialect)
      try {
        const old = await createDb(database.url)
        try {
          for (const [name, migration] of LATER) {
            await migration.down?.(old.db)
            await sql`delete from kysely_migration where name = ${name}`.execute(old.db)
          }
          await methodsMigration.down?.(old.db)
          await sql`delete from kysely_migration where name = ${'016-methods'}`.execute(old.db)
          await old.db.insertInto('providers').values([
            { name: 'node-a', category: null, base_url: 'https://a.example', description: null, created_at: AT, updated_at: AT, rate_limit_requests: null, rate_limit_per: null, quota_window_start: null, timeout_ms: 5000, auth_headers: null, health_check: null, check_due_at: null, last_check: null, quota_exhausted_window: null } as never
          ]).execute()
        } finally {
          await old.close()
        }
        const upgraded = await createDb(database.url)
        try {
          const rows = await upgraded.db.selectFrom('providers').select(['name', 'timeout_ms', 'methods']).execute()
          assert.deepEqual(rows, [{ name: 'node-a', timeout_ms: 5000, methods: null }])
        } finally {
          await upgraded.close()
        }
      } finally {
        await database.drop()
      }
    })
  })
}
