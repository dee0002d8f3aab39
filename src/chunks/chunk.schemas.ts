/**
 * Schemas of the chunk store: the spec's "Text chunk record" and the requests
 * and responses of `/api/chunks`. The rules a JSON schema cannot state (an
 * embedding's length equal to `embedding_dim`, finite numbers, dates, text a
 * database can store) are in chunk.validation.ts.
 */
import { Type, type Static } from 'typebox'
import { Nullable } from '../http/schemas.js'

/** Largest `embedding_dim` accepted. */
export const MAX_DIM = 16_384
/** Most records in one batch. */
export const MAX_BATCH = 1000
/** Request body limits: one record, and a batch. */
export const RECORD_BODY_LIMIT = 1024 * 1024
export const BATCH_BODY_LIMIT = 64 * 1024 * 1024
/**
 * Most bytes of JSON in one page of `GET /api/chunks`: a page ends before it
 * would pass this, so `limit` is a maximum, not a promise (as DynamoDB's 1 MB
 * pages), and `next_cursor` goes on from there. A page always has at least one
 * chunk, so a single chunk larger than this comes alone in its page.
 */
export const LIST_PAGE_BYTES = 4 * 1024 * 1024

const MAX_INT32 = 2_147_483_647
const ChunkId = Type.String({ minLength: 1, maxLength: 256 })
const ModelName = Type.String({ minLength: 1, maxLength: 256 })
const Label = Type.String({ maxLength: 1000 })
const Embedding = Type.Array(Type.Number(), { minItems: 1, maxItems: MAX_DIM, description: 'float64 numbers, returned exactly as sent' })

export const ChunkMetadata = Type.Object({
  parent_id: Label,
  source: Label,
  task: Label,
  sequence: Type.Integer({ minimum: 0, maximum: MAX_INT32 }),
  total_chunks: Type.Integer({ minimum: 1, maximum: MAX_INT32 }),
  content_type: Label,
  related_chunks: Type.Optional(Nullable(Type.Array(ChunkId, { maxItems: 10_000 }))),
  chunk_length: Type.Optional(Nullable(Type.Integer({ minimum: 0, maximum: MAX_INT32 }))),
  created_timestamp: Type.Optional(Nullable(Type.String({ maxLength: 64, description: 'ISO 8601 date or date-time' })))
}, { additionalProperties: true, description: 'Extra keys are kept and returned as sent' })

/** The spec's text chunk record. */
export const ChunkRecord = Type.Object({
  chunk_id: ChunkId,
  content: Type.String(),
  embedding: Embedding,
  embedding_model: ModelName,
  embedding_dim: Type.Integer({ minimum: 1, maximum: MAX_DIM }),
  metadata: ChunkMetadata
})
export type ChunkInput = Static<typeof ChunkRecord>

export const ChunkBatchBody = Type.Object({
  chunks: Type.Array(ChunkRecord, { minItems: 1, maxItems: MAX_BATCH })
})

export const ChunkParams = Type.Object({ chunk_id: ChunkId })

const filterFields = {
  parent_id: Type.Optional(Label),
  source: Type.Optional(Label),
  task: Type.Optional(Label),
  content_type: Type.Optional(Label),
  embedding_model: Type.Optional(ModelName)
}

export const ChunkListQuery = Type.Object({
  ...filterFields,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'most chunks in the page; a page also ends before 4 MiB of JSON' })),
  // A cursor encodes a position: its parent_id (up to 1,000 characters) and chunk_id (256) as escaped JSON in base64, at most about 10,100 characters.
  cursor: Type.Optional(Type.String({ maxLength: 16_384, description: 'next_cursor of the previous page' })),
  include_embedding: Type.Optional(Type.Boolean({ default: true }))
})
export type ChunkListInput = Static<typeof ChunkListQuery>

export const ChunkSearchBody = Type.Object({
  embedding: Embedding,
  embedding_model: ModelName,
  top_k: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 100 }))),
  filter: Type.Optional(Nullable(Type.Object(filterFields)))
})
export type ChunkSearchInput = Static<typeof ChunkSearchBody>

export const ChunkWritten = Type.Object({ chunk_id: Type.String(), message: Type.String() })
export const ChunkBatchWritten = Type.Object({ inserted: Type.Integer(), chunk_ids: Type.Array(Type.String()), message: Type.String() })

/** A record as returned: `embedding` is left out of lists with include_embedding=false. */
const ChunkOut = Type.Object({
  chunk_id: Type.String(),
  content: Type.String(),
  embedding: Type.Optional(Type.Array(Type.Number())),
  embedding_model: Type.String(),
  embedding_dim: Type.Integer(),
  metadata: Type.Object({}, { additionalProperties: true })
})
export const ChunkResponse = ChunkOut
export const ChunkListResponse = Type.Object({
  chunks: Type.Array(ChunkOut),
  total: Type.Integer({ description: 'chunks matching the filter, on every page' }),
  next_cursor: Nullable(Type.String({ description: 'pass as `cursor` for the next page; null after the last. A page can hold fewer than `limit` chunks and still have a next one' }))
})
export const ChunkModelList = Type.Object({
  models: Type.Array(Type.Object({
    embedding_model: Type.String(),
    embedding_dim: Type.Integer({ description: 'every chunk of the model has this many numbers' }),
    chunk_count: Type.Integer()
  }), { description: 'models holding chunks, by name (at most 1,000)' }),
  total: Type.Integer({ description: 'models holding chunks, in all' })
})
export const ChunkSearchResponse = Type.Object({
  results: Type.Array(Type.Object({
    chunk_id: Type.String(),
    score: Type.Number({ description: 'cosine similarity, highest first' }),
    content: Type.String(),
    metadata: Type.Object({}, { additionalProperties: true })
  }))
})

export const ChunkConflict = Type.Object({
  detail: Type.String(),
  conflicts: Type.Optional(Type.Array(Type.Object({ index: Type.Integer(), chunk_id: Type.String() })))
})
