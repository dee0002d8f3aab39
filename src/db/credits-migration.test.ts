/**
 * Migration 021 (a provider's `rate_limit_unit` and `method_costs`) on a database that
 * already holds providers, on both dialects: a database as the previous version left
 * it (no columns, the migration not recorded) keeps every provider, its quota and the
 * window's counter when the service starts on it again, each quota counting requests
 * and no provider with costs; and the down migration gives the old shape back.
 */
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { sql } from 'kysely'
import { acrossMigration, columnsOf, describeOn, dialects } from '../../test/helpers.js'

const AT = '2026-01-01T00:00:00.000Z'
const WINDOW = '2026-01-01T00:00:00.000Z'

/** A provider row as the previous version inserted it: neither column. */
const oldProvider = (name: string, limit: number | null, used: number) => ({
  name,
  category: null,
  base_url: 'https://node.example',
  description: null,
  created_at: AT,
  updated_at: AT,
  rate_limit_requests: limit,
  rate_limit_per: limit === null ? null : 'day',
  quota_window_start: limit === null ? null : WINDOW,
  quota_used: used
})

for (const dialect of dialects) {
  describeOn(dialect, 'migration 021-credits', () => {
    it('keeps the providers of an existing database, their quotas counting requests as before, when the service starts on it again', async () => {
      await acrossMigration(dialect, '021-credits', async (db) => {
        const left = await columnsOf(db, dialect, 'providers')
        assert.deepEqual(['rate_limit_unit', 'method_costs'].filter((c) => left.includes(c)), [], 'down drops the columns')
        assert.ok(left.includes('rate_limit_requests') && left.includes('max_logs_range'), 'and only them')
        await db.insertInto('providers').values([oldProvider('metered', 600, 42), oldProvider('open', null, 0)] as never).execute()
      }, async (db) => {
        const rows = await db.selectFrom('providers')
          .select(['name', 'rate_limit_requests', 'rate_limit_unit', 'rate_limit_per', 'quota_window_start', 'quota_used', 'method_costs']).orderBy('id').execute()
        assert.deepEqual(rows.map((r) => ({ ...r, rate_limit_requests: r.rate_limit_requests === null ? null : Number(r.rate_limit_requests), quota_used: Number(r.quota_used) })), [
          { name: 'metered', rate_limit_requests: 600, rate_limit_unit: 'requests', rate_limit_per: 'day', quota_window_start: WINDOW, quota_used: 42, method_costs: null },
          { name: 'open', rate_limit_requests: null, rate_limit_unit: 'requests', rate_limit_per: null, quota_window_start: null, quota_used: 0, method_costs: null }
        ])
        const applied = await sql<{ name: string }>`select name from kysely_migration where name = ${'021-credits'}`.execute(db)
        assert.equal(applied.rows.length, 1, 'recorded as applied')
      })
    })
  })
}
