/**
 * The proxy: each pool's retry policy (attempts per request, whether requests
 * that are not idempotent may be retried, whether the client's credentials are
 * forwarded, how long a refusal is remembered), each provider's timeout and
 * credentials, and the resources providers refuse (HTTP 403).
 */
import type { Kysely, Migration } from 'kysely'

export const proxyMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.alterTable('pools').addColumn('max_attempts', 'integer', (c) => c.notNull().defaultTo(3)).execute()
    await db.schema.alterTable('pools').addColumn('retry_non_idempotent', 'integer', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('pools').addColumn('forward_client_auth', 'integer', (c) => c.notNull().defaultTo(0)).execute()
    await db.schema.alterTable('pools').addColumn('forbidden_ttl_seconds', 'integer', (c) => c.notNull().defaultTo(3600)).execute()
    await db.schema.alterTable('providers').addColumn('timeout_ms', 'integer').execute()
    // JSON object of header name to value, added to every forwarded request; never returned.
    await db.schema.alterTable('providers').addColumn('auth_headers', 'text').execute()
    await db.schema.createTable('provider_refusals')
      .addColumn('provider_id', 'integer', (c) => c.notNull().references('providers.id').onDelete('cascade'))
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('first_seen', 'text', (c) => c.notNull())
      .addColumn('last_seen', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('provider_refusals_pk', ['provider_id', 'resource'])
      .execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.dropTable('provider_refusals').execute()
    for (const column of ['max_attempts', 'retry_non_idempotent', 'forward_client_auth', 'forbidden_ttl_seconds']) await db.schema.alterTable('pools').dropColumn(column).execute()
    for (const column of ['timeout_ms', 'auth_headers']) await db.schema.alterTable('providers').dropColumn(column).execute()
  }
}
