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
import { columnsOf, describeOn, dialects, sharedDatabase } from '../../test/helpers.js'
import { createDb } from './create-db.js'
import { migrateBefore } from './migrate.js'

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
      const database = await sharedDatabase(dialect)
      try {
        const old = await createDb(database.url)
        try {
          // The schema as the version before 018-evm-fields left it (its down and every later one's, their records gone).
          await migrateBefore(old.db, dialect.name, '018-evm-fields')
          const left = await columnsOf(old.db, dialect, 'pools')
          assert.deepEqual(FIELDS.filter((field) => left.includes(field)), [], 'down drops the columns')
          assert.ok(left.includes('protocol'), 'and only them')
          await old.db.insertInto('pools').values([oldPool('prices', 'http', 60), oldPool('nodes', 'evm', 0)] as never).execute()
        } finally {
          await old.close()
        }

        const upgraded = await createDb(database.url)
        try {
          const rows = await upgraded.db.selectFrom('pools').select(['name', 'protocol', 'cache_ttl_seconds', ...FIELDS]).orderBy('id').execute()
          const defaults = { finality_depth: 64, cache_unfinalized_ms: 0, head_check_interval_s: 5, max_block_lag: 5 }
          assert.deepEqual(rows.map((r) => ({ ...r, ...Object.fromEntries(FIELDS.map((f) => [f, Number(r[f])])) })), [
            { name: 'prices', protocol: 'http', cache_ttl_seconds: 60, ...defaults },
            { name: 'nodes', protocol: 'evm', cache_ttl_seconds: 0, ...defaults }
          ])
          const applied = await sql<{ name: string }>`select name from kysely_migration where name = ${'018-evm-fields'}`.execute(upgraded.db)
          assert.equal(applied.rows.length, 1, 'recorded as applied')
        } finally {
          await upgraded.close()
        }
      } finally {
        await database.drop()
      }
    })
  })
}
