/**
 * Migration 016 (a provider's `methods`) on a database that already holds
 * providers, on both dialects: a database as the previous version left it (no
 * column, the migration not recorded) keeps every provider when the service starts
 * on it again, each with `methods` null (every method allowed).
 */
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { describeOn, dialects, sharedDatabase } from '../../test/helpers.js'
import { createDb } from './create-db.js'
import { migrateBefore } from './migrate.js'

const AT = '2026-01-01T00:00:00.000Z'

for (const dialect of dialects) {
  describeOn(dialect, 'migration 016-methods', () => {
    it('keeps the providers of an existing database, each allowing every method', async () => {
      const database = await sharedDatabase(dialect)
      try {
        const old = await createDb(database.url)
        try {
          // The schema as the version before 016-methods left it (its down and every later one's, their records gone).
          await migrateBefore(old.db, dialect.name, '016-methods')
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
