/**
 * Indexes for the chunk list's filters, each in the list's order (parent_id,
 * sequence, chunk_id), so a filtered page and its total come from an index, not
 * a pass over the table (on SQLite about 100 ms per request at 60,000 chunks,
 * holding the event loop, and growing with the table). `source` and
 * `embedding_model` get their own index, so such a page costs the same at any
 * size (without one, a model's page sorted all of the model's chunks). `task`
 * and `content_type` (a handful of values each) are carried in the list-order
 * index, which replaces 004's: filtering and counting on them read that narrow
 * index only, never a row, and ingest maintains no extra index for them. Each
 * index costs ingest about 1–3 µs per chunk; own indexes for all four filters
 * measured 4–10 µs, too much for an ingest at the edge of its target.
 */
import type { Kysely, Migration } from 'kysely'

export const chunkFiltersMigration: Migration = {
  async up (db: Kysely<any>) {
    await db.schema.createIndex('chunks_source_order_idx').on('chunks').columns(['source', 'parent_id', 'sequence', 'chunk_id']).execute()
    await db.schema.createIndex('chunks_model_order_idx').on('chunks').columns(['embedding_model', 'parent_id', 'sequence', 'chunk_id']).execute()
    await db.schema.createIndex('chunks_list_idx').on('chunks').columns(['parent_id', 'sequence', 'chunk_id', 'task', 'content_type']).execute()
    await db.schema.dropIndex('chunks_order_idx').execute()
  },
  async down (db: Kysely<any>) {
    await db.schema.createIndex('chunks_order_idx').on('chunks').columns(['parent_id', 'sequence', 'chunk_id']).execute()
    for (const index of ['chunks_list_idx', 'chunks_model_order_idx', 'chunks_source_order_idx']) await db.schema.dropIndex(index).execute()
  }
}
