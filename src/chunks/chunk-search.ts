/**
 * Exact similarity search over a model's chunks. Each process keeps one
 * VectorIndex per embedding model, loaded on the first search and brought up to
 * date before every search: the model's change counter is read from the
 * database per query, and when another write (from this process or any other on
 * the same database) has moved it, the chunks written since and the tombstones of
 * those removed since are applied. No search answers from an index older than the
 * counter it read. Candidates from the index are ranked in float64 from the
 * stored embeddings, so the results equal a brute-force search. Of chunks with
 * identical embeddings only as many as can be in the answer are read (the index
 * tells them apart by a digest), so ties cost no more than distinct vectors.
 */
import type { WorkRunner } from '../db/work.js'
import { RequestValidationError, valueError } from '../errors.js'
import * as repo from './chunk.repository.js'
import type { ChunkSearchInput } from './chunk.schemas.js'
import { finiteNumberIssue } from './chunk.validation.js'
import { cosineToUnit, unitVector, viewEmbedding } from './embedding.js'
import { compareIds, FILTER_FIELDS, VectorIndex, type ChunkFilter } from './vector-index.js'

/** Rows read per query while loading an index. */
const LOAD_PAGE = 2000

export interface SearchResult {
  row: repo.ChunkRow
  score: number
}

/** Builds the search over the database's work runner. */
export function createChunkSearch ({ database }: { database: WorkRunner }) {
  const indexes = new Map<string, VectorIndex>()
  const loading = new Map<string, Promise<void>>()

  /** Applies every change after the index's version, up to at least `state.version`. */
  async function catchUp (model: string, state: repo.ModelState): Promise<void> {
    const current = indexes.get(model)
    // A model emptied and refilled with another dimension starts over.
    const fresh = current === undefined || current.dim !== state.embedding_dim
    const index = fresh ? new VectorIndex(state.embedding_dim) : current
    const since = index.version
    for (const id of await database.read((db) => repo.tombstonesSince(db, model, since))) index.remove(id)
    let after: { revision: number, chunk_id: string } | undefined
    let stale = false
    while (true) {
      const page = after
      const rows = await database.read((db) => repo.chunksChangedSince(db, model, since, page, LOAD_PAGE))
      for (const row of rows) {
        if (row.embedding_dim !== index.dim) {
          stale = true
          continue
        }
        index.upsert(row)
      }
      const last = rows[rows.length - 1]
      if (rows.length < LOAD_PAGE || last === undefined) break
      after = { revision: last.revision, chunk_id: last.chunk_id }
    }
    // Rows of another dimension mean the model changed under the load: next search starts over.
    index.version = stale ? -1 : Math.max(index.version, state.version)
    indexes.set(model, index)
  }

  /** The model's index, at least as new as `state`; one load at a time per model. */
  async function indexFor (model: string, state: repo.ModelState): Promise<VectorIndex> {
    while (true) {
      const index = indexes.get(model)
      if (index !== undefined && index.dim === state.embedding_dim && index.version >= state.version) return index
      const running = loading.get(model)
      if (running !== undefined) {
        await running
        continue
      }
      const load = catchUp(model, state).finally(() => loading.delete(model))
      loading.set(model, load)
      await load
    }
  }

  return {
    /** The `top_k` chunks of the model most similar to the query, highest cosine similarity first (ties by chunk id). */
    async search (input: ChunkSearchInput): Promise<SearchResult[]> {
      const model = input.embedding_model
      const bad = input.embedding.findIndex((x) => !Number.isFinite(x))
      if (bad !== -1) throw new RequestValidationError([finiteNumberIssue(['body', 'embedding', bad], input.embedding[bad])])
      const unit = unitVector(input.embedding)
      if (unit === undefined) {
        throw new RequestValidationError([valueError(['body', 'embedding'], input.embedding, 'embedding is all zeros: its cosine similarity is undefined')])
      }
      const state = await database.read((db) => repo.findModel(db, model))
      if (state === undefined || state.chunk_count === 0) return []
      if (state.embedding_dim !== input.embedding.length) {
        throw new RequestValidationError([valueError(['body', 'embedding'], input.embedding,
          `embedding has ${input.embedding.length} numbers but embedding_model '${model}' stores ${state.embedding_dim}-dimensional embeddings`)])
      }
      const filter: ChunkFilter = input.filter ?? {}
      if (input.filter?.embedding_model != null && input.filter.embedding_model !== model) return []
      const topK = input.top_k ?? 10

      const index = await indexFor(model, state)
      const ids = index.candidates(unit, topK, filter)
      const rows = ids.length === 0 ? [] : await database.read((db) => repo.findChunks(db, ids))
      // A candidate changed since the index read it: its stored row decides.
      return rows
        .filter((row) => row.embedding_model === model && FILTER_FIELDS.every((field) => filter[field] === undefined || row[field] === filter[field]))
        .map((row) => ({ row, score: cosineToUnit(unit, viewEmbedding(row.embedding)) }))
        .sort((a, b) => b.score - a.score || compareIds(a.row.chunk_id, b.row.chunk_id))
        .slice(0, topK)
    }
  }
}

export type ChunkSearch = ReturnType<typeof createChunkSearch>
