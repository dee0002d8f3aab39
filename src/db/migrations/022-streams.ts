/**
 * The stored settings of WebSocket streams through a pool: a provider's `ws_url`
 * (its WebSocket URL, or null: the streams use its base_url with ws:// or wss://
 * for http:// or https://) and a pool's seven stream settings, with the defaults
 * every existing pool gets (as rules/stream-settings.ts has them; written out here,
 * since a migration must not move when a default does later): the ping interval,
 * what is replayed to a new upstream after a failover (`ws_replay`, text: `none`,
 * `first_second` or a count in decimal), the streams allowed per pool and per
 * client address, the largest message, the send buffer and the idle timeout (0:
 * none). Columns without a CHECK, as the other policy fields: the API's schemas
 * hold the bounds.
 */
import type { Kysely, Migration } from 'kysely'

const COLUMNS: ReadonlyArray<readonly [string, 'integer' | 'text', number | string]> = [
  ['ws_ping_interval_ms', 'integer', 30_000], ['ws_replay', 'text', 'first_second'], ['ws_max_streams', 'integer', 1000],
  ['ws_max_streams_per_client', 'integer', 100], ['ws_max_message_bytes', 'integer', 1_048_576], ['ws_send_buffer_bytes', 'integer', 4_194_304],
  ['ws_idle_timeout_ms', 'integer', 300_000]
]

export const streamsMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('providers').addColumn('ws_url', 'text').execute()
    for (const [column, type, value] of COLUMNS) {
      await db.schema.alterTable('pools').addColumn(column, type, (c) => c.notNull().defaultTo(value)).execute()
    }
  },
  async down (db: Kysely<any>) {
    for (const [column] of [...COLUMNS].reverse()) await db.schema.alterTable('pools').dropColumn(column).execute()
    await db.schema.alterTable('providers').dropColumn('ws_url').execute()
  }
}
