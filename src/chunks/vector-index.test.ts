import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { cosineToUnit, decodeEmbedding, encodeEmbedding, unitVector } from './embedding.js'
import { instantiateScan, scoreErrorBound, strideFor } from './simd-dot.js'
import { compareIds, VectorIndex, type IndexedChunk } from './vector-index.js'
import { seededRandom } from '../../test/fixtures.js'

const vector = (next: () => number, dim: number) => Array.from({ length: dim }, () => next() * 2 - 1)

/** Exact top k by the textbook formula: cosine in float64, ties by chunk id. */
function bruteForce (chunks: Array<{ chunk_id: string, values: number[] }>, query: number[], k: number): string[] {
  const norm = (v: ArrayLike<number>) => Math.sqrt(Array.from(v).reduce((s, x) => s + x * x, 0))
  return chunks
    .map((c) => {
      let d = 0
      for (let i = 0; i < query.length; i++) d += (query[i] as number) * (c.values[i] as number)
      return { id: c.chunk_id, score: d / (norm(query) * norm(c.values)) }
    })
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, k)
    .map((r) => r.id)
}

describe('the SIMD scan', () => {
  for (const dim of [1, 3, 16, 17, 100, 384, 1536]) {
    it(`scores ${dim}-dimensional unit vectors within the stated error bound`, () => {
      const next = seededRandom(dim)
      const stride = strideFor(dim)
      const rows = 200
      const memory = new WebAssembly.Memory({ initial: Math.ceil((rows * stride * 4 + stride * 4 + rows * 4) / 65536) })
      const scan = instantiateScan(memory)
      const matrix = new Float32Array(memory.buffer, 0, rows * stride)
      const units = Array.from({ length: rows }, () => unitVector(vector(next, dim)) as Float64Array)
      units.forEach((u, r) => matrix.set(u, r * stride))
      const query = unitVector(vector(next, dim)) as Float64Array
      const queryOffset = rows * stride * 4
      new Float32Array(memory.buffer, queryOffset, stride).set(query)
      scan(queryOffset, 0, rows, stride * 4, queryOffset + stride * 4)
      const scores = new Float32Array(memory.buffer, queryOffset + stride * 4, rows)
      const bound = scoreErrorBound(stride)
      units.forEach((u, r) => {
        const exact = u.reduce((s, x, i) => s + x * (query[i] as number), 0)
        assert.ok(Math.abs((scores[r] as number) - exact) <= bound, `row ${r}: ${scores[r]} vs ${exact} (bound ${bound})`)
      })
    })
  }
})

describe('embedding storage and unit vectors', () => {
  it('round-trips awkward float64 values bit for bit', () => {
    const values = [0.1, 1e-300, -0, 5e-324, -1.7976931348623157e308, 1 / 3, 123456789.12345679]
    const back = Array.from(decodeEmbedding(encodeEmbedding(values)))
    assert.equal(back.length, values.length)
    values.forEach((v, i) => assert.ok(Object.is(back[i], v), `${i}: ${back[i]} is not ${v}`))
  })

  it('decodes a buffer that is not 8-byte aligned', () => {
    const bytes = Buffer.concat([Buffer.from([1]), encodeEmbedding([0.25, -2])]).subarray(1)
    assert.deepEqual(Array.from(decodeEmbedding(bytes)), [0.25, -2])
  })

  it('normalises huge and tiny vectors without overflow, and has no unit vector for zero', () => {
    assert.deepEqual(Array.from(unitVector([1e300, 1e300]) as Float64Array).map((x) => x.toFixed(12)), ['0.707106781187', '0.707106781187'])
    assert.deepEqual(Array.from(unitVector([3e-300, 4e-300]) as Float64Array).map((x) => x.toFixed(12)), ['0.600000000000', '0.800000000000'])
    // The norm itself would overflow here: only the scaled numbers' is taken.
    assert.deepEqual(Array.from(unitVector([-Number.MAX_VALUE, Number.MAX_VALUE]) as Float64Array).map((x) => x.toFixed(12)), ['-0.707106781187', '0.707106781187'])
    assert.equal(unitVector([0, -0, 0]), undefined)
    assert.equal(cosineToUnit(unitVector([1, 0]) as Float64Array, [0, 0]), 0)
  })
})

