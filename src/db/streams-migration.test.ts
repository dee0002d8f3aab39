/**
 * Migration 022 (WebSocket streams: a provider's `ws_url`, a pool's seven `ws_*`
 * settings) on a database that already holds a provider, a pool and its member, on
 * both dialects: a database as the previous version left it (no columns, the
 * migration not recorded) keeps them and every field they had when the service
 * starts on it again, the provider without a WebSocket URL of its own and the pool
 * with the streams' defaults; the down migration gives the old shape back.
 */
import assert from 'node:assert/strict'
import { it } from 'node:test'
import { sql } from 'kysely'
import { acrossMigration, columnsOf, describeOn, dialects } from '../../test/helpers.js'
import { DOCUMENTED_STREAM_DEFAULTS } from '../../test/fixtures.js'

const AT = '2026-01-01T00:00:00.000Z'
const POOL_FIELDS = ['ws_ping_interval_ms', 'ws_replay', 'ws_max_streams', 'ws_max_streams_per_client', 'ws_max_message_bytes', 'ws_send_buffer_bytes', 'ws_idle_timeout_ms'] as const
const DEFAULTS = DOCUMENTED_STREAM_DEFAULTS

/** A provider row as the previous version inserted it: no ws_url. */
const oldProvider = {
  name: 'node-a',
  category: 'rpc',
  base_url: 'https://node-a.example/v1?api_key=K',
  description: null,
  created_at: AT,
  updated_at: AT,
  auth_headers: '{"x-api-key":"H"}',
  max_batch_size: 25,
  method_costs: '{"eth_getLogs":75}'
}

/** A pool row as the previous version inserted it: none of the stream settings. */
const oldPool = {
  name: 'mainnet',
  category: 'rpc',
  description: null,
  rotation_strategy: 'priority',
  enabled: 1,
  created_at: AT,
  updated_at: AT,
  current_provider_id: null,
  last_rotation: null,
  rotation_state: '{}',
  hedge_after_ms: 200,
  protocol: 'evm',
  broadcast_writes: 1
}

for (const dialect of dialects) {
  describeOn(dialect, 'migration 022-streams', () => {
    it('keeps the provider, pool and member of an existing database, with the streams\' defaults, when the service starts on it again', async () => {
      await acrossMigration(dialect, '022-streams', async (db) => {
        const providerColumns = await columnsOf(db, dialect, 'providers')
        const poolColumns = await columnsOf(db, dialect, 'pools')
        assert.equal(providerColumns.includes('ws_url'), false, 'down drops the provider\'s column')
        assert.deepEqual(POOL_FIELDS.filter((field) => poolColumns.includes(field)), [], 'and the pool\'s')
        assert.ok(providerColumns.includes('method_costs') && poolColumns.includes('broadcast_writes'), 'and only them')
        const provider = await db.insertInto('providers').values(oldProvider as never).returning('id').executeTakeFirstOrThrow()
        const pool = await db.insertInto('pools').values(oldPool as never).returning('id').executeTakeFirstOrThrow()
        await db.insertInto('pool_members').values({ pool_id: pool.id, provider_id: provider.id, priority: 5, weight: 2, enabled: 1, created_at: AT } as never).execute()
      }, async (db) => {
        const provider = await db.selectFrom('providers').select(['name', 'base_url', 'ws_url', 'auth_headers', 'max_batch_size', 'method_costs']).executeTakeFirstOrThrow()
        assert.deepEqual({ ...provider, max_batch_size: Number(provider.max_batch_size) }, {
          name: 'node-a', base_url: oldProvider.base_url, ws_url: null, auth_headers: oldProvider.auth_headers, max_batch_size: 25, method_costs: oldProvider.method_costs
        })
        const pool = await db.selectFrom('pools').select(['name', 'rotation_strategy', 'hedge_after_ms', 'protocol', 'broadcast_writes', ...POOL_FIELDS]).executeTakeFirstOrThrow()
        const numbers = Object.fromEntries(Object.entries(pool).map(([k, v]) => [k, typeof v === 'string' && /^[0-9]+$/.test(v) ? Number(v) : v]))
        assert.deepEqual(numbers, { name: 'mainnet', rotation_strategy: 'priority', hedge_after_ms: 200, protocol: 'evm', broadcast_writes: 1, ...DEFAULTS })
        const members = await db.selectFrom('pool_members').select(['priority', 'weight', 'enabled']).execute()
        assert.deepEqual(members.map((m) => [Number(m.priority), Number(m.weight), Number(m.enabled)]), [[5, 2, 1]])
        const applied = await sql<{ name: string }>`select name from kysely_migration where name = ${'022-streams'}`.execute(db)
        assert.equal(applied.rows.length, 1, 'recorded as applied')
      })
    })
  })
}
