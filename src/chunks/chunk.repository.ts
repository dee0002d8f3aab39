/**
 * Chunk rows, embedding models and tombstones: plain generator functions taking
 * the query builder first (db/work.ts). PostgreSQL returns bigint counters as
 * text, so every counter read here goes through Number().
 */
import type { Insertable, Selectable } from 'kysely'
import { lockRows } from '../db/create-db.js'
import type { ChunkTable, Db } from '../db/types.js'
import { all, execute, first, type Work } from '../db/work.js'
import type { ChunkFilter } from './vector-index.js'

export type ChunkRow = Selectable<ChunkTable>
export type NewChunkRow = Insertable<ChunkTable>

/** A model's dimension, chunk count and change counter. */
export interface ModelState {
  embedding_dim: number
  chunk_count: number
  version: number
}

const toState = (row: { embedding_dim: number, chunk_count: number, version: number | string }): ModelState =>
  ({ embedding_dim: Number(row.embedding_dim), chunk_count: Number(row.chunk_count), version: Number(row.version) })

/** The model's state, or undefined when it never had a chunk. */
export function * findModel (db: Db, model: string): Work<ModelState | undefined> {
  const row = yield * first(db.selectFrom('chunk_models').select(['embedding_dim', 'chunk_count', 'version']).where('embedding_model', '=', model))
  return row === undefined ? undefined : toState(row)
}

/** At most this many models are listed (a model exists only while it has chunks). */
export const MODEL_LIST_LIMIT = 1000

/** Models holding chunks, by name: their dimension and chunk count. */
export function * listModels (db: Db): Work<Array<{ embedding_model: string, embedding_dim: number, chunk_count: number }>> {
  const rows = yield * all(db.selectFrom('chunk_models').select(['embedding_model', 'embedding_dim', 'chunk_count'])
    .where('chunk_count', '>', 0).orderBy('embedding_model').limit(MODEL_LIST_LIMIT))
  return rows.map((row) => ({ embedding_model: row.embedding_model, embedding_dim: Number(row.embedding_dim), chunk_count: Number(row.chunk_count) }))
}

/** How many models hold chunks. */
export function * countModels (db: Db): Work<number> {
  const row = yield * first(db.selectFrom('chunk_models').select((eb) => eb.fn.countAll().as('n')).where('chunk_count', '>', 0))
  return Number(row?.n ?? 0)
}

/**
 * Counts `added` chunks of `dim` numbers into the model and bumps its version,
 * creating it if needed; returns the new state. A model keeps its dimension while
 * it has chunks, so a returned `embedding_dim` other than `dim` means a mismatch.
 * The upsert locks the model's row, so writers of one model take turns.
 */
export function * addToModel (db: Db, model: string, dim: number, added: number): Work<ModelState> {
  const row = yield * first(db.insertInto('chunk_models')
    .values({ embedding_model: model, embedding_dim: dim, chunk_count: added, version: 1 })
    .onConflict((oc) => oc.column('embedding_model').doUpdateSet((eb) => ({
      version: eb('chunk_models.version', '+', 1),
      embedding_dim: eb.case().when('chunk_models.chunk_count', '=', 0).then(eb.ref('excluded.embedding_dim')).else(eb.ref('chunk_models.embedding_dim')).end(),
      chunk_count: eb('chunk_models.chunk_count', '+', eb.ref('excluded.chunk_count'))
    })))
    .returning(['embedding_dim', 'chunk_count', 'version']))
  return toState(row as ModelState)
}

/** Takes one chunk out of the model's count and bumps its version; returns the new version. */
export function * removeFromModel (db: Db, model: string): Work<number> {
  const row = yield * first(db.updateTable('chunk_models')
    .set((eb) => ({ version: eb('version', '+', 1), chunk_count: eb('chunk_count', '-', 1) }))
    .where('embedding_model', '=', model)
    .returning('version'))
  return Number(row?.version)
}

/** Rows per INSERT: one statement text for full groups, so SQLite reuses it. */
const INSERT_GROUP = 100

/**
 * Bytes of embeddings per INSERT at most (a row alone may pass it): one statement
 * runs synchronously on SQLite, so a group of large embeddings (100 × 128 KiB at
 * 16,384 dimensions) is cut into several, the runner free to let the event loop turn
 * between them.
 */
const INSERT_BYTES = 2 * 1024 * 1024

