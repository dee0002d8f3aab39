/**
 * Chunk store rules: all-or-nothing writes (a batch stores every record or
 * none), one dimension per embedding model while it has chunks, exact storage,
 * and lists paged by an opaque cursor, each page bounded in bytes. Every write
 * bumps the version of each model it touches, which is how search indexes in
 * every process notice it. The writes are units of work in chunk.writes.ts, the
 * list's pages in chunk.list.ts; this service runs them on the database.
 */
import type { Actor } from '../audit/audit.js'
import type { WorkRunner } from '../db/work.js'
import { RequestValidationError, valueError } from '../errors.js'
import { pageTexts, positionOf, readPage } from './chunk.list.js'
import * as repo from './chunk.repository.js'
import type { ChunkInput, ChunkListInput } from './chunk.schemas.js'
import { checkBatch, deleteLocked, insertAll, notFound, replaceLocked, transactLocked, type Locate } from './chunk.writes.js'

/** Builds the chunk service over the database's work runner and a clock. */
export function createChunkService ({ database, now }: { database: WorkRunner, now: () => Date }) {
  return {
    /** Stores one record; 409 when its id exists. */
    async createChunk (record: ChunkInput, actor: Actor): Promise<void> {
      await database.transact((db) => insertAll(db, [record], (_index, ...path) => ['body', ...path], actor, false, now))
    },

    /** Stores every record or none. */
    async createChunks (records: ChunkInput[], actor: Actor): Promise<string[]> {
      const at: Locate = (index, ...path) => ['body', 'chunks', index, ...path]
      checkBatch(records, at)
      await database.transact((db) => insertAll(db, records, at, actor, true, now))
      return records.map((r) => r.chunk_id)
    },

    async getChunk (id: string): Promise<repo.ChunkRow> {
      const row = await database.read((db) => repo.findChunk(db, id))
      if (row === undefined) throw notFound(id)
      return row
    },

    /** Replaces the chunk with `id` by `record` (whose chunk_id must be `id`). */
    async replaceChunk (id: string, record: ChunkInput, actor: Actor): Promise<void> {
      if (record.chunk_id !== id) {
        throw new RequestValidationError([valueError(['body', 'chunk_id'], record.chunk_id, `chunk_id '${record.chunk_id}' does not match the path's '${id}'`)])
      }
      await transactLocked(database, (db) => replaceLocked(db, id, record, actor, now))
    },

    async deleteChunk (id: string, actor: Actor): Promise<void> {
      await transactLocked(database, (db) => deleteLocked(db, id, actor, now))
    },

    /** The embedding models that hold chunks (at most MODEL_LIST_LIMIT, by name), with the number in all. */
    async listModels (): Promise<{ models: Array<{ embedding_model: string, embedding_dim: number, chunk_count: number }>, total: number }> {
      return await database.read(function * (db) {
        return { models: yield * repo.listModels(db), total: yield * repo.countModels(db) }
      })
    },

    /**
     * A page of chunks matching the filters, as JSON texts; the total that match;
     * and the cursor of the next page (chunk.list.ts: at most `limit` chunks,
     * bounded in bytes, only the embeddings sent are read).
     */
    async listChunks (query: ChunkListInput): Promise<{ chunks: string[], total: number, nextCursor: string | null }> {
      const after = positionOf(query.cursor)
      const limit = query.limit ?? 100
      const withEmbedding = query.include_embedding !== false
      return pageTexts(await database.read((db) => readPage(db, query, after, limit, withEmbedding)))
    }
  }
}

export type ChunkService = ReturnType<typeof createChunkService>
