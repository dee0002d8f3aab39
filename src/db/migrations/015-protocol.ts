/**
 * A pool's protocol (issue 36): `http` (requests passed through as they are, what
 * every pool did before), `jsonrpc` (a JSON-RPC 2.0 service) or `evm` (JSON-RPC with
 * Ethereum's methods). Existing pools become `http`. Text without a CHECK, as
 * `all_down` and `rotation_strategy` are: the API's schema holds the values.
 */
import type { Kysely, Migration } from 'kysely'

export const protocolMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('pools').addColumn('protocol', 'text', (c) => c.notNull().defaultTo('http')).execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.alterTable('pools').dropColumn('protocol').execute()
  }
}