/** `rows` in groups of at most INSERT_GROUP rows and about INSERT_BYTES of embeddings. */
function insertGroups (rows: NewChunkRow[]): NewChunkRow[][] {
  const groups: NewChunkRow[][] = []
  let group: NewChunkRow[] = []
  let bytes = 0
  for (const row of rows) {
    const size = row.embedding.byteLength
    if (group.length === INSERT_GROUP || (group.length > 0 && bytes + size > INSERT_BYTES)) {
      groups.push(group)
      group = []
      bytes = 0
    }
    group.push(row)
    bytes += size
  }
  if (group.length > 0) groups.push(group)
  return groups
}

/** Inserts the rows that do not exist yet and returns the ids it inserted. */
export function * insertNewChunks (db: Db, rows: NewChunkRow[]): Work<Set<string>> {
  const inserted = new Set<string>()
  for (const group of insertGroups(rows)) {
    const ids = yield * all(db.insertInto('chunks').values(group).onConflict((oc) => oc.column('chunk_id').doNothing()).returning('chunk_id'))
    for (const { chunk_id: id } of ids) inserted.add(id)
  }
  return inserted
}

/** Forgets the tombstones of `ids` in `model` (they exist again). */
export function * clearTombstones (db: Db, model: string, ids: string[]): Work<void> {
  for (let start = 0; start < ids.length; start += 500) {
    yield * execute(db.deleteFrom('chunk_tombstones').where('embedding_model', '=', model).where('chunk_id', 'in', ids.slice(start, start + 500)))
  }
}

/** Records that `id` left `model` at `revision`. */
export function * addTombstone (db: Db, model: string, id: string, revision: number): Work<void> {
  yield * execute(db.insertInto('chunk_tombstones')
    .values({ embedding_model: model, chunk_id: id, revision })
    .onConflict((oc) => oc.columns(['embedding_model', 'chunk_id']).doUpdateSet({ revision })))
}

/** The chunk with `id`, or undefined. */
export function * findChunk (db: Db, id: string): Work<ChunkRow | undefined> {
  return yield * first(db.selectFrom('chunks').selectAll().where('chunk_id', '=', id))
}

/** The model of the chunk with `id`, or undefined when there is no such chunk. */
export function * findChunkModel (db: Db, id: string): Work<string | undefined> {
  return (yield * first(db.selectFrom('chunks').select('embedding_model').where('chunk_id', '=', id)))?.embedding_model
}

/** The model of the chunk with `id`, the row locked for the rest of the transaction (PostgreSQL). */
export function * lockChunkModel (db: Db, id: string): Work<string | undefined> {
  return (yield * first(lockRows(db, db.selectFrom('chunks').select('embedding_model').where('chunk_id', '=', id))))?.embedding_model
}

/** Locks the model's row for the rest of the transaction (PostgreSQL). */
export function * lockModel (db: Db, model: string): Work<void> {
  yield * all(lockRows(db, db.selectFrom('chunk_models').select('embedding_model').where('embedding_model', '=', model)))
}

/** Overwrites the chunk with `id`. */
export function * replaceChunk (db: Db, id: string, row: NewChunkRow): Work<void> {
  yield * execute(db.updateTable('chunks').set(row).where('chunk_id', '=', id))
}

/** Deletes the chunk with `id` if it belongs to `model`; false when there was no such chunk. */
export function * deleteChunk (db: Db, id: string, model: string): Work<boolean> {
  return (yield * first(db.deleteFrom('chunks').where('chunk_id', '=', id).where('embedding_model', '=', model).returning('chunk_id'))) !== undefined
}

/** Filters of the list, as query conditions. */
export interface ListFilter extends ChunkFilter {
  embedding_model?: string | undefined
}

function filtered (db: Db, filter: ListFilter) {
  let query = db.selectFrom('chunks')
  for (const field of ['parent_id', 'source', 'task', 'content_type', 'embedding_model'] as const) {
    const value = filter[field]
    if (value !== undefined) query = query.where(field, '=', value)
  }
  return query
}

/** The position after which a page starts. */
export interface ListPosition {
  parent_id: string
  sequence: number
  chunk_id: string
}

/** What a list page needs to know of a row before reading it: its position and the sizes of its JSON. */
export interface ListedSize extends ListPosition {
  embedding_model: string
  embedding_dim: number
  /** UTF-8 bytes of the content and of the metadata's JSON text. */
  content_bytes: number
  metadata_bytes: number
}

