import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, it } from 'node:test'
import { buildTestApp, describeOn, dialects, type TestApp, type TestDialect } from '../../test/helpers.js'
import { chunk, seededRandom } from '../../test/fixtures.js'

interface Stored { chunk_id: string, embedding: number[], embedding_model: string, metadata: Record<string, unknown> }

/** The reference: cosine similarity by the textbook formula over every stored chunk, ties by id. */
function bruteForce (stored: Stored[], query: number[], model: string, k: number, filter: Record<string, string> = {}) {
  const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0))
  return stored
    .filter((c) => c.embedding_model === model && Object.entries(filter).every(([key, value]) => c.metadata[key] === value))
    .map((c) => ({ chunk_id: c.chunk_id, score: c.embedding.reduce((s, x, i) => s + x * (query[i] as number), 0) / (norm(c.embedding) * norm(query)) }))
    .sort((a, b) => b.score - a.score || (a.chunk_id < b.chunk_id ? -1 : 1))
    .slice(0, k)
}

const search = (t: TestApp, body: Record<string, unknown>) => t.request({ method: 'POST', url: '/api/chunks/search', payload: body })

/** `n` random chunks of `dim` numbers, spread over parents, sources and two models. */
function randomChunks (next: () => number, n: number, dim: number, prefix = 'r'): Stored[] {
  return Array.from({ length: n }, (_, i) => chunk(`${prefix}${String(i).padStart(4, '0')}`, {
    embedding: Array.from({ length: dim }, () => next() * 2 - 1),
    embedding_dim: dim,
    embedding_model: i % 5 === 0 ? 'other' : 'mini'
  }, { parent_id: `doc-${i % 4}`, source: i % 3 === 0 ? 'wiki' : 'portal', sequence: i }) as unknown as Stored)
}

async function store (t: TestApp, records: Stored[]): Promise<void> {
  for (let start = 0; start < records.length; start += 500) {
    const res = await t.request({ method: 'POST', url: '/api/chunks/batch', payload: { chunks: records.slice(start, start + 500) } })
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300))
  }
}

function assertSameResults (actual: any[], expected: Array<{ chunk_id: string, score: number }>, label: string): void {
  assert.deepEqual(actual.map((r) => r.chunk_id), expected.map((r) => r.chunk_id), label)
  actual.forEach((r, i) => assert.ok(Math.abs(r.score - (expected[i] as { score: number }).score) < 1e-12, `${label}: score ${r.score} vs ${expected[i]?.score}`))
}

