import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { seededRandom } from '../../test/fixtures.js'
import { chunkJson, estimateChunkJson, MAX_NUMBER_JSON, numberJson } from './chunk.json.js'
import { encodeEmbedding } from './embedding.js'

describe('chunk JSON sizes', () => {
  it('writes no float64 in more than MAX_NUMBER_JSON characters', () => {
    const longest = [-0.0000012345678901234567, -1.2345678901234567e-308, -1.7976931348623157e308, -123456789012345680000, -5e-324, -0]
    assert.equal(Math.max(...longest.map((x) => numberJson(x).length)), MAX_NUMBER_JSON)
    const next = seededRandom(25)
    for (let i = 0; i < 100_000; i++) {
      // Random bit patterns: every exponent, subnormals included (NaN and infinities are never stored).
      const x = new Float64Array(new Uint32Array([Math.floor(next() * 2 ** 32), Math.floor(next() * 2 ** 32)]).buffer)[0] as number
      if (Number.isFinite(x)) assert.ok(numberJson(x).length <= MAX_NUMBER_JSON, `${numberJson(x)} is longer`)
    }
  })

  it('estimates a record exactly without its embedding, and at least its size with it', () => {
    const next = seededRandom(7)
    const metadata = '{"parent_id":"doc-é","source":"portal","task":"qa","sequence":3,"total_chunks":9,"content_type":"text","x":"✓"}'
    for (const dim of [1, 3, 384]) {
      const embedding = Array.from({ length: dim }, () => -(next() * 1e-6))
      const row = { chunk_id: 'doc-é/3 ✓', content: 'Zweiter Absatz — 😀', embedding_model: 'mini-3', embedding_dim: dim, metadata, embedding: encodeEmbedding(embedding) }
      const size = { ...row, content_bytes: Buffer.byteLength(row.content), metadata_bytes: Buffer.byteLength(metadata) }
      const { embedding: _, ...withoutEmbedding } = row
      assert.equal(estimateChunkJson(size, false), Buffer.byteLength(chunkJson(withoutEmbedding)))
      const actual = Buffer.byteLength(chunkJson(row))
      const estimate = estimateChunkJson(size, true)
      assert.ok(estimate >= actual && estimate <= actual + dim * 8, `${dim}: estimate ${estimate}, actual ${actual}`)
    }
  })
})
