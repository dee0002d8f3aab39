/**
 * The chunk store: chunks (embedding as little-endian float64 bytes), each
 * embedding model's dimension and change counter, and the tombstones of deleted
 * chunks that let every process bring its search index up to date incrementally.
 * Text that orders lists compares byte-wise in both dialects (PostgreSQL `C`
 * collation, SQLite's default), so pages come in the same order everywhere.
 */
import { sql, type Kysely, type Migration } from 'kysely'
import type { Dialect } from '../types.js'

/** Builds the migration for one dialect (binary type and collation differ). */
export function chunksMigration (dialect: Dialect): Migration {
  const orderedText = dialect === 'sqlite' ? sql`text` : sql`text collate "C"`
  const bytes = dialect === 'sqlite' ? sql`blob` : sql`bytea`
  const counter = dialect === 'sqlite' ? sql`integer` : sql`bigint`
  return {
    async up (db: Kysely<any>) {
      await db.schema.createTable('chunk_models')
        .addColumn('embedding_model', orderedText, (c) => c.primaryKey())
        .addColumn('embedding_dim', 'integer', (c) => c.notNull())
        .addColumn('chunk_count', 'integer', (c) => c.notNull())
        .addColumn('version', counter, (c) => c.notNull())
        .execute()

      await db.schema.createTable('chunks')
        .addColumn('chunk_id', orderedText, (c) => c.primaryKey())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('embedding_model', orderedText, (c) => c.notNull())
        .addColumn('embedding_dim', 'integer', (c) => c.notNull())
        .addColumn('embedding', bytes, (c) => c.notNull())
        .addColumn('parent_id', orderedText, (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('task', 'text', (c) => c.notNull())
        .addColumn('sequence', 'integer', (c) => c.notNull())
        .addColumn('total_chunks', 'integer', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('metadata', 'text', (c) => c.notNull())
        .addColumn('revision', counter, (c) => c.notNull())
        .execute()
      await db.schema.createIndex('chunks_order_idx').on('chunks').columns(['parent_id', 'sequence', 'chunk_id']).execute()
      await db.schema.createIndex('chunks_model_revision_idx').on('chunks').columns(['embedding_model', 'revision', 'chunk_id']).execute()

      await db.schema.createTable('chunk_tombstones')
        .addColumn('embedding_model', orderedText, (c) => c.notNull())
        .addColumn('chunk_id', orderedText, (c) => c.notNull())
        .addColumn('revision', counter, (c) => c.notNull())
        .addPrimaryKeyConstraint('chunk_tombstones_pk', ['embedding_model', 'chunk_id'])
        .execute()
    },
    async down (db: Kysely<any>) {
      await db.schema.dropTable('chunk_tombstones').execute()
      await db.schema.dropTable('chunks').execute()
      await db.schema.dropTable('chunk_models').execute()
    }
  }
}
