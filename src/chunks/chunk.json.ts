/**
 * JSON text of chunk responses, written by hand so that every embedding number
 * comes back exactly: JSON.stringify writes -0 as `0`, so it is written `-0.0`
 * here; every other finite number is written as its shortest round-trip form.
 * The stored metadata is JSON text already and is spliced in as it is. Lists
 * size their pages from the stored sizes before reading the rows (estimateChunkJson).
 */
import { decodeEmbedding } from './embedding.js'
import type { ChunkRow } from './chunk.repository.js'

/** A finite number as JSON that parses back to the same float64, -0 included. */
export function numberJson (value: number): string {
  return Object.is(value, -0) ? '-0.0' : String(value)
}

/**
 * Most characters numberJson writes for a float64: a sign, 17 significant
 * digits and a point or an exponent (`-1.2345678901234567e-308`,
 * `-0.0000012345678901234567`).
 */
export const MAX_NUMBER_JSON = 25

/** A list of numbers as a JSON array. */
export function numbersJson (values: ArrayLike<number>): string {
  const parts = new Array<string>(values.length)
  for (let i = 0; i < values.length; i++) parts[i] = numberJson(values[i] as number)
  return `[${parts.join(',')}]`
}

/** One record in the spec's shape; without `embedding` when the row has none (include_embedding=false). */
export function chunkJson (row: Pick<ChunkRow, 'chunk_id' | 'content' | 'embedding_model' | 'embedding_dim' | 'metadata'> & { embedding?: Uint8Array }): string {
  const embedding = row.embedding === undefined ? '' : `,"embedding":${numbersJson(decodeEmbedding(row.embedding))}`
  return `{"chunk_id":${JSON.stringify(row.chunk_id)},"content":${JSON.stringify(row.content)}${embedding},` +
    `"embedding_model":${JSON.stringify(row.embedding_model)},"embedding_dim":${row.embedding_dim},"metadata":${row.metadata}}`
}

/** UTF-8 bytes of `text` as a JSON string. */
const stringBytes = (text: string) => Buffer.byteLength(JSON.stringify(text))

/** The parts of chunkJson's text that do not depend on the row (keys, braces, quotes of the content). */
const FIXED_BYTES = Buffer.byteLength('{"chunk_id":,"content":"",' + '"embedding_model":,"embedding_dim":,"metadata":}')
const EMBEDDING_FIXED_BYTES = Buffer.byteLength(',"embedding":[]')

/**
 * The byte length of chunkJson's text for a row of these sizes: exact for the
 * id, model, dimension and metadata, at most (MAX_NUMBER_JSON + 1) bytes per
 * embedding number, and the content's UTF-8 bytes (escapes such as `\n` add to
 * that, so the text itself is measured before it is sent).
 */
export function estimateChunkJson (size: { chunk_id: string, embedding_model: string, embedding_dim: number, content_bytes: number, metadata_bytes: number }, withEmbedding: boolean): number {
  const embedding = withEmbedding ? EMBEDDING_FIXED_BYTES + size.embedding_dim * (MAX_NUMBER_JSON + 1) - 1 : 0
  return FIXED_BYTES + stringBytes(size.chunk_id) + size.content_bytes + stringBytes(size.embedding_model) +
    String(size.embedding_dim).length + size.metadata_bytes + embedding
}
