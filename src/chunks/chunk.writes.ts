/**
 * The chunk store's writes, each a unit of work: inserts (all or nothing: 422
 * for rule violations, 409 naming every id that exists), a replace (possibly to
 * another model) and a delete. Every write locks the model(s) it touches before
 * the chunk, models in name order and ids in one order, so concurrent writers
 * never deadlock; bumps the version of each model it touches (how search indexes
 * in every process notice it); and records its audit record. A replace or delete
 * that finds its chunk moved to another model meanwhile runs again (transactLocked).
 */
import { recordAudit, type Actor } from '../audit/audit.js'
import type { Db } from '../db/types.js'
import { breathe, type Work, type WorkRunner } from '../db/work.js'
import { ConflictError, NotFoundError, RequestValidationError, valueError, type ValidationIssue } from '../errors.js'
import * as repo from './chunk.repository.js'
import type { ChunkInput } from './chunk.schemas.js'
import { encodeEmbedding } from './embedding.js'

/** Where a field of record `index` sits in the request (for 422 locations). */
export type Locate = (index: number, ...path: string[]) => Array<string | number>

export const notFound = (id: string) => new NotFoundError(`Chunk '${id}' not found`)

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
export function checkBatch (records: ChunkInput[], at: Locate): void {
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

/**
 * Runs a write that locks a chunk's model(s) before the chunk, as every chunk
 * write does (models in name order, then chunks), so writers never deadlock.
 * The model is read before it is locked; if the chunk moved meanwhile, again.
 */
export async function transactLocked (database: WorkRunner, work: (db: Db) => Work<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await database.transact(work)
    } catch (error) {
      if (!(error instanceof ChunkMoved) || attempt === 5) throw error
    }
  }
}

/** Inserts `records` (all or none): 422 for rule violations, 409 naming every id that exists. */
export function * insertAll (db: Db, records: ChunkInput[], at: Locate, actor: Actor, batch: boolean, now: () => Date): Work<void> {
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

  // Encoded one record at a time, the runner free to let the event loop turn between them (a batch is up to 64 MiB of numbers).
  const rows: repo.NewChunkRow[] = []
  for (const r of records) {
    rows.push(toRow(r, revisions.get(r.embedding_model) as number))
    yield * breathe()
  }
  // Ids in one order in every transaction, so concurrent batches never wait on each other in a cycle.
  rows.sort((a, b) => a.chunk_id < b.chunk_id ? -1 : a.chunk_id > b.chunk_id ? 1 : 0)
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

/** Replaces the chunk `id` by `record` (whose chunk_id is `id`), moving it to another model when `record` names one; run by transactLocked. */
export function * replaceLocked (db: Db, id: string, record: ChunkInput, actor: Actor, now: () => Date): Work<void> {
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
}

/** Deletes the chunk `id`, leaving a tombstone for the search indexes; run by transactLocked. */
export function * deleteLocked (db: Db, id: string, actor: Actor, now: () => Date): Work<void> {
  const model = yield * repo.findChunkModel(db, id)
  if (model === undefined) throw notFound(id)
  yield * repo.lockModel(db, model)
  if (!(yield * repo.deleteChunk(db, id, model))) {
    if ((yield * repo.findChunkModel(db, id)) === undefined) throw notFound(id)
    throw new ChunkMoved()
  }
  yield * repo.addTombstone(db, model, id, yield * repo.removeFromModel(db, model))
  yield * recordAudit(db, actor, { action: 'chunk.delete', target: `chunk:${id}`, changes: {}, at: now() })
}
