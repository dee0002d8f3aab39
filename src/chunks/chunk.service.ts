/**
 * Chunk store rules: all-or-nothing writes (a batch stores every record or
 * none), one dimension per embedding model while it has chunks, exact storage,
 * and lists paged by an opaque cursor, each page bounded in bytes. Every write
 * bumps the version of each model it touches, which is how search indexes in
 * every process notice it.
 */
import { recordAudit, type Actor } from '../audit/audit.js'
import type { Db } from '../db/types.js'
import type { Work, WorkRunner } from '../db/work.js'
import { ConflictError, NotFoundError, RequestValidationError, valueError, type ValidationIssue } from '../errors.js'
import * as repo from './chunk.repository.js'
import { chunkJson, estimateChunkJson } from './chunk.json.js'
import { LIST_PAGE_BYTES, type ChunkInput, type ChunkListInput } from './chunk.schemas.js'
import { decodeCursor, encodeCursor } from '../http/cursor.js'
import { encodeEmbedding } from './embedding.js'

/** Where a field of record `index` sits in the request (for 422 locations). */
type Locate = (index: number, ...path: string[]) => Array<string | number>

const notFound = (id: string) => new NotFoundError(`Chunk '${id}' not found`)

/**
 * Bytes of a list page's records: the page's JSON less room for the rest of it
 * (`total` and a `next_cursor`, whose position text is at most about 10 KB).
 */
const PAGE_RECORDS_BYTES = LIST_PAGE_BYTES - 16 * 1024

/**
 * Thrown (rolling the transaction back) when a chunk moved to another model
 * between reading its model and locking it; the write is then run again.
 */
class ChunkMoved extends Error {}

function toRow (record: ChunkInput, revision: number): repo.NewChunkRow {
  const { metadata } = record
  return {
    chunk_id: record.chunk_id,
    content: record.content,
    embedding_model: record.embedding_model,
    embedding_dim: record.embedding_dim,
    embedding: encodeEmbedding(record.embedding),
    parent_id: metadata.parent_id,
    source: metadata.source,
    task: metadata.task,
    sequence: metadata.sequence,
    total_chunks: metadata.total_chunks,
    content_type: metadata.content_type,
    metadata: JSON.stringify(metadata),
    revision
  }
}

/** Ids used twice, and a model given two dimensions, within one request. */
function checkBatch (records: ChunkInput[], at: Locate): void {
  const issues: ValidationIssue[] = []
  const firstId = new Map<string, number>()
  const firstDim = new Map<string, number>()
  records.forEach((record, index) => {
    const earlier = firstId.get(record.chunk_id)
    if (earlier !== undefined) {
      issues.push(valueError(at(index, 'chunk_id'), record.chunk_id, `chunk_id '${record.chunk_id}' is also chunks[${earlier}]'s`))
    } else {
      firstId.set(record.chunk_id, index)
    }
    const dimIndex = firstDim.get(record.embedding_model)
    if (dimIndex === undefined) {
      firstDim.set(record.embedding_model, index)
    } else if ((records[dimIndex] as ChunkInput).embedding_dim !== record.embedding_dim) {
      issues.push(valueError(at(index, 'embedding_dim'), record.embedding_dim,
        `embedding_model '${record.embedding_model}' has embedding_dim ${(records[dimIndex] as ChunkInput).embedding_dim} in chunks[${dimIndex}]`))
    }
  })
  if (issues.length > 0) throw new RequestValidationError(issues)
}

function dimensionIssue (loc: Array<string | number>, model: string, stored: number, sent: number): ValidationIssue {
  return valueError(loc, sent, `embedding_model '${model}' stores ${stored}-dimensional embeddings; this chunk has ${sent}`)
}

/** Cursor of the page after `row`. */
const cursorAfter = (row: repo.ListPosition) => encodeCursor([row.parent_id, row.sequence, row.chunk_id])

/** The position a chunk list cursor holds. */
const readPosition = (v: readonly unknown[]): repo.ListPosition | undefined =>
  v.length === 3 && typeof v[0] === 'string' && Number.isInteger(v[1]) && typeof v[2] === 'string'
    ? { parent_id: v[0], sequence: v[1] as number, chunk_id: v[2] }
    : undefined

