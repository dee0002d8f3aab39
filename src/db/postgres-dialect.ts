/**
 * Kysely's PostgreSQL dialect kept to the connection's own schema. Its stock
 * migration support looks at every schema of the database (its introspector lists
 * all tables, calling pg_get_serial_sequence on each) and takes one advisory lock
 * for the whole server. Where other instances, other applications or test runs
 * create and drop schemas beside ours, that listing fails with "schema … does not
 * exist" whenever a schema vanishes under it, and every instance's migrations wait
 * on every other's. Here the migrator sees only current_schema() and locks only
 * it: instances sharing a schema still migrate one at a time.
 */
import {
  PostgresAdapter, PostgresDialect, sql,
  type DatabaseIntrospector, type DatabaseMetadata, type DatabaseMetadataOptions, type Kysely,
  type MigrationLockOptions, type SchemaMetadata, type TableMetadata
} from 'kysely'

/** The first key of the two-key advisory lock ("sp" in ASCII): the second is the schema's hash. */
const LOCK_CLASS = 0x7370
/** How long a start waits for another instance migrating the same schema. */
const LOCK_TIMEOUT_MS = 10 * 60 * 1000

/** PostgreSQL's adapter with a migration lock per schema instead of one per server. */
class SchemaLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock (db: Kysely<any>, _options: MigrationLockOptions): Promise<void> {
    await sql`
      with set_timeout as (select set_config('lock_timeout', ${String(LOCK_TIMEOUT_MS)}, true) as value)
      select pg_advisory_lock(${sql.lit(LOCK_CLASS)}, hashtext(current_schema())) from set_timeout`.execute(db)
  }

  override async releaseMigrationLock (db: Kysely<any>, _options: MigrationLockOptions): Promise<void> {
    await sql`select pg_advisory_unlock(${sql.lit(LOCK_CLASS)}, hashtext(current_schema()))`.execute(db)
  }
}

interface ColumnRow { table: string, column: string, type: string, not_null: boolean, has_default: boolean }

/**
 * What the migrator asks of a database (which schemas and tables exist), for the
 * connection's current schema alone, read from plain catalog columns: no function
 * that resolves a name, so a schema dropped meanwhile elsewhere is simply not seen.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor (private readonly db: Kysely<any>) {}

  async getSchemas (): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.db)
    return rows.filter((row) => row.name !== null).map((row) => ({ name: row.name }))
  }

  async getTables (_options?: DatabaseMetadataOptions): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow & { schema: string }>`
      select c.relname as table, a.attname as column, t.typname as type, a.attnotnull as not_null,
             a.atthasdef as has_default, ns.nspname as schema
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      join pg_catalog.pg_type t on t.oid = a.atttypid
      where ns.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
      order by c.relname, a.attnum`.execute(this.db)
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>()
    for (const row of rows) {
      let table = tables.get(row.table)
      if (table === undefined) {
        table = { name: row.table, schema: row.schema, isView: false, columns: [] }
        tables.set(row.table, table)
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        isNullable: !row.not_null,
        isAutoIncrementing: false,
        hasDefaultValue: row.has_default
      })
    }
    return [...tables.values()]
  }

  async getMetadata (options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) }
  }
}

/** PostgresDialect whose migrations see and lock only the connection's current schema. */
export class SchemaPostgresDialect extends PostgresDialect {
  override createAdapter (): PostgresAdapter {
    return new SchemaLockAdapter()
  }

  override createIntrospector (db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db)
  }
}
