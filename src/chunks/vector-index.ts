/**
 * The in-memory search index of one embedding model: every chunk's unit vector
 * as a row of a Float32 matrix in WebAssembly memory, with its id, a digest of
 * its stored embedding and the metadata fields searches filter on. It answers
 * which chunks *can* be among the k most similar (see `candidates`); the caller
 * ranks those exactly in float64 from their stored rows.
 */
import { DIGEST_BYTES, embeddingDigest, viewEmbedding, writeUnitVector } from './embedding.js'
import { instantiateScan, scoreErrorBound, strideFor, type Scan } from './simd-dot.js'

/**
 * Orders strings by code point (UTF-8 byte order), as both databases order chunk
 * ids. UTF-16 order differs only where a surrogate (a code point above U+FFFF)
 * meets U+E000–U+FFFF, so those two ranges swap places before comparing.
 */
export function compareIds (a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x === y) continue
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000
    }
    return x < y ? -1 : 1
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
}

/** The metadata fields a search may filter on. */
export interface ChunkFilter {
  parent_id?: string | undefined
  source?: string | undefined
  task?: string | undefined
  content_type?: string | undefined
}

/** What the index is given of a chunk. */
export interface IndexedChunk {
  chunk_id: string
  /** The embedding's storage form (embedding.ts). */
  embedding: Uint8Array
  parent_id: string
  source: string
  task: string
  content_type: string
}

/** The metadata fields a search filters on, as the index keeps them. */
export const FILTER_FIELDS = ['parent_id', 'source', 'task', 'content_type'] as const
const PAGE = 65536
const MAX_PAGES = 65536

/** A min-heap of (score, row) keeping the `k` best scores seen. */
class TopK {
  private readonly scores: Float64Array
  private readonly rows: Int32Array
  size = 0
  constructor (private readonly k: number) {
    this.scores = new Float64Array(k)
    this.rows = new Int32Array(k)
  }

  /** The smallest kept score (the k-th best once full). */
  get floor (): number { return this.scores[0] as number }

  offer (score: number, row: number): void {
    if (this.size < this.k) {
      let i = this.size++
      while (i > 0) {
        const parent = (i - 1) >> 1
        if ((this.scores[parent] as number) <= score) break
        this.scores[i] = this.scores[parent] as number
        this.rows[i] = this.rows[parent] as number
        i = parent
      }
      this.scores[i] = score
      this.rows[i] = row
    } else if (score > (this.scores[0] as number)) {
      let i = 0
      while (true) {
        const left = 2 * i + 1
        if (left >= this.k) break
        const right = left + 1
        const child = right < this.k && (this.scores[right] as number) < (this.scores[left] as number) ? right : left
        if ((this.scores[child] as number) >= score) break
        this.scores[i] = this.scores[child] as number
        this.rows[i] = this.rows[child] as number
        i = child
      }
      this.scores[i] = score
      this.rows[i] = row
    }
  }
}

/** The `k` smallest of `ids` by compareIds, in that order (all of them when there are at most `k`). */
function smallestIds (ids: string[], k: number): string[] {
  if (ids.length <= k) return ids
  const kept: string[] = []
  for (const id of ids) {
    if (kept.length === k && compareIds(id, kept[k - 1] as string) >= 0) continue
    let low = 0
    let high = kept.length
    while (low < high) {
      const mid = (low + high) >> 1
      if (compareIds(kept[mid] as string, id) < 0) low = mid + 1
      else high = mid
    }
    kept.splice(low, 0, id)
    if (kept.length > k) kept.pop()
  }
  return kept
}

/** The search index of one embedding model (all its vectors have `dim` numbers). */
export class VectorIndex {
  /** The model's change counter this index reflects (see chunk-search.ts). */
  version = 0
  readonly stride: number
  private readonly memory = new WebAssembly.Memory({ initial: 1 })
  private readonly scan: Scan
  private capacity = 0
  private rows = 0
  private readonly ids: string[] = []
  private readonly rowOf = new Map<string, number>()
  /** DIGEST_BYTES per row: the digest of the row's stored embedding. */
  private digests = new Uint8Array(0)
  private readonly fields: Record<typeof FILTER_FIELDS[number], string[]> = { parent_id: [], source: [], task: [], content_type: [] }

  constructor (readonly dim: number) {
    this.stride = strideFor(dim)
    this.scan = instantiateScan(this.memory)
  }

  /** How many chunks the index holds. */
  get size (): number { return this.rows }

  /** Whether the index holds `chunkId`. */
  has (chunkId: string): boolean { return this.rowOf.has(chunkId) }

  /** Byte offsets of the scratch areas, which sit after the matrix. */
  private get queryOffset (): number { return this.capacity * this.stride * 4 }
  private get scoresOffset (): number { return this.queryOffset + this.stride * 4 }

