/**
 * JSON text of chunk responses, written by hand so that every embedding number
 * comes back exactly: JSON.stringify writes -0 as `0`, so it is written `-0.0`
 * here; every other finite number is written as its shortest round-trip form.
 * The stored metadata is JSON text already and is spliced in as it is.
 */
import { decodeEmbedding } from './embedding.js'
import type { ChunkRow } from './chunk.repository.js'

/** A finite number as JSON that parses back to the same float64, -0 included. */
export function numberJson (value: number): string {
  return Object.is(value, -0) ? '-0.0' : String(value)
}

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
