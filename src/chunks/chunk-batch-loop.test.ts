/**
 * A large chunk batch is stored without holding the event loop (issue #26):
 * `/healthz` answers while it is written (on SQLite, while its transaction is open),
 * and it is still stored all or none.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { chunk, seededRandom } from '../../test/fixtures.js'
import { answeredInside, probeHealthz } from '../../test/healthz-probe.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { MAX_BATCH } from './chunk.schemas.js'

const DIM = 256

/** The largest batch by count: MAX_BATCH records of DIM numbers (about 5 MB of JSON). */
function batch (prefix: string): string {
  const random = seededRandom(26)
  const chunks = Array.from({ length: MAX_BATCH }, (_, i) => chunk(`${prefix}-${i}`, {
    embedding: Array.from({ length: DIM }, () => random() - 0.5), embedding_model: 'loop', embedding_dim: DIM
  }, { sequence: i, total_chunks: MAX_BATCH }))
  return JSON.stringify({ chunks })
}

for (const dialect of dialects) {
  describeOn(dialect, 'a large chunk batch shares the event loop', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const store = async (body: string) => await t.request({ method: 'POST', url: '/api/chunks/batch', payload: body, headers: { 'content-type': 'application/json' } })
    const total = async () => (await t.request({ method: 'GET', url: '/api/chunks?limit=1&include_embedding=false' })).body.total as number

    it('answers /healthz while a batch of 1,000 chunks is stored (on SQLite, with its transaction open), and stores them all', async () => {
      const storing = store(batch('loop'))
      const seen = await probeHealthz(t, storing)
      const stored = await storing
      assert.equal(stored.status, 200, JSON.stringify(stored.body).slice(0, 300))
      assert.equal(stored.body.inserted, MAX_BATCH)
      assert.ok(answeredInside(t, seen), `no /healthz answer (200) came while the batch was stored (${seen.answers.length} asked)`)
      assert.equal(await total(), MAX_BATCH)
    })

    it('stores none of a large batch one of whose ids exists, a write asked meanwhile kept', async () => {
      assert.equal((await store(JSON.stringify({ chunks: [chunk('taken-999', { embedding: Array.from({ length: DIM }, () => 0.5), embedding_model: 'loop', embedding_dim: DIM })] }))).status, 200)
      let written: Promise<Awaited<ReturnType<TestApp['request']>>> | undefined
      const storing = store(batch('taken'))
      const seen = await probeHealthz(t, storing, () => {
        written = t.request({ method: 'POST', url: '/api/providers', payload: { name: 'written-during-batch' } })
      })
      const refused = await storing
      assert.equal(refused.status, 409)
      assert.deepEqual(refused.body.conflicts, [{ index: 999, chunk_id: 'taken-999' }])
      assert.ok(written !== undefined && answeredInside(t, seen), 'nothing was asked while the batch was stored')
      assert.equal((await written).status, 200)
      assert.equal(await total(), 1)
    })
  })
}
