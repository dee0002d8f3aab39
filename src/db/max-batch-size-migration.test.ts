/**
 * Migration 020 (a provider's `max_batch_size`) on a database that already holds
 * providers, on both dialects: a database as the previous version left it (no
 * column, the migration not recorded) keeps every provider and its fields when the
 * service starts on it again, each with the default of 10 calls per upstream batch;
 * the down migration gives the old shape back.
 */
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { sql } from 'kysely'
import { acrossMigration, columnsOf, describeOn, dialects } from '../../test/helpers.js'

const AT = '2026-01-01T00:00:00.000Z'

/** A provider row as the previous version inserted it: no max_batch_size. */
const oldProvider = (name: string, maxLogsRange: number | null) => ({ name, category: 'rpc', base_url: `https://${name}.example`, description: null, created_at: AT, updated_at: AT, rate_limit_requests: null, rate_limit_per: null, quota_window_start: null, timeout_ms: 5000, auth_headers: null, health_check: null, check_due_at: null, last_check: null, quota_exhausted_window: null, methods: '{"deny":["debug_*"]}', max_logs_range: maxLogsRange })

for (const dialect of dialects) {
  describeOn(dialect, 'migration 020-max-batch-size', () => {
    it('keeps the providers of an existing database, each sending batches of up to 10 calls, when the service starts on it again', async () => {
      await acrossMigration(dialect, '020-max-batch-size', async (db) => {
        const left = await columnsOf(db, dialect, 'providers')
        assert.ok(!left.includes('max_batch_size'), 'down drops the column')
        assert.ok(left.includes('max_logs_range'), 'and only it')
        await db.insertInto('providers').values([oldProvider('node-a', 2000), oldProvider('node-b', null)] as never).execute()
      }, async (db) => {
        const rows = await db.selectFrom('providers').select(['name', 'timeout_ms', 'methods', 'max_logs_range', 'max_batch_size']).orderBy('id').execute()
        assert.deepEqual(rows.map((r) => ({ ...r, max_batch_size: Number(r.max_batch_size) })), [
          { name: 'node-a', timeout_ms: 5000, methods: '{"deny":["debug_*"]}', max_logs_range: 2000, max_batch_size: 10 },
          { name: 'node-b', timeout_ms: 5000, methods: '{"deny":["debug_*"]}', max_logs_range: null, max_batch_size: 10 }
        ])
        const applied = await sql<{ name: string }>`select name from kysely_migration where name = ${'020-max-batch-size'}`.execute(db)
        assert.equal(applied.rows.length, 1, 'recorded as applied')
      })
    })
  })
}
