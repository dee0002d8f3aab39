/**
 * Migration 018 (the `evm` pool fields: finality_depth, cache_unfinalized_ms,
 * head_check_interval_s, max_block_lag) on a database that already holds pools, on
 * both dialects: a database as the previous version left it (no columns, the
 * migration not recorded) keeps every pool and its settings when the service starts
 * on it again, each with the defaults, and the down migration gives the old shape back.
 */
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { sql } from 'kysely'
import { acrossMigration, columnsOf, describeOn, dialects } from '../../test/helpers.js'

const AT = '2026-01-01T00:00:00.000Z'
const FIELDS = ['finality_depth', 'cache_unfinalized_ms', 'head_check_interval_s', 'max_block_lag'] as const

/** A pool row as the previous version inserted it: none of the four fields. */
const oldPool = (name: string, protocol: string, cacheTtl: number) => ({
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
  cache_ttl_seconds: cacheTtl,
  protocol
})

for (const dialect of dialects) {
  describeOn(dialect, 'migration 018-evm-fields', () => {
    it('keeps the pools of an existing database, each with the defaults, when the service starts on it again', async () => {
      await acrossMigration(dialect, '018-evm-fields', async (db) => {
        const left = await columnsOf(db, dialect, 'pools')
        assert.deepEqual(FIELDS.filter((field) => left.includes(field)), [], 'down drops the columns')
        assert.ok(left.includes('protocol'), 'and only them')
        await db.insertInto('pools').values([oldPool('prices', 'http', 60), oldPool('nodes', 'evm', 0)] as never).execute()
      }, async (db) => {
        const rows = await db.selectFrom('pools').select(['name', 'protocol', 'cache_ttl_seconds', ...FIELDS]).orderBy('id').execute()
        const defaults = { finality_depth: 64, cache_unfinalized_ms: 0, head_check_interval_s: 5, max_block_lag: 5 }
        assert.deepEqual(rows.map((r) => ({ ...r, ...Object.fromEntries(FIELDS.map((f) => [f, Number(r[f])])) })), [
          { name: 'prices', protocol: 'http', cache_ttl_seconds: 60, ...defaults },
          { name: 'nodes', protocol: 'evm', cache_ttl_seconds: 0, ...defaults }
        ])
        const applied = await sql<{ name: string }>`select name from kysely_migration where name = ${'018-evm-fields'}`.execute(db)
        assert.equal(applied.rows.length, 1, 'recorded as applied')
      })
    })
  })
}