for (const dialect of dialects) {
  describeOn(dialect, 'POST /api/chunks/search', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => { await t.close() })

    it('answers exactly what a brute-force search answers, with and without filters', async () => {
      const next = seededRandom(2026)
      const stored = randomChunks(next, 1200, 24)
      await store(t, stored)
      for (let q = 0; q < 15; q++) {
        const query = Array.from({ length: 24 }, () => next() * 2 - 1)
        for (const [filter, k] of [[{}, undefined], [{ source: 'wiki' }, 5], [{ parent_id: 'doc-1', source: 'portal' }, 20], [{ task: 'none' }, 3]] as const) {
          const res = await search(t, { embedding: query, embedding_model: 'mini', ...(k === undefined ? {} : { top_k: k }), filter })
          assert.equal(res.status, 200, JSON.stringify(res.body))
          assertSameResults(res.body.results, bruteForce(stored, query, 'mini', k ?? 10, filter), `query ${q} ${JSON.stringify(filter)}`)
        }
      }
    })

    it('answers exactly what a brute-force search answers over many exact ties mixed with near-ties', async () => {
      const next = seededRandom(77)
      const dim = 16
      const base = Array.from({ length: dim }, () => next() * 2 - 1)
      const nudged = (i: number) => base.map((x, j) => j === i ? x * (1 + 2 ** -30) : x)
      // Exact ties: one embedding many times, and its double (other bytes, the same unit vector, so the same score).
      // Near-ties: embeddings that differ from it below float32 precision, so the index cannot tell them apart.
      const groups: Array<[number, number[]]> = [[150, base], [60, base.map((x) => 2 * x)], [60, nudged(3)], [60, nudged(7)], [20, base.map((x) => -x)]]
      const embeddings = groups.flatMap(([count, embedding]) => Array.from({ length: count }, () => embedding))
      for (let i = 0; i < 50; i++) embeddings.push(Array.from({ length: dim }, () => next() * 2 - 1))
      // Ids in an order unrelated to the groups, so every group's smallest ids are spread over the table.
      const stored = embeddings.map((embedding, i) => chunk(`t${Math.floor(next() * 1e9).toString(36)}-${i}`, { embedding, embedding_dim: dim },
        { source: i % 3 === 0 ? 'wiki' : 'portal', sequence: i }) as unknown as Stored)
      await store(t, stored.sort(() => next() - 0.5))
      const queries = [
        ...Array.from({ length: 4 }, () => base.map((x) => x + (next() - 0.5) * 0.2)),
        ...Array.from({ length: 2 }, () => Array.from({ length: dim }, () => next() * 2 - 1))
      ]
      for (const [q, query] of queries.entries()) {
        for (const k of [1, 5, 100]) {
          for (const filter of [{}, { source: 'wiki' }] as Array<Record<string, string>>) {
            const res = await search(t, { embedding: query, embedding_model: 'mini', top_k: k, filter })
            assert.equal(res.status, 200, JSON.stringify(res.body))
            assertSameResults(res.body.results, bruteForce(stored, query, 'mini', k, filter), `query ${q} top_k ${k} ${JSON.stringify(filter)}`)
          }
        }
      }
    })

    it('answers chunk_id, score, content and metadata, and compares only the chosen model', async () => {
      await store(t, [
        chunk('near', { embedding: [1, 0.1, 0] }, { extra: 'kept' }) as unknown as Stored,
        chunk('far', { embedding: [-1, 0, 0] }) as unknown as Stored,
        chunk('other-model', { embedding: [1, 0.1, 0], embedding_model: 'other' }) as unknown as Stored
      ])
      const res = await search(t, { embedding: [1, 0.1, 0], embedding_model: 'mini', top_k: 1 })
      assert.equal(res.status, 200)
      assert.equal(res.body.results.length, 1)
      const [{ score, ...rest }] = res.body.results
      assert.ok(Math.abs(score - 1) < 1e-12, String(score))
      assert.deepEqual(rest, { chunk_id: 'near', content: 'content of near', metadata: (chunk('near', {}, { extra: 'kept' }) as any).metadata })
      assert.deepEqual(Object.keys(res.body.results[0]), ['chunk_id', 'score', 'content', 'metadata'])
      const none = await search(t, { embedding: [1, 0, 0], embedding_model: 'never-stored' })
      assert.deepEqual(none.body, { results: [] })
    })

    it('sees every write at once: inserts, replacements and deletions', async () => {
      await store(t, [chunk('a', { embedding: [1, 0, 0] }) as unknown as Stored])
      const top = async () => (await search(t, { embedding: [0, 1, 0], embedding_model: 'mini', top_k: 1 })).body.results[0]?.chunk_id
      assert.equal(await top(), 'a')
      await t.request({ method: 'POST', url: '/api/chunks', payload: chunk('b', { embedding: [0, 1, 0] }) })
      assert.equal(await top(), 'b')
      await t.request({ method: 'PUT', url: '/api/chunks/b', payload: chunk('b', { embedding: [0, -1, 0] }) })
      assert.equal(await top(), 'a')
      await t.request({ method: 'PUT', url: '/api/chunks/a', payload: chunk('a', { embedding_model: 'other' }) })
      assert.equal(await top(), 'b')
      await t.request({ method: 'DELETE', url: '/api/chunks/b' })
      assert.equal(await top(), undefined)
      await t.request({ method: 'POST', url: '/api/chunks', payload: chunk('b', { embedding: [0, 2, 0] }) })
      assert.equal(await top(), 'b')
    })

    it('answers 422 for a query of another dimension, naming both numbers', async () => {
      await store(t, [chunk('a') as unknown as Stored])
      const res = await search(t, { embedding: [1, 2], embedding_model: 'mini' })
      assert.equal(res.status, 422)
      assert.deepEqual(res.body.detail, [{
        type: 'value_error',
        loc: ['body', 'embedding'],
        msg: "Value error, embedding has 2 numbers but embedding_model 'mini' stores 3-dimensional embeddings",
        input: [1, 2],
        ctx: { error: {} },
        url: 'https://errors.pydantic.dev/2.5/v/value_error'
      }])
    })

    it('answers 422 for a missing field, a bad top_k, a zero or non-finite query', async () => {
      await store(t, [chunk('a') as unknown as Stored])
      const cases: Array<[unknown, string]> = [
        [{ embedding_model: 'mini' }, 'body.embedding:missing'],
        [{ embedding: [1, 0, 0] }, 'body.embedding_model:missing'],
        [{ embedding: [1, 0, 0], embedding_model: 'mini', top_k: 0 }, 'body.top_k:greater_than_equal'],
        [{ embedding: [1, 0, 0], embedding_model: 'mini', top_k: 101 }, 'body.top_k:less_than_equal'],
        [{ embedding: [0, 0, 0], embedding_model: 'mini' }, 'body.embedding:Value error, embedding is all zeros: its cosine similarity is undefined'],
        [{ embedding: [], embedding_model: 'mini' }, 'body.embedding:too_short']
      ]
      for (const [body, expected] of cases) {
        const res = await search(t, body as Record<string, unknown>)
        assert.equal(res.status, 422, JSON.stringify(body))
        assert.deepEqual(res.body.detail.map((d: any) => `${d.loc.join('.')}:${d.type === 'value_error' ? d.msg : d.type}`), [expected], JSON.stringify(body))
      }
      const infinite = await t.request({ method: 'POST', url: '/api/chunks/search', headers: { 'content-type': 'application/json' }, payload: '{"embedding":[1,1e999,0],"embedding_model":"mini"}' })
      assert.equal(infinite.status, 422)
      // JSON has no infinity: the input says what was read.
      assert.deepEqual(infinite.body.detail, [{
        type: 'finite_number', loc: ['body', 'embedding', 1], msg: 'Input should be a finite number', input: 'Infinity', url: 'https://errors.pydantic.dev/2.5/v/finite_number'
      }])
    })
  })
}