describe('compareIds', () => {
  it('orders ids by code point, as the databases order their UTF-8 bytes', () => {
    const ids = ['', 'a', 'ab', 'b', 'B', 'é', '\u07ff', '\u0800', '\ud7ff', '\ue000', '\uffff', '\ud800\udc00', '\ud83d\ude00', 'a\ud83d\ude00', 'a\uffff', 'a\u0000', 'zz', 'z']
    for (const a of ids) {
      for (const b of ids) {
        assert.equal(compareIds(a, b), Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`)
      }
    }
  })
})

describe('VectorIndex', () => {
  interface Chunk extends IndexedChunk { values: number[] }
  const indexed = (chunkId: string, values: number[], meta: Partial<IndexedChunk> = {}): Chunk =>
    ({ chunk_id: chunkId, values, embedding: encodeEmbedding(values), parent_id: 'p', source: 's', task: 't', content_type: 'c', ...meta })
  const make = (next: () => number, n: number, dim: number): Chunk[] => Array.from({ length: n }, (_, i) => indexed(`c${String(i).padStart(5, '0')}`, vector(next, dim), {
    parent_id: `doc-${i % 7}`,
    source: i % 2 === 0 ? 'even' : 'odd',
    task: 'qa',
    content_type: i % 3 === 0 ? 'table' : 'text'
  }))
  const unit = (values: number[]) => unitVector(values) as Float64Array

  it('keeps the exact top k among its candidates, with and without filters', () => {
    const next = seededRandom(42)
    const dim = 48
    const chunks = make(next, 3000, dim)
    const index = new VectorIndex(dim)
    for (const c of chunks) index.upsert(c)
    assert.equal(index.size, 3000)
    for (let q = 0; q < 20; q++) {
      const query = vector(next, dim)
      for (const [filter, subset] of [
        [{}, chunks],
        [{ source: 'even' }, chunks.filter((c) => c.source === 'even')],
        [{ parent_id: 'doc-3', content_type: 'table' }, chunks.filter((c) => c.parent_id === 'doc-3' && c.content_type === 'table')]
      ] as const) {
        const candidates = new Set(index.candidates(unit(query), 10, filter))
        for (const id of bruteForce([...subset], query, 10)) assert.ok(candidates.has(id), `${id} missing for ${JSON.stringify(filter)}`)
        for (const id of candidates) assert.ok(subset.some((c) => c.chunk_id === id), `${id} does not match ${JSON.stringify(filter)}`)
        // Candidates are a handful, not the whole index.
        assert.ok(candidates.size < 40, `${candidates.size} candidates`)
      }
    }
  })

  it('keeps every row of a near-tie within the margin', () => {
    const index = new VectorIndex(4)
    index.upsert(indexed('a', [1, 0, 0, 0]))
    index.upsert(indexed('b', [1, 1e-9, 0, 0]))
    index.upsert(indexed('c', [0, 1, 0, 0]))
    assert.deepEqual(index.candidates(unit([1, 0, 0, 0]), 1, {}).sort(), ['a', 'b'])
  })

  it('keeps only the top k smallest ids of identical embeddings, each group of near-ties apart', () => {
    const index = new VectorIndex(4)
    const ids = (prefix: string) => Array.from({ length: 50 }, (_, i) => `${prefix}${String(49 - i).padStart(2, '0')}`)
    // Added largest id first, so the smallest come last.
    for (const id of ids('same-')) index.upsert(indexed(id, [1, 2, 3, 4]))
    // Differs below float32 precision: the same row in the matrix, another embedding.
    for (const id of ids('near-')) index.upsert(indexed(id, [1, 2, 3, 4 * (1 + 2 ** -40)]))
    // 0 and -0: the same direction, other bytes (so another group).
    for (const id of ids('pos-')) index.upsert(indexed(id, [1, 2, 0, 4], { source: 'z' }))
    for (const id of ids('neg-')) index.upsert(indexed(id, [1, 2, -0, 4], { source: 'z' }))
    index.upsert(indexed('far', [-1, 0, 0, 0]))
    const query = unit([1, 2, 3, 4])
    assert.deepEqual(index.candidates(query, 1, {}).sort(), ['near-00', 'same-00'])
    assert.deepEqual(index.candidates(query, 3, { source: 's' }).sort(), ['near-00', 'near-01', 'near-02', 'same-00', 'same-01', 'same-02'])
    assert.deepEqual(index.candidates(query, 2, { source: 'z' }).sort(), ['neg-00', 'neg-01', 'pos-00', 'pos-01'])
    // A removal moves the last row (and its digest) into the hole.
    index.remove('same-00')
    index.remove('near-49')
    assert.deepEqual(index.candidates(query, 2, {}).sort(), ['near-00', 'near-01', 'same-01', 'same-02'])
    index.remove('far')
    assert.deepEqual(index.candidates(query, 2, { source: 'z' }).sort(), ['neg-00', 'neg-01', 'pos-00', 'pos-01'])
  })

  it('replaces and removes chunks, moving the last row into a removed one', () => {
    const next = seededRandom(7)
    const chunks = make(next, 50, 8)
    const index = new VectorIndex(8)
    for (const c of chunks) index.upsert(c)
    index.remove('c00010')
    index.remove('missing')
    assert.equal(index.size, 49)
    assert.equal(index.has('c00010'), false)
    const last = chunks[49] as Chunk
    // The moved row is still found by its own vector, with its own metadata.
    assert.deepEqual(index.candidates(unit(last.values), 1, { source: last.source }), ['c00049'])
    const first = chunks[0] as Chunk
    index.upsert({ ...last, embedding: first.embedding })
    assert.equal(index.size, 49)
    assert.deepEqual(index.candidates(unit(first.values), 2, {}).sort(), ['c00000', 'c00049'])
  })

  it('grows past its first capacity', () => {
    const next = seededRandom(9)
    const index = new VectorIndex(3)
    const chunks = make(next, 5000, 3)
    for (const c of chunks) index.upsert(c)
    const target = chunks[4321] as Chunk
    assert.ok(index.candidates(unit(target.values), 1, { parent_id: target.parent_id }).includes(target.chunk_id))
  })
})
