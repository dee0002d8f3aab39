/**
 * Migration 016 (a provider's `methods`) on a database that already holds
 * providers, on both dialects: a database as the previous version left it (no
 * column, the migration not recorded) keeps every provider when the service starts
 * on it again, each with `methods` null (every method allowed).
 */
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { acrossMigration, describeOn, dialects } from '../../test/helpers.js'

const AT = '2026-01-01T00:00:00.000Z'

for (const dialect of dialects) {
  describeOn(dialect, 'migration 016-methods', () => {
    it('keeps the providers of an existing database, each allowing every method', async () => {
      await acrossMigration(dialect, '016-methods', async (db) => {
        await db.insertInto('providers').values([
          { name: 'node-a', category: null, base_url: 'https://a.example', description: null, created_at: AT, updated_at: AT, rate_limit_requests: null, rate_limit_per: null, quota_window_start: null, timeout_ms: 5000, auth_headers: null, health_check: null, check_due_at: null, last_check: null, quota_exhausted_window: null } as never
        ]).execute()
      }, async (db) => {
        const rows = await db.selectFrom('providers').select(['name', 'timeout_ms', 'methods']).execute()
        assert.deepEqual(rows, [{ name: 'node-a', timeout_ms: 5000, methods: null }])
      })
    })
  })
}