/** Builds the chunk service over the database's work runner and a clock. */
export function createChunkService ({ database, now }: { database: WorkRunner, now: () => Date }) {
  /**
   * Runs a write that locks a chunk's model(s) before the chunk, as every chunk
   * write does (models in name order, then chunks), so writers never deadlock.
   * The model is read before it is locked; if the chunk moved meanwhile, again.
   */
  async function transactLocked (work: (db: Db) => Work<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await database.transact(work)
      } catch (error) {
        if (!(error instanceof ChunkMoved) || attempt === 5) throw error
      }
    }
  }

  /** Inserts `records` (all or none): 422 for rule violations, 409 naming every id that exists. */
  function * insertAll (db: Db, records: ChunkInput[], at: Locate, actor: Actor, batch: boolean): Work<void> {
    const groups = new Map<string, Array<{ record: ChunkInput, index: number }>>()
    records.forEach((record, index) => {
      const group = groups.get(record.embedding_model)
      if (group === undefined) groups.set(record.embedding_model, [{ record, index }])
      else group.push({ record, index })
    })
    const models = [...groups.keys()].sort()
    const revisions = new Map<string, number>()
    const issues: ValidationIssue[] = []
    // Models in name order, so concurrent writers lock them in the same order.
    for (const model of models) {
      const group = groups.get(model) as Array<{ record: ChunkInput, index: number }>
      const dim = (group[0] as { record: ChunkInput }).record.embedding_dim
      const state = yield * repo.addToModel(db, model, dim, group.length)
      if (state.embedding_dim !== dim) issues.push(...group.map(({ index }) => dimensionIssue(at(index, 'embedding_dim'), model, state.embedding_dim, dim)))
      revisions.set(model, state.version)
    }
    if (issues.length > 0) throw new RequestValidationError(issues)

    // Ids in one order in every transaction, so concurrent batches never wait on each other in a cycle.
    const rows = records.map((r) => toRow(r, revisions.get(r.embedding_model) as number)).sort((a, b) => a.chunk_id < b.chunk_id ? -1 : a.chunk_id > b.chunk_id ? 1 : 0)
    const inserted = yield * repo.insertNewChunks(db, rows)
    if (inserted.size < records.length) {
      const conflicts = records.map((r, index) => ({ index, chunk_id: r.chunk_id })).filter((c) => !inserted.has(c.chunk_id))
      if (!batch) throw new ConflictError(`Chunk '${records[0]?.chunk_id ?? ''}' already exists`)
      throw new ConflictError(`Chunks already exist: ${conflicts.map((c) => `chunks[${c.index}] '${c.chunk_id}'`).join(', ')}`, { conflicts })
    }
    for (const [model, group] of groups) yield * repo.clearTombstones(db, model, group.map(({ record }) => record.chunk_id))
    const ids = records.map((r) => r.chunk_id)
    yield * recordAudit(db, actor, batch
      ? { action: 'chunk.batch_create', target: 'chunks', changes: { inserted: ids.length, chunk_ids: ids.slice(0, 20), models }, at: now() }
      : { action: 'chunk.create', target: `chunk:${ids[0] ?? ''}`, changes: { embedding_model: models[0], embedding_dim: records[0]?.embedding_dim }, at: now() })
  }

  return {
    /** Stores one record; 409 when its id exists. */
    async createChunk (record: ChunkInput, actor: Actor): Promise<void> {
      await database.transact((db) => insertAll(db, [record], (_index, ...path) => ['body', ...path], actor, false))
    },

    /** Stores every record or none. */
    async createChunks (records: ChunkInput[], actor: Actor): Promise<string[]> {
      const at: Locate = (index, ...path) => ['body', 'chunks', index, ...path]
      checkBatch(records, at)
      await database.transact((db) => insertAll(db, records, at, actor, true))
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
      await transactLocked(function * (db) {
        const from = yield * repo.findChunkModel(db, id)
        if (from === undefined) throw notFound(id)
        const to = record.embedding_model
        let revision = 0
        for (const model of [...new Set([from, to])].sort()) {
          if (model === to) {
            const state = yield * repo.addToModel(db, to, record.embedding_dim, from === to ? 0 : 1)
            if (state.embedding_dim !== record.embedding_dim) {
              throw new RequestValidationError([dimensionIssue(['body', 'embedding_dim'], to, state.embedding_dim, record.embedding_dim)])
            }
            revision = state.version
          } else {
            yield * repo.lockModel(db, from)
          }
        }
        const locked = yield * repo.lockChunkModel(db, id)
        if (locked === undefined) throw notFound(id)
        if (locked !== from) throw new ChunkMoved()
        if (from !== to) {
          yield * repo.addTombstone(db, from, id, yield * repo.removeFromModel(db, from))
          yield * repo.clearTombstones(db, to, [id])
        }
        yield * repo.replaceChunk(db, id, toRow(record, revision))
        yield * recordAudit(db, actor, {
          action: 'chunk.replace', target: `chunk:${id}`, changes: { embedding_model: to, embedding_dim: record.embedding_dim }, at: now()
        })
      })
    },

    async deleteChunk (id: string, actor: Actor): Promise<void> {
      await transactLocked(function * (db) {
        const model = yield * repo.findChunkModel(db, id)
        if (model === undefined) throw notFound(id)
        yield * repo.lockModel(db, model)
        if (!(yield * repo.deleteChunk(db, id, model))) {
          if ((yield * repo.findChunkModel(db, id)) === undefined) throw notFound(id)
          throw new ChunkMoved()
        }
        yield * repo.addTombstone(db, model, id, yield * repo.removeFromModel(db, model))
        yield * recordAudit(db, actor, { action: 'chunk.delete', target: `chunk:${id}`, changes: {}, at: now() })
      })
    },

    /** The embedding models that hold chunks (at most MODEL_LIST_LIMIT, by name), with the number in all. */
    async listModels (): Promise<{ models: Array<{ embedding_model: string, embedding_dim: number, chunk_count: number }>, total: number }> {
      return await database.read(function * (db) {
        return { models: yield * repo.listModels(db), total: yield * repo.countModels(db) }
      })
    },

    /**
     * A page of chunks matching the filters, as JSON texts; the total that match;
     * and the cursor of the next page. The page ends after `limit` chunks or
     * before its JSON would pass LIST_PAGE_BYTES, whichever comes first, but
     * always has a chunk when one is left. Its rows are chosen from their stored
     * sizes before any embedding is read, so only those sent are read.
     */
    async listChunks (query: ChunkListInput): Promise<{ chunks: string[], total: number, nextCursor: string | null }> {
      const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, readPosition)
      const limit = query.limit ?? 100
      const withEmbedding = query.include_embedding !== false
      const { rows, total, last, more } = await database.read(function * (db) {
        const sizes = yield * repo.listChunkSizes(db, query, after, limit + 1)
        let kept = 0
        let bytes = 0
        while (kept < Math.min(limit, sizes.length)) {
          const next = estimateChunkJson(sizes[kept] as repo.ListedSize, withEmbedding) + 1
          if (kept > 0 && bytes + next > PAGE_RECORDS_BYTES) break
          bytes += next
          kept++
        }
        const last = sizes[kept - 1]
        const ids = sizes.slice(0, kept).map((row) => row.chunk_id)
        // By id and filter: on PostgreSQL a row may have changed since its size was read.
        const rows = last === undefined ? [] : yield * repo.findListedChunks(db, query, after, last, ids, withEmbedding)
        return { rows, total: yield * repo.countChunks(db, query), last, more: sizes.length > kept }
      })
      // The estimate leaves out the content's escapes: the texts themselves decide.
      const chunks: string[] = []
      let bytes = 0
      for (const row of rows) {
        const text = chunkJson(row)
        const next = Buffer.byteLength(text) + 1
        if (chunks.length > 0 && bytes + next > PAGE_RECORDS_BYTES) {
          return { chunks, total, nextCursor: cursorAfter(rows[chunks.length - 1] as repo.ListPosition) }
        }
        bytes += next
        chunks.push(text)
      }
      return { chunks, total, nextCursor: more && last !== undefined ? cursorAfter(last) : null }
    }
  }
}

export type ChunkService = ReturnType<typeof createChunkService>