/** Positions and sizes of up to `limit` chunks matching `filter` after `after`, by parent, sequence and id. */
export function * listChunkSizes (db: Db, filter: ListFilter, after: ListPosition | undefined, limit: number): Work<ListedSize[]> {
  let query = filtered(db, filter)
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('parent_id', 'sequence', 'chunk_id'), '>', eb.tuple(after.parent_id, after.sequence, after.chunk_id)))
  }
  const rows = yield * all(query
    .select((eb) => [
      'chunk_id', 'parent_id', 'sequence', 'embedding_model', 'embedding_dim',
      eb.fn<number | string>('octet_length', ['content']).as('content_bytes'),
      eb.fn<number | string>('octet_length', ['metadata']).as('metadata_bytes')
    ])
    .orderBy('parent_id').orderBy('sequence').orderBy('chunk_id').limit(limit))
  return rows.map((row) => ({ ...row, content_bytes: Number(row.content_bytes), metadata_bytes: Number(row.metadata_bytes) }))
}

/** A listed chunk: without `embedding` when the list leaves it out. */
export type ListedChunk = Pick<ChunkRow, 'chunk_id' | 'content' | 'embedding_model' | 'embedding_dim' | 'parent_id' | 'sequence' | 'metadata'> & { embedding?: Uint8Array }

/**
 * The chunks with these ids that (still) match `filter`, by parent, sequence and
 * id. The ids are those listed after `after` up to `last`: the query keeps to
 * that range, so the index that finds the page reads only the page.
 */
export function * findListedChunks (
  db: Db, filter: ListFilter, after: ListPosition | undefined, last: ListPosition, ids: string[], withEmbedding: boolean
): Work<ListedChunk[]> {
  let query = filtered(db, filter)
    .where((eb) => eb(eb.refTuple('parent_id', 'sequence', 'chunk_id'), '<=', eb.tuple(last.parent_id, last.sequence, last.chunk_id)))
    .where('chunk_id', 'in', ids)
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('parent_id', 'sequence', 'chunk_id'), '>', eb.tuple(after.parent_id, after.sequence, after.chunk_id)))
  }
  const columns = ['chunk_id', 'content', 'embedding_model', 'embedding_dim', 'parent_id', 'sequence', 'metadata'] as const
  return yield * all((withEmbedding ? query.select([...columns, 'embedding']) : query.select(columns))
    .orderBy('parent_id').orderBy('sequence').orderBy('chunk_id'))
}

/** How many chunks match `filter`. */
export function * countChunks (db: Db, filter: ListFilter): Work<number> {
  const row = yield * first(filtered(db, filter).select((eb) => eb.fn.countAll<number | string>().as('n')))
  return Number(row?.n ?? 0)
}

/** What the search index keeps of a chunk, and the revision it was written at. */
export type IndexRow = Pick<ChunkRow, 'chunk_id' | 'embedding' | 'embedding_dim' | 'parent_id' | 'source' | 'task' | 'content_type' | 'revision'>

/** A page of the model's chunks written after revision `since`, in (revision, id) order after `after`. */
export function * chunksChangedSince (db: Db, model: string, since: number, after: { revision: number, chunk_id: string } | undefined, limit: number): Work<IndexRow[]> {
  let query = db.selectFrom('chunks')
    .select(['chunk_id', 'embedding', 'embedding_dim', 'parent_id', 'source', 'task', 'content_type', 'revision'])
    .where('embedding_model', '=', model)
    .where('revision', '>', since)
  if (after !== undefined) {
    query = query.where((eb) => eb(eb.refTuple('revision', 'chunk_id'), '>', eb.tuple(after.revision, after.chunk_id)))
  }
  const rows = yield * all(query.orderBy('revision').orderBy('chunk_id').limit(limit))
  return rows.map((row) => ({ ...row, revision: Number(row.revision) }))
}

/** Ids of the chunks that left the model after revision `since`. */
export function * tombstonesSince (db: Db, model: string, since: number): Work<string[]> {
  const rows = yield * all(db.selectFrom('chunk_tombstones').select('chunk_id').where('embedding_model', '=', model).where('revision', '>', since))
  return rows.map((row) => row.chunk_id)
}

/** The chunks with these ids (in no particular order). */
export function * findChunks (db: Db, ids: string[]): Work<ChunkRow[]> {
  const rows: ChunkRow[] = []
  for (let start = 0; start < ids.length; start += 500) {
    rows.push(...yield * all(db.selectFrom('chunks').selectAll().where('chunk_id', 'in', ids.slice(start, start + 500))))
  }
  return rows
}
