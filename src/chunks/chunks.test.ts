import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { chunk, seededRandom } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, sqlite, type TestApp } from '../../test/helpers.js'
import { CompiledQuery, sql, type Compilable } from 'kysely'
import type { Work } from '../db/work.js'
import { countChunks, findListedChunks, findModel, listChunkSizes, type ListFilter } from './chunk.repository.js'
import { LIST_PAGE_BYTES } from './chunk.schemas.js'

const post = (t: TestApp, url: string, payload: unknown) => t.request({ method: 'POST', url, payload: payload as object })
const ids = async (t: TestApp, query = '') => (await t.request({ method: 'GET', url: `/api/chunks?limit=1000${query}` })).body.chunks.map((c: any) => c.chunk_id)
/** Each 422 entry as `loc:type` (pydantic 2's type; for this service's own rules, `value_error`, its message). */
const locs = (body: any) => body.detail.map((d: any) => `${d.loc.join('.')}:${d.type === 'value_error' ? d.msg : d.type}`)
const UNSTORABLE = 'Value error, text contains a NUL character or an unpaired surrogate, which cannot be stored'
const NOT_A_DATE = 'Value error, not an ISO 8601 date or date-time'

/** Every page of `GET /api/chunks?<query>`, following next_cursor: each page's size in bytes and parsed body. */
async function allPages (t: TestApp, query: string): Promise<Array<{ bytes: number, body: any }>> {
  const pages: Array<{ bytes: number, body: any }> = []
  let cursor: string | null = null
  do {
    const res: { statusCode: number, body: string } = await t.app.inject({ method: 'GET', url: `/api/chunks?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}` })
    assert.equal(res.statusCode, 200, res.body.slice(0, 300))
    const body = JSON.parse(res.body)
    pages.push({ bytes: Buffer.byteLength(res.body), body })
    cursor = body.next_cursor
    assert.ok(pages.length <= 100, 'too many pages')
  } while (cursor !== null)
  return pages
}

/** The first query `work` yields, as the database would plan it (sequential scans and sorts off on PostgreSQL, so any usable index shows). */
async function planOf (t: TestApp, work: Work<unknown>): Promise<string> {
  const query = (work.next().value as Compilable<unknown>).compile()
  if (t.database.dialect === 'sqlite') {
    const { rows } = await t.database.db.executeQuery(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]))
    return rows.map((row: any) => row.detail).join(' / ')
  }
  return await t.database.db.transaction().execute(async (trx) => {
    await sql`set local enable_seqscan = off`.execute(trx)
    await sql`set local enable_sort = off`.execute(trx)
    const { rows } = await trx.executeQuery(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]))
    return rows.map((row: any) => row['QUERY PLAN']).join(' / ')
  })
}

/** Chunk ids in list order: parent, then sequence, then id. */
const listOrder = (records: any[]) => [...records]
  .sort((a, b) => a.metadata.parent_id < b.metadata.parent_id ? -1 : a.metadata.parent_id > b.metadata.parent_id ? 1 : a.metadata.sequence - b.metadata.sequence)
  .map((r) => r.chunk_id)

