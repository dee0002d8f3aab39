/**
 * Pages of the chunk list, keyset-paged by an opaque cursor and bounded in
 * bytes: a page ends after `limit` chunks or before its JSON would pass
 * LIST_PAGE_BYTES, whichever comes first, but always has a chunk when one is
 * left. Its rows are chosen from their stored sizes before any embedding is read
 * (readPage), so only those sent are read; the JSON texts themselves then have
 * the last word (pageTexts), as the estimate leaves out the content's escapes.
 */
import type { Db } from '../db/types.js'
import type { Work } from '../db/work.js'
import { decodeCursor, encodeCursor } from '../http/cursor.js'
import { chunkJson, estimateChunkJson } from './chunk.json.js'
import * as repo from './chunk.repository.js'
import { LIST_PAGE_BYTES, type ChunkListInput } from './chunk.schemas.js'

/**
 * Bytes of a list page's records: the page's JSON less room for the rest of it
 * (`total` and a `next_cursor`, whose position text is at most about 10 KB).
 */
const PAGE_RECORDS_BYTES = LIST_PAGE_BYTES - 16 * 1024

/** Cursor of the page after `row`. */
const cursorAfter = (row: repo.ListPosition) => encodeCursor([row.parent_id, row.sequence, row.chunk_id])

/** The position a chunk list cursor holds. */
const readPosition = (v: readonly unknown[]): repo.ListPosition | undefined =>
  v.length === 3 && typeof v[0] === 'string' && Number.isInteger(v[1]) && typeof v[2] === 'string'
    ? { parent_id: v[0], sequence: v[1] as number, chunk_id: v[2] }
    : undefined

/** The position a page starts after: none without a cursor; a cursor this service did not write is a 422. */
export const positionOf = (cursor: string | undefined): repo.ListPosition | undefined =>
  cursor === undefined ? undefined : decodeCursor(cursor, readPosition)

/** How many of the rows whose sizes are `sizes` a page keeps: at most `limit`, within PAGE_RECORDS_BYTES by estimate, and at least one. */
export function rowsThatFit (sizes: readonly repo.ListedSize[], limit: number, withEmbedding: boolean): number {
  let kept = 0
  let bytes = 0
  while (kept < Math.min(limit, sizes.length)) {
    const next = estimateChunkJson(sizes[kept] as repo.ListedSize, withEmbedding) + 1
    if (kept > 0 && bytes + next > PAGE_RECORDS_BYTES) break
    bytes += next
    kept++
  }
  return kept
}

/** A page as read: its rows, the total that match, the position of its last row by size, and whether more rows follow. */
export interface ReadPage {
  rows: repo.ListedChunk[]
  total: number
  last: repo.ListedSize | undefined
  more: boolean
}

/** Reads the page after `after`: the rows that fit by their stored sizes, then those rows (only their embeddings). */
export function * readPage (db: Db, query: ChunkListInput, after: repo.ListPosition | undefined, limit: number, withEmbedding: boolean): Work<ReadPage> {
  const sizes = yield * repo.listChunkSizes(db, query, after, limit + 1)
  const kept = rowsThatFit(sizes, limit, withEmbedding)
  const last = sizes[kept - 1]
  const ids = sizes.slice(0, kept).map((row) => row.chunk_id)
  // By id and filter: on PostgreSQL a row may have changed since its size was read.
  const rows = last === undefined ? [] : yield * repo.findListedChunks(db, query, after, last, ids, withEmbedding)
  return { rows, total: yield * repo.countChunks(db, query), last, more: sizes.length > kept }
}

/**
 * The page's JSON texts, the total, and the cursor of the next page. The estimate
 * leaves out the content's escapes: the texts themselves decide, and a page cut
 * short by them goes on after its last text.
 */
export function pageTexts ({ rows, total, last, more }: ReadPage): { chunks: string[], total: number, nextCursor: string | null } {
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