/** Two app instances on one database: each keeps its own index, as two processes would. */
async function twoAppsOn (dialect: TestDialect): Promise<{ a: TestApp, b: TestApp, close: () => Promise<void> }> {
  if (dialect.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'sourcepool-chunks-'))
    const file = { name: 'sqlite' as const, create: async () => ({ url: `sqlite:${join(dir, 'chunks.db')}`, drop: async () => {} }) }
    const a = await buildTestApp(file)
    const b = await buildTestApp(file)
    return { a, b, close: async () => { await a.close(); await b.close(); rmSync(dir, { recursive: true, force: true }) } }
  }
  const database = await dialect.create()
  const shared = { name: 'postgres' as const, create: async () => ({ url: database.url, drop: async () => {} }) }
  const a = await buildTestApp(shared)
  const b = await buildTestApp(shared)
  return { a, b, close: async () => { await a.close(); await b.close(); await database.drop() } }
}

for (const dialect of dialects) {
  describeOn(dialect, 'search with two instances on one database', () => {
    it("answers from the other instance's writes at its next search, never from a stale index", async () => {
      const { a, b, close } = await twoAppsOn(dialect)
      try {
        const next = seededRandom(5)
        const stored = randomChunks(next, 300, 8, 'x')
        await store(b, stored)
        const query = Array.from({ length: 8 }, () => next() * 2 - 1)
        const before = await search(a, { embedding: query, embedding_model: 'mini', top_k: 5 })
        assertSameResults(before.body.results, bruteForce(stored, query, 'mini', 5), 'first load')

        // b writes the best possible match, replaces the old best and deletes the second.
        const [best, second] = before.body.results.map((r: any) => r.chunk_id)
        await b.request({ method: 'POST', url: '/api/chunks', payload: chunk('exact', { embedding: query, embedding_dim: 8 }) })
        await b.request({ method: 'PUT', url: `/api/chunks/${best}`, payload: chunk(best, { embedding: query.map((x) => -x), embedding_dim: 8 }) })
        await b.request({ method: 'DELETE', url: `/api/chunks/${second}` })
        const now = stored
          .filter((c) => c.chunk_id !== second && c.chunk_id !== best)
          .concat([chunk('exact', { embedding: query, embedding_dim: 8 }) as unknown as Stored, chunk(best, { embedding: query.map((x) => -x), embedding_dim: 8 }) as unknown as Stored])
        const after = await search(a, { embedding: query, embedding_model: 'mini', top_k: 5 })
        assert.equal(after.body.results[0].chunk_id, 'exact')
        assertSameResults(after.body.results, bruteForce(now, query, 'mini', 5), 'after the other instance wrote')
      } finally {
        await close()
      }
    })
  })
}
