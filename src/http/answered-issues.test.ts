/**
 * What a caller can make a 422 answer, through the routes on every dialect: no
 * credential, whether the URL it sits in parses or not; no more than 100 entries
 * and 64 KiB however many problems a body holds; every text (a string, a key, a
 * `loc` key) cut, and cut before it is masked, so a huge value costs little.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { chunk } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const MAX_ENTRIES = 100
const MAX_ANSWER_BYTES = 64 * 1024

/** The last entry of an answer that left problems out, after `listed` of them. */
const leftOut = (listed: number) => ({
  type: 'value_error',
  loc: ['body'],
  msg: `Value error, the first ${listed} problems are listed; more were found and left out (a 422 lists at most 100 entries, in at most 64 KiB)`,
  input: null,
  ctx: { error: {} },
  url: 'https://errors.pydantic.dev/2.5/v/value_error'
})

for (const dialect of dialects) {
  describeOn(dialect, 'what a 422 may answer', () => {
    let t: TestApp
    before(async () => { t = await buildTestApp(dialect) })
    after(async () => { await t.close() })

    /** The 422's entries and its size in bytes. */
    const refusal = async (url: string, body: unknown) => {
      const res = await t.app.inject({ method: 'POST', url, payload: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } })
      assert.equal(res.statusCode, 422, res.body.slice(0, 500))
      return { detail: JSON.parse(res.body).detail as Array<Record<string, any>>, bytes: Buffer.byteLength(res.body) }
    }

    describe('credentials', () => {
      it('are masked in a URL that does not parse, or is not http(s)', async () => {
        const cases: Array<[string, string]> = [
          ['https://user:s3cr3tpass@exa mple.com/', 'https://user:***@exa mple.com/'],
          ['https://user:s3cret@host:99999/', 'https://user:***@host:99999/'],
          ['http:/user:s3cret@host/', 'http://user:***@host/'],
          [' https://user:s3cret@host/', 'https://user:***@host/'],
          ['ftp://user:s3cret@host/', 'ftp://user:***@host/']
        ]
        for (const [baseUrl, shown] of cases) {
          const { detail } = await refusal('/api/providers', { name: 'p', base_url: baseUrl })
          assert.equal(detail.length, 1, baseUrl)
          assert.equal(detail[0]?.input, shown, baseUrl)
          assert.doesNotMatch(JSON.stringify(detail), /s3cr/, baseUrl)
        }
      })

      it('are masked in a health check path refused by its pattern', async () => {
        const { detail } = await refusal('/api/providers', { name: 'p', base_url: 'http://a.example', health_check: { path: 'h?token=SECRET' } })
        assert.deepEqual(detail.map((entry) => [entry.type, entry.input]), [['string_pattern_mismatch', 'h?token=***']])
      })
    })

    describe('size', () => {
      it('cuts a huge string before masking it, and the mask holds on what is shown', async () => {
        const url = `https://user:s3cret@host.example/?api_key=SECRET&${'a=1&'.repeat(200_000)}`
        const { detail, bytes } = await refusal('/api/chunks', chunk('c', { embedding_model: url }))
        assert.equal(detail.length, 1)
        assert.equal(detail[0]?.type, 'string_too_long')
        const input = String(detail[0]?.input)
        assert.ok(input.startsWith('https://user:***@host.example/?api_key=***&a=1&a=1'), input.slice(0, 80))
        assert.ok(input.endsWith('…') && input.length <= 1025, `${input.length} characters`)
        assert.ok(bytes < 2048, `${bytes} bytes`)
        // Cut before the `@` that ends the credentials: all of them masked.
        const cutInside = await refusal('/api/chunks', chunk('c', { embedding_model: `https://user:${'p'.repeat(900_000)}@host/` }))
        assert.equal(cutInside.detail[0]?.input, 'https://***…')
      })

      it('cuts a long key as it cuts a string', async () => {
        const { detail, bytes } = await refusal('/api/pools', { ['k'.repeat(900_000)]: 1 })
        assert.deepEqual(detail.map((entry) => entry.loc), [['body', 'name'], ['body', 'category']])
        for (const entry of detail) {
          const keys = Object.keys(entry.input as object)
          assert.deepEqual(keys.map((key) => key.length), [1025])
          assert.ok(keys[0] === `${'k'.repeat(1024)}…` && entry.input[keys[0]] === 1)
        }
        assert.ok(bytes < 4096, `${bytes} bytes`)
      })

      it('charges empty lists and objects, so a list of 300,000 of them is cut too', async () => {
        const { detail, bytes } = await refusal('/api/pools', { name: Array.from({ length: 300_000 }, () => []) })
        const shown = detail.find((entry) => entry.type === 'string_type')?.input as unknown[]
        assert.match(String(shown.at(-1)), /^… \d+ more items$/)
        assert.equal(Number(/\d+/.exec(String(shown.at(-1)))?.[0]) + shown.length - 1, 300_000)
        assert.ok(bytes < 20 * 1024, `${bytes} bytes`)
      })

      it('lists the first 99 of thousands of schema problems, then says more were left out', async () => {
        // 1,000 records, 11 fields missing from each: 11,000 problems.
        const { detail, bytes } = await refusal('/api/chunks/batch', { chunks: Array.from({ length: 1000 }, () => ({ metadata: {}, pad: 'x'.repeat(900) })) })
        assert.equal(detail.length, MAX_ENTRIES)
        assert.deepEqual(detail.at(-1), leftOut(99))
        assert.deepEqual(detail[0]?.loc, ['body', 'chunks', 0, 'chunk_id'])
        assert.ok(detail.slice(0, 99).every((entry) => entry.type === 'missing'))
        assert.ok(bytes <= MAX_ANSWER_BYTES, `${bytes} bytes`)
        // The inputs share one budget: once it is spent, an input only says what it held (record 8 lacks its chunk_id).
        assert.equal(detail[0]?.input.pad, 'x'.repeat(900))
        assert.deepEqual(detail[88]?.loc, ['body', 'chunks', 8, 'chunk_id'])
        assert.deepEqual(detail[88]?.input, { '…': '2 more keys' })

        const ones = await refusal('/api/chunks/batch', `{"chunks":[${Array.from({ length: 50_000 }, () => '1').join(',')}]}`)
        assert.equal(ones.detail.length, MAX_ENTRIES)
        assert.deepEqual(ones.detail.at(-1), leftOut(99))
        assert.ok(ones.bytes <= MAX_ANSWER_BYTES, `${ones.bytes} bytes`)
      })

      it('lists at most 100 entries for the chunk rules and for unstorable text too', async () => {
        const records = Array.from({ length: 1000 }, (_, i) => chunk(`c${i}`, { embedding: [1, null, 3] }))
        const infinite = await refusal('/api/chunks/batch', JSON.stringify({ chunks: records }).replace(/null/g, '1e999'))
        assert.equal(infinite.detail.length, MAX_ENTRIES)
        assert.deepEqual(infinite.detail[0]?.loc, ['body', 'chunks', 0, 'embedding', 1])
        assert.deepEqual(infinite.detail.at(-1), leftOut(99))

        const unstorable = await refusal('/api/pools', { name: 'p', category: 'c', notes: Array.from({ length: 5000 }, () => 'a\u0000') })
        assert.equal(unstorable.detail.length, MAX_ENTRIES)
        assert.deepEqual(unstorable.detail[0]?.loc, ['body', 'notes', 0])
        assert.deepEqual(unstorable.detail.at(-1), leftOut(99))
      })

      it('stays within 64 KiB for problems deep under long keys', async () => {
        // 60 levels of 2,000-character keys (`9…`, `8…`, from the outside in), then 150 unstorable strings: each entry's loc holds every key.
        let body = `{${Array.from({ length: 150 }, (_, i) => `"s${i}":"\\u0000"`).join(',')}}`
        for (let level = 0; level < 60; level++) body = `{"${String(level % 10).repeat(2000)}":${body}}`
        const { detail, bytes } = await refusal('/api/pools', body)
        assert.ok(bytes <= MAX_ANSWER_BYTES, `${bytes} bytes`)
        assert.ok(detail.length > 1 && detail.length <= MAX_ENTRIES, `${detail.length} entries`)
        assert.deepEqual(detail.at(-1), leftOut(detail.length - 1))
        assert.equal(detail[0]?.loc.length, 62)
        assert.equal(detail[0]?.loc[1], `${'9'.repeat(1024)}…`)
      })
    })
  })
}
