/**
 * Runs the schema migrations to the latest version; called at every start.
 * Kysely's migrator takes a lock, so processes starting together migrate once.
 */
import { Migrator, NO_MIGRATIONS, sql, type Migration } from 'kysely'
import { initialMigration } from './migrations/001-initial.js'
import { healthMigration } from './migrations/002-health.js'
import { auditMigration } from './migrations/003-audit.js'
import { chunksMigration } from './migrations/004-chunks.js'
import { proxyMigration } from './migrations/005-proxy.js'
import { chunkFiltersMigration } from './migrations/006-chunk-filters.js'
import { refusalExpiryMigration } from './migrations/007-refusal-expiry.js'
import { changeSeqMigration } from './migrations/008-change-seq.js'
import { healthChecksMigration } from './migrations/009-health-checks.js'
import { activityMigration } from './migrations/010-activity.js'
import { auditAddressMigration } from './migrations/011-audit-address.js'
import { cacheMigration } from './migrations/012-cache.js'
import { retriesMigration } from './migrations/013-retries.js'
import { refusalStatusMigration } from './migrations/014-refusal-status.js'
import { protocolMigration } from './migrations/015-protocol.js'
import { methodsMigration } from './migrations/016-methods.js'
import { maxLogsRangeMigration } from './migrations/017-max-logs-range.js'
import { evmFieldsMigration } from './migrations/018-evm-fields.js'
import { broadcastWritesMigration } from './migrations/019-broadcast-writes.js'
import { maxBatchSizeMigration } from './migrations/020-max-batch-size.js'
import { creditsMigration } from './migrations/021-credits.js'
import { streamsMigration } from './migrations/022-streams.js'
import type { Db, Dialect } from './types.js'

function migrationsFor (dialect: Dialect): Record<string, Migration> {
  return {
    '001-initial': initialMigration(dialect),
    '002-health': healthMigration,
    '003-audit': auditMigration(dialect),
    '004-chunks': chunksMigration(dialect),
    '005-proxy': proxyMigration,
    '006-chunk-filters': chunkFiltersMigration,
    '007-refusal-expiry': refusalExpiryMigration,
    '008-change-seq': changeSeqMigration,
    '009-health-checks': healthChecksMigration,
    '010-activity': activityMigration(dialect),
    '011-audit-address': auditAddressMigration,
    '012-cache': cacheMigration,
    '013-retries': retriesMigration,
    '014-refusal-status': refusalStatusMigration,
    '015-protocol': protocolMigration,
    '016-methods': methodsMigration,
    '017-max-logs-range': maxLogsRangeMigration,
    '018-evm-fields': evmFieldsMigration,
    '019-broadcast-writes': broadcastWritesMigration,
    '020-max-batch-size': maxBatchSizeMigration,
    '021-credits': creditsMigration,
    '022-streams': streamsMigration
  }
}

/** Kysely's migrator over this dialect's migrations, its own tables in `schema` when given (PostgreSQL). */
function migratorFor (db: Db, dialect: Dialect, schema?: string): Migrator {
  return new Migrator({
    db,
    provider: { getMigrations: async () => migrationsFor(dialect) },
    ...(schema !== undefined ? { migrationTableSchema: schema } : {})
  })
}

/** A migration failed; `cause` says why. */
export class MigrationError extends Error {
  constructor (readonly migrationName: string, cause: unknown) {
    super(`database migration ${migrationName} failed`, { cause })
  }
}

/**
 * Brings the schema up to date. On PostgreSQL, `schema` is where the migrator keeps
 * its own tables: it must be given, or the migrator would take another schema's
 * tables (any instance's, in the same database) for its own. Throws MigrationError
 * when a migration failed, or the driver's error when none could run.
 */
export async function migrateToLatest (db: Db, dialect: Dialect, schema?: string): Promise<void> {
  const { error, results } = await migratorFor(db, dialect, schema).migrateToLatest()
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    if (failed === undefined) throw error
    throw new MigrationError(failed, error)
  }
}

/**
 * Undoes `name` and every migration after it (their `down`s, newest first, and their
 * records), leaving the schema as the version before `name` left it: how the
 * migration tests make "a database of the previous version" without a list of the
 * later migrations to keep up by hand. On PostgreSQL the migrator's tables are in the
 * connection's schema.
 */
export async function migrateBefore (db: Db, dialect: Dialect, name: string): Promise<void> {
  const names = Object.keys(migrationsFor(dialect)).sort()
  const at = names.indexOf(name)
  if (at === -1) throw new Error(`no migration ${name}`)
  const schema = dialect === 'postgres' ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema : undefined
  const { error } = await migratorFor(db, dialect, schema).migrateTo(at === 0 ? NO_MIGRATIONS : names[at - 1] as string)
  if (error !== undefined) throw error
}