  private reserve (rows: number): void {
    if (rows <= this.capacity) return
    const capacity = Math.max(1024, this.capacity * 2, rows)
    const bytes = capacity * this.stride * 4 + this.stride * 4 + capacity * 4
    const pages = Math.ceil(bytes / PAGE)
    if (pages > MAX_PAGES) throw new Error(`the search index of a ${this.dim}-dimensional model is limited to 4 GiB`)
    const current = this.memory.buffer.byteLength / PAGE
    if (pages > current) this.memory.grow(pages - current)
    const digests = new Uint8Array(capacity * DIGEST_BYTES)
    digests.set(this.digests.subarray(0, this.rows * DIGEST_BYTES))
    this.digests = digests
    this.capacity = capacity
  }

  /** Adds a chunk, or replaces the one with the same id. */
  upsert (chunk: IndexedChunk): void {
    let row = this.rowOf.get(chunk.chunk_id)
    if (row === undefined) {
      this.reserve(this.rows + 1)
      row = this.rows++
      this.rowOf.set(chunk.chunk_id, row)
      this.ids[row] = chunk.chunk_id
    }
    const matrix = new Float32Array(this.memory.buffer, row * this.stride * 4, this.stride)
    // A zero vector stays a zero row: its similarity to anything is 0.
    if (!writeUnitVector(viewEmbedding(chunk.embedding), matrix)) matrix.fill(0, 0, this.dim)
    matrix.fill(0, this.dim)
    this.digests.set(embeddingDigest(chunk.embedding), row * DIGEST_BYTES)
    for (const field of FILTER_FIELDS) this.fields[field][row] = chunk[field]
  }

  /** Removes a chunk (no-op when absent): the last row moves into its place. */
  remove (chunkId: string): void {
    const row = this.rowOf.get(chunkId)
    if (row === undefined) return
    const last = --this.rows
    this.rowOf.delete(chunkId)
    if (row !== last) {
      const matrix = new Float32Array(this.memory.buffer)
      matrix.copyWithin(row * this.stride, last * this.stride, (last + 1) * this.stride)
      this.digests.copyWithin(row * DIGEST_BYTES, last * DIGEST_BYTES, (last + 1) * DIGEST_BYTES)
      const moved = this.ids[last] as string
      this.ids[row] = moved
      this.rowOf.set(moved, row)
      for (const field of FILTER_FIELDS) this.fields[field][row] = this.fields[field][last] as string
    }
    this.ids.length = last
    for (const field of FILTER_FIELDS) this.fields[field].length = last
  }

  /** The row's digest as a string (8 UTF-16 units), for grouping. */
  private digestKey (row: number): string {
    const d = this.digests
    const at = row * DIGEST_BYTES
    let key = ''
    for (let i = at; i < at + DIGEST_BYTES; i += 2) key += String.fromCharCode((d[i] as number) | ((d[i + 1] as number) << 8))
    return key
  }

  /**
   * The ids of the chunks matching `filter` whose similarity to `unitQuery` can
   * be among the `topK` best: the SIMD scores are within `scoreErrorBound` of the
   * exact ones, so every row scoring at least the k-th best minus twice that bound
   * can be. Rows with equal digests hold the same embedding, so they score the
   * same and only the `topK` smallest ids (by compareIds, the order that breaks
   * ties) of such a group can be in the answer: the others are left out. Ranking
   * the candidates exactly gives the exact top k.
   */
  candidates (unitQuery: Float64Array, topK: number, filter: ChunkFilter): string[] {
    if (this.rows === 0) return []
    const query = new Float32Array(this.memory.buffer, this.queryOffset, this.stride)
    query.fill(0)
    query.set(unitQuery)
    this.scan(this.queryOffset, 0, this.rows, this.stride * 4, this.scoresOffset)
    const scores = new Float32Array(this.memory.buffer, this.scoresOffset, this.rows)

    const active = FILTER_FIELDS.filter((field) => filter[field] !== undefined)
    const matches = (row: number): boolean => {
      for (const field of active) if (this.fields[field][row] !== filter[field]) return false
      return true
    }
    const best = new TopK(topK)
    for (let row = 0; row < this.rows; row++) {
      if (active.length === 0 || matches(row)) best.offer(scores[row] as number, row)
    }
    const threshold = best.size < topK ? -Infinity : best.floor - 2 * scoreErrorBound(this.stride)
    const rows: number[] = []
    for (let row = 0; row < this.rows; row++) {
      if ((scores[row] as number) >= threshold && (active.length === 0 || matches(row))) rows.push(row)
    }
    // Fewer rows than topK: no group can have more than topK of them.
    if (rows.length <= topK) return rows.map((row) => this.ids[row] as string)
    const groups = new Map<string, string[]>()
    for (const row of rows) {
      const key = this.digestKey(row)
      const group = groups.get(key)
      if (group === undefined) groups.set(key, [this.ids[row] as string])
      else group.push(this.ids[row] as string)
    }
    const ids: string[] = []
    for (const group of groups.values()) ids.push(...smallestIds(group, topK))
    return ids
  }
}