for (const dialect of dialects) {
  describeOn(dialect, 'the chunk store', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => { await t.close() })

    describe('POST /api/chunks and GET /api/chunks/:chunk_id', () => {
      it('returns a record exactly as sent: awkward floats, extra metadata keys, optional fields', async () => {
        // Sent as text: -0.0 and the extremes must survive parsing, storage and writing.
        const text = '{"chunk_id":"doc-1/§2 ✓","content":"Zweiter Absatz — \\"quoted\\" \\ud83d\\ude00\\n",' +
          '"embedding":[0.1,1e-300,-0.0,5e-324,1.7976931348623157e308,-2.5,0.30000000000000004,123456789012345680000],' +
          '"embedding_model":"text-embedding-3-small","embedding_dim":8,' +
          '"metadata":{"parent_id":"doc-1","source":"portal","task":"qa","sequence":2,"total_chunks":5,"content_type":"text/markdown",' +
          '"related_chunks":["doc-1/§1","doc-1/§3"],"chunk_length":42,"created_timestamp":"2026-11-22T10:17:43.818+02:00",' +
          '"page":{"number":7,"ratio":0.1,"tags":["a",null,true]},"language":"de"},"ignored_top_level_field":1}'
        const created = await t.request({ method: 'POST', url: '/api/chunks', headers: { 'content-type': 'application/json' }, payload: text })
        assert.equal(created.status, 200, JSON.stringify(created.body))
        assert.deepEqual(created.body, { chunk_id: 'doc-1/§2 ✓', message: "Chunk 'doc-1/§2 ✓' stored successfully" })

        const got = await t.request({ method: 'GET', url: `/api/chunks/${encodeURIComponent('doc-1/§2 ✓')}` })
        assert.equal(got.status, 200)
        const sent = JSON.parse(text)
        delete sent.ignored_top_level_field
        // deepStrictEqual tells -0 from 0 (Object.is), so this is bit-exact for every number.
        assert.deepEqual(got.body, sent)
        assert.ok(Object.is(got.body.embedding[2], -0))
        assert.deepEqual(Object.keys(got.body.metadata), Object.keys(sent.metadata))
      })

      it('keeps optional metadata fields sent as null, and accepts dates and date-times', async () => {
        for (const [i, created] of ['2026-11-22', '2026-11-22T10:17:43Z', '2026-02-28T23:59:59.123456+05:30', null].entries()) {
          const record = chunk(`c${i}`, {}, { created_timestamp: created, related_chunks: null, chunk_length: null })
          assert.equal((await post(t, '/api/chunks', record)).status, 200, String(created))
          assert.deepEqual((await t.request({ method: 'GET', url: `/api/chunks/c${i}` })).body, record)
        }
      })

      it('answers 409 for an existing chunk_id and keeps the stored record', async () => {
        await post(t, '/api/chunks', chunk('dup'))
        const again = await post(t, '/api/chunks', chunk('dup', { content: 'other' }))
        assert.equal(again.status, 409)
        assert.deepEqual(again.body, { detail: "Chunk 'dup' already exists" })
        assert.equal((await t.request({ method: 'GET', url: '/api/chunks/dup' })).body.content, 'content of dup')
      })

      it('answers 404 for an unknown chunk', async () => {
        const res = await t.request({ method: 'GET', url: '/api/chunks/nope' })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { detail: "Chunk 'nope' not found" })
      })
    })

    describe('validation (422 naming the field, nothing stored)', () => {
      const cases: Array<[string, Record<string, unknown>, string[]]> = [
        ['chunk_id missing', { chunk_id: undefined }, ['body.chunk_id:missing']],
        ['content missing', { content: undefined }, ['body.content:missing']],
        ['embedding missing', { embedding: undefined }, ['body.embedding:missing']],
        ['embedding_model missing', { embedding_model: undefined }, ['body.embedding_model:missing']],
        ['embedding_dim missing', { embedding_dim: undefined }, ['body.embedding_dim:missing']],
        ['metadata missing', { metadata: undefined }, ['body.metadata:missing']],
        ['chunk_id empty', { chunk_id: '' }, ['body.chunk_id:string_too_short']],
        ['chunk_id of 257 characters', { chunk_id: 'x'.repeat(257) }, ['body.chunk_id:string_too_long']],
        ['content not a string', { content: 5 }, ['body.content:string_type']],
        ['embedding not a list', { embedding: '0.1,0.2,0.3' }, ['body.embedding:list_type']],
        ['embedding empty', { embedding: [], embedding_dim: 1 }, ['body.embedding:too_short', 'body.embedding:Value error, embedding has 0 numbers but embedding_dim is 1']],
        ['an embedding element not a number', { embedding: [1, '2', 3] }, ['body.embedding.1:float_type']],
        ['an embedding element not finite', { embedding: [1, Infinity, 3] }, ['body.embedding.1:finite_number']],
        ['embedding longer than embedding_dim', { embedding: [1, 2, 3, 4] }, ['body.embedding:Value error, embedding has 4 numbers but embedding_dim is 3']],
        ['embedding_dim not an integer', { embedding_dim: 3.5 }, ['body.embedding_dim:int_from_float']],
        ['embedding_dim a string', { embedding_dim: '3' }, ['body.embedding_dim:int_type']],
        ['embedding_dim 0', { embedding_dim: 0 }, ['body.embedding_dim:greater_than_equal']],
        ['embedding_dim over 16,384', { embedding_dim: 16_385 }, ['body.embedding_dim:less_than_equal']],
        ['metadata not an object', { metadata: ['doc-1'] }, ['body.metadata:model_attributes_type']],
        ['content with a NUL character', { content: 'a\u0000b' }, ['body.content:' + UNSTORABLE]],
        ['chunk_id with an unpaired surrogate', { chunk_id: 'a\ud800' }, ['body.chunk_id:' + UNSTORABLE]]
      ]
      const metaCases: Array<[string, Record<string, unknown>, string[]]> = [
        ...['parent_id', 'source', 'task', 'sequence', 'total_chunks', 'content_type'].map((field): [string, Record<string, unknown>, string[]] =>
          [`metadata.${field} missing`, { [field]: undefined }, [`body.metadata.${field}:missing`]]),
        ['metadata.sequence negative', { sequence: -1 }, ['body.metadata.sequence:greater_than_equal']],
        ['metadata.sequence not an integer', { sequence: 1.5 }, ['body.metadata.sequence:int_from_float']],
        ['metadata.total_chunks 0', { total_chunks: 0 }, ['body.metadata.total_chunks:greater_than_equal']],
        ['metadata.related_chunks not a list', { related_chunks: 'doc-1/2' }, ['body.metadata.related_chunks:list_type']],
        ['metadata.related_chunks with a number', { related_chunks: ['a', 2] }, ['body.metadata.related_chunks.1:string_type']],
        ['metadata.chunk_length negative', { chunk_length: -1 }, ['body.metadata.chunk_length:greater_than_equal']],
        ['metadata.created_timestamp not a date', { created_timestamp: 'yesterday' }, ['body.metadata.created_timestamp:' + NOT_A_DATE]],
        ['metadata.created_timestamp a 13th month', { created_timestamp: '2026-13-01' }, ['body.metadata.created_timestamp:' + NOT_A_DATE]],
        ['metadata.created_timestamp a 30th of February', { created_timestamp: '2026-02-30T10:00:00Z' }, ['body.metadata.created_timestamp:' + NOT_A_DATE]],
        ['metadata.source a number', { source: 7 }, ['body.metadata.source:string_type']]
      ]
      for (const [name, over, expected] of [...cases, ...metaCases.map(([n, meta, e]): [string, Record<string, unknown>, string[]] => [n, { meta }, e])]) {
        it(`refuses ${name}`, async () => {
          const { meta, ...top } = over as { meta?: Record<string, unknown> }
          const record = JSON.parse(JSON.stringify(chunk('bad', top, meta ?? {}), (_k, v) => v === undefined ? undefined : v))
          const payload = name.includes('not finite') ? JSON.stringify(record).replace('null', '1e999') : JSON.stringify(record)
          const res = await t.request({ method: 'POST', url: '/api/chunks', headers: { 'content-type': 'application/json' }, payload })
          assert.equal(res.status, 422, JSON.stringify(res.body))
          assert.deepEqual(locs(res.body), expected)
          assert.deepEqual(await ids(t), [])
        })
      }

      it('lists every problem of a record in one 422', async () => {
        const res = await post(t, '/api/chunks', chunk('', { embedding: [1, 2], content: 3 }, { sequence: -2, created_timestamp: 'soon' }))
        assert.equal(res.status, 422)
        assert.deepEqual(locs(res.body).sort(), [
          'body.chunk_id:string_too_short',
          'body.content:string_type',
          'body.embedding:Value error, embedding has 2 numbers but embedding_dim is 3',
          'body.metadata.created_timestamp:' + NOT_A_DATE,
          'body.metadata.sequence:greater_than_equal'
        ])
      })

      it('refuses an embedding_dim other than the one its model stores, naming both', async () => {
        await post(t, '/api/chunks', chunk('a'))
        const res = await post(t, '/api/chunks', chunk('b', { embedding: [1, 2], embedding_dim: 2 }))
        assert.equal(res.status, 422)
        assert.deepEqual(res.body.detail, [{
          type: 'value_error',
          loc: ['body', 'embedding_dim'],
          msg: "Value error, embedding_model 'mini' stores 3-dimensional embeddings; this chunk has 2",
          input: 2,
          ctx: { error: {} },
          url: 'https://errors.pydantic.dev/2.5/v/value_error'
        }])
        assert.deepEqual(await ids(t), ['a'])
      })

      it('answers 413 for a record body over 1 MiB', async () => {
        const res = await post(t, '/api/chunks', chunk('big', { content: 'x'.repeat(1024 * 1024) }))
        assert.equal(res.status, 413)
        assert.deepEqual(res.body, { detail: 'Request body is too large' })
      })
    })

    describe('POST /api/chunks/batch', () => {
      it('stores every record and answers the count and ids', async () => {
        const res = await post(t, '/api/chunks/batch', { chunks: [chunk('b1'), chunk('b2', {}, { sequence: 1 }), chunk('b3', { embedding_model: 'other', embedding: [1], embedding_dim: 1 })] })
        assert.equal(res.status, 200, JSON.stringify(res.body))
        assert.deepEqual(res.body, { inserted: 3, chunk_ids: ['b1', 'b2', 'b3'], message: '3 chunks stored successfully' })
        // Listed by parent, then sequence: b3 (sequence 0) before b2 (sequence 1).
        assert.deepEqual(await ids(t), ['b1', 'b3', 'b2'])
      })

      it('stores nothing when a record is invalid, naming every offending index', async () => {
        await post(t, '/api/chunks', chunk('kept'))
        const res = await post(t, '/api/chunks/batch', {
          chunks: [chunk('ok1'), chunk('bad2', { embedding_dim: 4 }), chunk('ok3'), chunk('bad4', {}, { total_chunks: 0 })]
        })
        assert.equal(res.status, 422)
        assert.deepEqual(locs(res.body), ['body.chunks.3.metadata.total_chunks:greater_than_equal', 'body.chunks.1.embedding:Value error, embedding has 3 numbers but embedding_dim is 4'])
        assert.deepEqual(await ids(t), ['kept'])
      })

      it('stores nothing when ids exist, answering 409 with every conflicting index', async () => {
        await post(t, '/api/chunks', chunk('x1'))
        await post(t, '/api/chunks', chunk('x3'))
        const res = await post(t, '/api/chunks/batch', { chunks: [chunk('new0'), chunk('x1'), chunk('new2'), chunk('x3')] })
        assert.equal(res.status, 409)
        assert.deepEqual(res.body, {
          detail: "Chunks already exist: chunks[1] 'x1', chunks[3] 'x3'",
          conflicts: [{ index: 1, chunk_id: 'x1' }, { index: 3, chunk_id: 'x3' }]
        })
        assert.deepEqual(await ids(t), ['x1', 'x3'])
      })

      it('refuses an id twice in one batch and two dimensions for one model', async () => {
        const res = await post(t, '/api/chunks/batch', {
          chunks: [chunk('d'), chunk('e'), chunk('d'), chunk('f', { embedding: [1, 2], embedding_dim: 2 })]
        })
        assert.equal(res.status, 422)
        assert.deepEqual(locs(res.body), ["body.chunks.2.chunk_id:Value error, chunk_id 'd' is also chunks[0]'s", "body.chunks.3.embedding_dim:Value error, embedding_model 'mini' has embedding_dim 3 in chunks[0]"])
        assert.deepEqual(await ids(t), [])
      })

      it('refuses an empty batch and one of 1,001 records', async () => {
        const empty = await post(t, '/api/chunks/batch', { chunks: [] })
        assert.deepEqual(empty.body.detail, [{
          type: 'too_short',
          loc: ['body', 'chunks'],
          msg: 'List should have at least 1 item after validation, not 0',
          input: [],
          ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
          url: 'https://errors.pydantic.dev/2.5/v/too_short'
        }])
        const many = Array.from({ length: 1001 }, (_, i) => chunk(`m${i}`))
        const res = await post(t, '/api/chunks/batch', { chunks: many })
        assert.equal(res.status, 422)
        assert.deepEqual(locs(res.body), ['body.chunks:too_long'])
        const [tooLong] = res.body.detail
        assert.equal(tooLong.msg, 'List should have at most 1000 items after validation, not 1001')
        assert.deepEqual(tooLong.ctx, { field_type: 'List', max_length: 1000, actual_length: 1001 })
        // The list is echoed only as far as a few kilobytes go, saying how much was left out.
        assert.ok(JSON.stringify(tooLong.input).length < 8192, `${JSON.stringify(tooLong.input).length} characters`)
        assert.deepEqual(tooLong.input[0], chunk('m0'))
        assert.match(tooLong.input.at(-1), /^… \d+ more items$/)
      })

      it('accepts 1,000 records in a body over 1 MiB', async () => {
        const many = Array.from({ length: 1000 }, (_, i) => chunk(`m${String(i).padStart(4, '0')}`, { embedding: Array.from({ length: 64 }, (_, j) => Math.sin(i + j)), embedding_dim: 64 }, { sequence: i }))
        assert.ok(JSON.stringify({ chunks: many }).length > 1024 * 1024)
        const res = await post(t, '/api/chunks/batch', { chunks: many })
        assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300))
        assert.equal(res.body.inserted, 1000)
        assert.equal((await t.request({ method: 'GET', url: '/api/chunks?limit=1' })).body.total, 1000)
      })
    })

    describe('PUT and DELETE /api/chunks/:chunk_id', () => {
      it('replaces a record, model and metadata included', async () => {
        await post(t, '/api/chunks', chunk('r'))
        const replacement = chunk('r', { content: 'new', embedding: [-0, 0.1], embedding_dim: 2, embedding_model: 'other' }, { note: 'added', sequence: 4 })
        // As text, so the -0 is sent as such.
        const text = JSON.stringify(replacement).replace('[0,0.1]', '[-0.0,0.1]')
        const res = await t.request({ method: 'PUT', url: '/api/chunks/r', headers: { 'content-type': 'application/json' }, payload: text })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, { chunk_id: 'r', message: "Chunk 'r' replaced successfully" })
        assert.deepEqual((await t.request({ method: 'GET', url: '/api/chunks/r' })).body, replacement)
      })

      it('answers 422 when the body names another chunk, 404 for an unknown one, and changes nothing', async () => {
        await post(t, '/api/chunks', chunk('r'))
        const mismatch = await t.request({ method: 'PUT', url: '/api/chunks/r', payload: chunk('s') })
        assert.equal(mismatch.status, 422)
        assert.deepEqual(mismatch.body.detail, [{
          type: 'value_error', loc: ['body', 'chunk_id'], msg: "Value error, chunk_id 's' does not match the path's 'r'", input: 's', ctx: { error: {} }, url: 'https://errors.pydantic.dev/2.5/v/value_error'
        }])
        const unknown = await t.request({ method: 'PUT', url: '/api/chunks/s', payload: chunk('s') })
        assert.equal(unknown.status, 404)
        assert.deepEqual(unknown.body, { detail: "Chunk 's' not found" })
        const invalid = await t.request({ method: 'PUT', url: '/api/chunks/r', payload: chunk('r', { embedding_dim: 2 }) })
        assert.equal(invalid.status, 422)
        assert.deepEqual(await ids(t), ['r'])
        assert.deepEqual((await t.request({ method: 'GET', url: '/api/chunks/r' })).body, chunk('r'))
      })

      it('deletes a record, then answers 404 for it', async () => {
        await post(t, '/api/chunks', chunk('gone'))
        const res = await t.request({ method: 'DELETE', url: '/api/chunks/gone' })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, { chunk_id: 'gone', message: "Chunk 'gone' deleted successfully" })
        assert.equal((await t.request({ method: 'GET', url: '/api/chunks/gone' })).status, 404)
        const again = await t.request({ method: 'DELETE', url: '/api/chunks/gone' })
        assert.equal(again.status, 404)
        assert.deepEqual(again.body, { detail: "Chunk 'gone' not found" })
      })

      it('lets a model take another dimension once its last chunk is gone', async () => {
        await post(t, '/api/chunks', chunk('only'))
        await t.request({ method: 'DELETE', url: '/api/chunks/only' })
        assert.equal((await post(t, '/api/chunks', chunk('wider', { embedding: [1, 2, 3, 4], embedding_dim: 4 }))).status, 200)
      })

      it('writes an audit record for every chunk write', async () => {
        await post(t, '/api/chunks', chunk('a1'))
        await post(t, '/api/chunks/batch', { chunks: [chunk('a2'), chunk('a3')] })
        await t.request({ method: 'PUT', url: '/api/chunks/a1', payload: chunk('a1', { content: 'v2' }) })
        await t.request({ method: 'DELETE', url: '/api/chunks/a2' })
        const audit = (await t.request({ method: 'GET', url: '/api/audit' })).body.records
        assert.deepEqual(audit.map((r: any) => [r.action, r.target]), [
          ['chunk.delete', 'chunk:a2'], ['chunk.replace', 'chunk:a1'], ['chunk.batch_create', 'chunks'], ['chunk.create', 'chunk:a1']
        ])
        assert.deepEqual(audit[1].changes, { embedding_model: 'mini', embedding_dim: 3 })
        assert.deepEqual(audit[2].changes, { inserted: 2, chunk_ids: ['a2', 'a3'], models: ['mini'] })
      })
    })

    describe('concurrent writes', () => {
      it('never deadlock or lose count: overlapping batches, moves between models and deletes at once', async () => {
        const base = Array.from({ length: 40 }, (_, i) => chunk(`k${String(i).padStart(2, '0')}`))
        assert.equal((await post(t, '/api/chunks/batch', { chunks: base })).status, 200)
        const requests: Array<Promise<{ status: number }>> = []
        const reinserts: Array<Promise<{ status: number }>> = []
        for (let i = 0; i < 40; i++) {
          const id = `k${String(i).padStart(2, '0')}`
          if (i % 4 === 0) {
            // A delete racing a batch that stores the same id again: either order is fine, a deadlock is not.
            requests.push(t.request({ method: 'DELETE', url: `/api/chunks/${id}` }))
            reinserts.push(post(t, '/api/chunks/batch', { chunks: [chunk(id)] }))
          }
          if (i % 4 === 1) requests.push(t.request({ method: 'PUT', url: `/api/chunks/${id}`, payload: chunk(id, { embedding_model: i % 8 === 1 ? 'other' : 'mini' }) }))
          if (i % 4 === 2) {
            // Two batches with the same new ids in opposite orders: one stores them, the other gets 409.
            const fresh = [chunk(`n${i}a`, { embedding_model: 'other' }), chunk(`n${i}b`)]
            requests.push(post(t, '/api/chunks/batch', { chunks: fresh }), post(t, '/api/chunks/batch', { chunks: [...fresh].reverse() }))
          }
        }
        const results = await Promise.all(requests)
        const reinserted = await Promise.all(reinserts)
        assert.ok([...results, ...reinserted].every((r) => r.status === 200 || r.status === 409), JSON.stringify(results.map((r) => r.status)))
        assert.equal(results.filter((r) => r.status === 409).length, 10)
        for (const model of ['mini', 'other']) {
          const listed = (await t.request({ method: 'GET', url: `/api/chunks?embedding_model=${model}&limit=1` })).body.total
          const state = await t.database.read((db) => findModel(db, model))
          assert.equal(state?.chunk_count, listed, model)
        }
        const stored = reinserted.filter((r) => r.status === 200).length
        assert.equal((await t.request({ method: 'GET', url: '/api/chunks?limit=1' })).body.total, 30 + 20 + stored)
      })
    })

    describe('GET /api/chunks', () => {
      beforeEach(async () => {
        const records = [
          chunk('z', {}, { parent_id: 'doc-b', sequence: 0, source: 'portal' }),
          chunk('c10', {}, { parent_id: 'doc-a', sequence: 10, task: 'summary' }),
          chunk('c2', {}, { parent_id: 'doc-a', sequence: 2, content_type: 'table' }),
          chunk('c2b', {}, { parent_id: 'doc-a', sequence: 2 }),
          chunk('y', { embedding_model: 'other', embedding: [1], embedding_dim: 1 }, { parent_id: 'doc-a', sequence: 1, source: 'wiki' })
        ]
        assert.equal((await post(t, '/api/chunks/batch', { chunks: records })).status, 200)
      })

      it('orders by parent_id, then sequence as a number, then chunk_id', async () => {
        const res = await t.request({ method: 'GET', url: '/api/chunks' })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body.chunks.map((c: any) => c.chunk_id), ['y', 'c2', 'c2b', 'c10', 'z'])
        assert.equal(res.body.total, 5)
        assert.equal(res.body.next_cursor, null)
        assert.deepEqual(res.body.chunks[4], chunk('z', {}, { parent_id: 'doc-b', sequence: 0, source: 'portal' }))
      })

      it('filters by each field', async () => {
        assert.deepEqual(await ids(t, '&parent_id=doc-a'), ['y', 'c2', 'c2b', 'c10'])
        assert.deepEqual(await ids(t, '&source=wiki'), ['y'])
        assert.deepEqual(await ids(t, '&task=summary'), ['c10'])
        assert.deepEqual(await ids(t, '&content_type=table'), ['c2'])
        assert.deepEqual(await ids(t, '&embedding_model=mini&parent_id=doc-a'), ['c2', 'c2b', 'c10'])
        assert.deepEqual(await ids(t, '&source=nowhere'), [])
      })

      it('pages with an opaque cursor, the total matching the filter on every page', async () => {
        const seen: string[] = []
        let cursor: string | null = null
        let pages = 0
        do {
          const url: string = `/api/chunks?limit=2&embedding_model=mini${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`
          const res = await t.request({ method: 'GET', url })
          assert.equal(res.status, 200)
          assert.equal(res.body.total, 4)
          seen.push(...res.body.chunks.map((c: any) => c.chunk_id))
          cursor = res.body.next_cursor
          pages++
        } while (cursor !== null)
        assert.deepEqual(seen, ['c2', 'c2b', 'c10', 'z'])
        assert.equal(pages, 2)
      })

      it('leaves the vectors out with include_embedding=false', async () => {
        const res = await t.request({ method: 'GET', url: '/api/chunks?include_embedding=false&limit=1' })
        assert.deepEqual(Object.keys(res.body.chunks[0]), ['chunk_id', 'content', 'embedding_model', 'embedding_dim', 'metadata'])
      })

      it('ends a page before LIST_PAGE_BYTES of JSON; the cursors then give every chunk once, in order, exactly as stored', async () => {
        const next = seededRandom(4096)
        const dim = 8192
        const records = Array.from({ length: 40 }, (_, i) => chunk(`big-${String(i).padStart(2, '0')}`, {
          embedding: Array.from({ length: dim }, () => (next() * 2 - 1) * 1e-7),
          embedding_model: 'wide',
          embedding_dim: dim
        }, { parent_id: `doc-${i % 3}`, sequence: 40 - i, source: i % 4 === 0 ? 'wiki' : 'portal' }))
        assert.ok(JSON.stringify(records).length > LIST_PAGE_BYTES, 'more than a page of JSON')
        for (let start = 0; start < records.length; start += 20) assert.equal((await post(t, '/api/chunks/batch', { chunks: records.slice(start, start + 20) })).status, 200)
        const byId = new Map(records.map((r) => [r.chunk_id, r]))

        for (const [query, expected] of [
          ['embedding_model=wide&limit=1000', records],
          ['embedding_model=wide&limit=1000&source=portal', records.filter((r: any) => r.metadata.source === 'portal')]
        ] as const) {
          const pages = await allPages(t, query)
          assert.ok(pages.length > 1, `${query}: ${pages.length} page`)
          for (const { bytes, body } of pages) {
            assert.ok(bytes <= LIST_PAGE_BYTES, `${query}: a page of ${bytes} bytes`)
            assert.ok(body.chunks.length >= 1, `${query}: an empty page`)
            assert.equal(body.total, expected.length)
            for (const got of body.chunks) assert.deepEqual(got, byId.get(got.chunk_id))
          }
          assert.ok(pages[0]!.body.next_cursor !== null && pages[0]!.body.chunks.length < expected.length, `${query}: the first page has ${pages[0]!.body.chunks.length} chunks`)
          assert.deepEqual(pages.flatMap((p) => p.body.chunks.map((c: any) => c.chunk_id)), listOrder([...expected]), query)
        }
        // Without the vectors the same chunks fit one page.
        const [only] = await allPages(t, 'embedding_model=wide&limit=1000&include_embedding=false')
        assert.deepEqual(only!.body.chunks.map((c: any) => c.chunk_id), listOrder(records))
      })

      it('sends a chunk larger than the budget alone in its page, and measures escaped text', async () => {
        const meta = (parent: string, sequence = 0) => ({ parent_id: parent, sequence, source: 'huge' })
        const records = [
          chunk('h-small-1', {}, meta('h-1')),
          chunk('h-huge', { content: 'x'.repeat(LIST_PAGE_BYTES + 1000) }, meta('h-2')),
          // Newlines are written \n: each of these is 400 KB stored and 800 KB of JSON.
          ...Array.from({ length: 12 }, (_, i) => chunk(`h-lines-${String(i).padStart(2, '0')}`, { content: '\n'.repeat(400_000) }, meta('h-3', i))),
          chunk('h-small-4', {}, meta('h-4'))
        ]
        assert.equal((await post(t, '/api/chunks/batch', { chunks: records })).status, 200)
        const pages = await allPages(t, 'limit=1000&source=huge')
        assert.deepEqual(pages.map((p) => p.body.chunks.length), [1, 1, 5, 5, 3])
        assert.ok((pages[1] as { bytes: number }).bytes > LIST_PAGE_BYTES, 'the huge chunk is sent whole')
        for (const [i, { bytes, body }] of pages.entries()) {
          if (i !== 1) assert.ok(bytes <= LIST_PAGE_BYTES, `page ${i}: ${bytes} bytes`)
          assert.equal(body.total, records.length)
        }
        const listed = pages.flatMap((p) => p.body.chunks)
        assert.deepEqual(listed.map((c: any) => c.chunk_id), records.map((r) => r.chunk_id))
        assert.deepEqual(listed, records)
      })

      it('takes back the cursor after the longest parent_id and chunk_id', async () => {
        // Three UTF-8 bytes per character, and control characters JSON writes in six.
        for (const [parent, id, source] of [['中'.repeat(1000), '中'.repeat(256), 'cjk'], ['\u0001'.repeat(1000), '\u0001'.repeat(256), 'control']] as const) {
          const records = [chunk(id, {}, { parent_id: parent, source }), chunk(`${id}-2`.slice(-256), {}, { parent_id: parent, sequence: 1, source })]
          assert.equal((await post(t, '/api/chunks/batch', { chunks: records })).status, 200)
          const pages = await allPages(t, `limit=1&source=${source}`)
          assert.deepEqual(pages.map((p) => p.body.chunks.map((c: any) => c.chunk_id)), records.map((r) => [r.chunk_id]))
        }
      })

      it('reads a filtered page and its total from indexes in list order, never the whole table', async () => {
        const after = { parent_id: 'doc-a', sequence: 2, chunk_id: 'c2' }
        const last = { parent_id: 'doc-b', sequence: 0, chunk_id: 'z' }
        const own = { source: 'chunks_source_order_idx', embedding_model: 'chunks_model_order_idx' } as const
        for (const field of ['source', 'embedding_model', 'task', 'content_type'] as const) {
          const filter: ListFilter = { [field]: 'x' }
          const plans = [
            await planOf(t, listChunkSizes(t.database.db, filter, undefined, 101)),
            await planOf(t, listChunkSizes(t.database.db, filter, after, 101)),
            await planOf(t, findListedChunks(t.database.db, filter, after, last, ['c10', 'z'], true)),
            await planOf(t, countChunks(t.database.db, filter))
          ]
          for (const plan of [plans[0], plans[1], plans[3]] as string[]) {
            // No pass over the table's rows, no sort of the matches.
            assert.doesNotMatch(plan, /SCAN chunks$|SCAN chunks \/|Seq Scan|TEMP B-TREE FOR ORDER BY|Sort/, `${field}: ${plan}`)
          }
          // The page's rows: by their ids, or by the page's range of an index (never every match).
          assert.doesNotMatch(plans[2] as string, /SCAN chunks$|SCAN chunks \/|Seq Scan/, `${field}: ${plans[2]}`)
          assert.match(plans[2] as string, /\(chunk_id=\?\)|<\(\?,\?,\?\)\)|Index Cond: .*ROW\(parent_id, sequence, chunk_id\) <=|Index Cond: \(chunk_id = ANY/, `${field}: ${plans[2]}`)
          if (field in own) {
            const index = own[field as keyof typeof own]
            for (const plan of [plans[0], plans[1], plans[3]]) assert.match(plan as string, new RegExp(index), `${field}: ${plan}`)
          } else {
            // A handful of values each: read from the list-order index alone.
            assert.match(plans[3] as string, /COVERING INDEX chunks_list_idx|Index Only Scan using chunks_list_idx/, `${field}: ${plans[3]}`)
          }
        }
      })

      it('answers 422 for a bad limit or cursor', async () => {
        for (const query of ['limit=0', 'limit=1001', 'limit=x']) {
          const res = await t.request({ method: 'GET', url: `/api/chunks?${query}` })
          assert.equal(res.status, 422, query)
          assert.deepEqual(res.body.detail[0].loc, ['query', 'limit'])
        }
        const res = await t.request({ method: 'GET', url: '/api/chunks?cursor=not-a-cursor' })
        assert.equal(res.status, 422)
        assert.deepEqual(res.body.detail[0].loc, ['query', 'cursor'])
      })
    })
  })
}

describe('the chunk batch body limit', () => {
  it('answers 413 for a batch body over 64 MiB', async () => {
    const t = await buildTestApp(sqlite)
    try {
      const res = await t.request({ method: 'POST', url: '/api/chunks/batch', headers: { 'content-type': 'application/json' }, payload: `{"chunks":[${' '.repeat(64 * 1024 * 1024)}]}` })
      assert.equal(res.status, 413)
      assert.deepEqual(res.body, { detail: 'Request body is too large' })
    } finally {
      await t.close()
    }
  })
})
