/**
 * Embedding vectors: their compact storage form (little-endian float64, so every
 * number comes back bit for bit, -0 and subnormals included), a digest of that
 * form (equal digests mean equal vectors, so equal scores), unit vectors
 * computed without overflow, and the exact cosine similarity search reports.
 */
import { hash } from 'node:crypto'
import { endianness } from 'node:os'

const LITTLE_ENDIAN = endianness() === 'LE'

/** The storage form: 8 bytes per number, little-endian. */
export function encodeEmbedding (values: readonly number[]): Buffer {
  const buffer = Buffer.allocUnsafe(values.length * 8)
  if (LITTLE_ENDIAN) {
    new Float64Array(buffer.buffer, buffer.byteOffset, values.length).set(values)
  } else {
    for (let i = 0; i < values.length; i++) buffer.writeDoubleLE(values[i] as number, i * 8)
  }
  return buffer
}

/** The numbers back from their storage form. */
export function decodeEmbedding (bytes: Uint8Array): Float64Array {
  const length = bytes.byteLength >>> 3
  if (LITTLE_ENDIAN && bytes.byteOffset % 8 === 0) return new Float64Array(bytes.buffer, bytes.byteOffset, length).slice()
  const out = new Float64Array(length)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (let i = 0; i < length; i++) out[i] = view.getFloat64(i * 8, true)
  return out
}

/**
 * The numbers of a storage form without copying them when it is aligned (a view
 * that changes with `bytes`: read it before `bytes` can change), else decoded.
 */
export function viewEmbedding (bytes: Uint8Array): Float64Array {
  return LITTLE_ENDIAN && bytes.byteOffset % 8 === 0 ? new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >>> 3) : decodeEmbedding(bytes)
}

/** Bytes of an embedding digest: 128 bits, so no two different embeddings can be found that share one. */
export const DIGEST_BYTES = 16

/** SHA-256 of the storage form, truncated to DIGEST_BYTES: equal digests mean equal numbers, bit for bit. */
export function embeddingDigest (bytes: Uint8Array): Buffer {
  return hash('sha256', bytes, 'buffer').subarray(0, DIGEST_BYTES)
}

/**
 * Writes `values` scaled to length 1 into `out` (same length; a Float32Array
 * rounds each number once); false, writing nothing, for the zero vector. Scaling
 * by the largest magnitude first keeps huge (1e300) and tiny (1e-300) numbers finite.
 */
export function writeUnitVector (values: ArrayLike<number>, out: Float64Array | Float32Array): boolean {
  let largest = 0
  for (let i = 0; i < values.length; i++) largest = Math.max(largest, Math.abs(values[i] as number))
  if (largest === 0) return false
  let sum = 0
  for (let i = 0; i < values.length; i++) {
    const scaled = (values[i] as number) / largest
    sum += scaled * scaled
  }
  const scale = Math.sqrt(sum)
  for (let i = 0; i < values.length; i++) out[i] = ((values[i] as number) / largest) / scale
  return true
}

/** `values` scaled to length 1, or undefined for the zero vector. */
export function unitVector (values: ArrayLike<number>): Float64Array | undefined {
  const unit = new Float64Array(values.length)
  return writeUnitVector(values, unit) ? unit : undefined
}

/** The dot product of two vectors of equal length. */
export function dot (a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number)
  return sum
}

/** Cosine similarity computed in float64 from a unit query; 0 against a zero vector. */
export function cosineToUnit (unitQuery: Float64Array, values: ArrayLike<number>): number {
  const unit = unitVector(values)
  return unit === undefined ? 0 : dot(unitQuery, unit)
}
