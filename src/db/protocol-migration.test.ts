/**
 * Migration 015 (a pool's `protocol`) on a database that already holds pools, on
 * both dialects: a database as the previous version left it (no column, the
 * migration not recorded) keeps every pool and its settings when the service starts
 * on it again, each pool `http`, and the down migration gives the old shape back.
 */
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { sql } from 'kysely'
import { acrossMigration, columnsOf, describeOn, dialects } from '../../test/helpers.js'

const AT = '2026-01-01T00:00:00.000Z'

/** A pool row as the previous version inserted it: no protocol. */
const oldPool = (name: string, cacheTtl: number) => ({
  name,
  category: 'rpc',
  description: null,
  rotation_strategy: 'weighted',
  enabled: 1,
  created_at: AT,
  updated_at: AT,
  current_provider_id: null,
  last_rotation: null,
  rotation_state: '{}',
  cache_ttl_seconds: cacheTtl
})

for (const dialect of dialects) {
  describeOn(dialect, 'migration 015-protocol', () => {
    it('keeps the pools of an existing database, each http, when the service starts on it again', async () => {
      await acrossMigration(dialect, '015-protocol', async (db) => {
        assert.ok(!(await columnsOf(db, dialect, 'pools')).includes('protocol'), 'down drops the column')
        await db.insertInto('pools').values([oldPool('prices', 60), oldPool('nodes', 0)]).execute()
      }, async (db) => {
        const rows = await db.selectFrom('pools').select(['name', 'rotation_strategy', 'cache_ttl_seconds', 'protocol']).orderBy('id').execute()
        assert.deepEqual(rows, [
          { name: 'prices', rotation_strategy: 'weighted', cache_ttl_seconds: 60, protocol: 'http' },
          { name: 'nodes', rotation_strategy: 'weighted', cache_ttl_seconds: 0, protocol: 'http' }
        ])
        const applied = await sql<{ name: string }>`select name from kysely_migration where name = ${'015-protocol'}`.execute(db)
        assert.equal(applied.rows.length, 1, 'recorded as applied')
      })
    })
  })
}
