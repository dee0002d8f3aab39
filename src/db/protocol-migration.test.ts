/**
 * Migration 015 (a pool's `protocol`) on a database that already holds pools, on
 * both dialects: a database as the previous version left it (no column, the
 * migration not recorded) keeps every pool and its settings when the service starts
 * on it again, each pool `http`, and the down migration gives the old shape back.
 */
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { sql, type Migration } from 'kysely'
import { columnsOf, describeOn, dialects, sharedDatabase } from '../../test/helpers.js'
import { createDb } from './create-db.js'
import { protocolMigration } from './migrations/015-protocol.js'
import { evmFieldsMigration } from './migrations/018-evm-fields.js'
import { broadcastWritesMigration } from './migrations/019-broadcast-writes.js'
import { maxBatchSizeMigration } from './migrations/020-max-batch-size.js'
import { creditsMigration } from './migrations/021-credits.js'
import { methodsMigration } from './migrations/016-methods.js'
import { maxLogsRangeMigration } from './migrations/017-max-logs-range.js'

const AT = '2026-01-01T00:00:00.000Z'

/** The migrations after 015, newest first: undone before it, as the previous version had none of them. */
const LATER: ReadonlyArray<readonly [string, Migration]> = [['021-credits', creditsMigration], ['020-max-batch-size', maxBatchSizeMigration], ['019-broadcast-writes', broadcastWritesMigration], ['018-evm-fields', evmFieldsMigration], ['017-max-logs-range', maxLogsRangeMigration], ['016-methods', methodsMigration]]

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
      const database = await sharedDatabase(dialect)
      try {
        const old = await createDb(database.url)
        try {
          for (const [name, migration] of LATER) {
            await migration.down?.(old.db)
            await sql`delete from kysely_migration where name = ${name}`.execute(old.db)
          }
          await protocolMigration.down?.(old.db)
          assert.ok(!(await columnsOf(old.db, dialect, 'pools')).includes('protocol'), 'down drops the column')
          await sql`delete from kysely_migration where name = ${'015-protocol'}`.execute(old.db)
          await old.db.insertInto('pools').values([oldPool('prices', 60), oldPool('nodes', 0)]).execute()
        } finally {
          await old.close()
        }

        const upgraded = await createDb(database.url)
        try {
          const rows = await upgraded.db.selectFrom('pools').select(['name', 'rotation_strategy', 'cache_ttl_seconds', 'protocol']).orderBy('id').execute()
          assert.deepEqual(rows, [
            { name: 'prices', rotation_strategy: 'weighted', cache_ttl_seconds: 60, protocol: 'http' },
            { name: 'nodes', rotation_strategy: 'weighted', cache_ttl_seconds: 0, protocol: 'http' }
          ])
          const applied = await sql<{ name: string }>`select name from kysely_migration where name = ${'015-protocol'}`.execute(upgraded.db)
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
