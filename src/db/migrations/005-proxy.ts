/**
 * The proxy: each pool's retry policy (attempts per request, whether requests
 * that are not idempotent may be retried, whether the client's credentials are
 * forwarded) and each provider's timeout.
 */
import type { Kysely, Migration } from 'kysely'

export const proxyMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('pools').addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(3)).execute()
    await db.schema.alterTable('pools').addColumn('retry_non_idempotent', 'integer', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('pools').addColumn('forward_client_auth', 'integer', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('providers').addColumn('timeout_ms', 'integer').execute()
  },
  async down (db: Kysely<any>) {
    for (const column of ['max_attempts', 'retry_non_idempotent', 'forward_client_auth']) await db.schema.alterTable('pools').dropColumn(column).execute()
    await db.schema.alterTable('providers').dropColumn('timeout_ms').execute()
  }
}
