/**
 * Bad input across routes, on every dialect: each kind of input is checked in
 * one place (bodies as they are parsed, path and query values by their
 * validators), so every route answers the same 422 and nothing reaches a
 * database that would store it differently, refuse it, or overflow on it.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { chunk, createPool, createProvider } from './fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from './helpers.js'

const url = (type: string) => `https://errors.pydantic.dev/2.5/v/${type}`
/** The 422 entry for unstorable text `input` at `loc` (pydantic 2's words for a validator's ValueError). */
const unstorableAt = (input: string, ...loc: Array<string | number>) => ({
  type: 'value_error', loc, msg: 'Value error, text contains a NUL character or an unpaired surrogate, which cannot be stored', input, ctx: { error: {} }, url: url('value_error')
})
const unstorable = (input: string, ...loc: Array<string | number>) => ({ detail: [unstorableAt(input, ...loc)] })
const notInteger = (input: string, ...loc: string[]) => ({
  detail: [{ type: 'int_parsing', loc, msg: 'Input should be a valid integer, unable to parse string as an integer', input, url: url('int_parsing') }]
})
/** FastAPI 0.104's entry for a body that does not parse as JSON (no url: FastAPI writes it). */
const jsonInvalid = (position: number, error: string) => ({ detail: [{ type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error } }] })
const depth = (position: number) => jsonInvalid(position, 'JSON is nested more than 64 levels deep')
const notDateTime = (input: string, error: string) => ({
  detail: [{ type: 'datetime_parsing', loc: ['query', 'since'], msg: `Input should be a valid datetime, ${error}`, input, ctx: { error }, url: url('datetime_parsing') }]
})

/** Text PostgreSQL refuses (NUL) and text both databases would change (a lone surrogate, either half). */
const BAD_TEXT: Array<[string, string]> = [['a NUL character', 'a\u0000b'], ['a lone high surrogate', 'a\ud800'], ['a lone low surrogate', '\udc00z']]

/** `levels` nested arrays around `inner`, as JSON text. */
const nested = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`

for (const dialect of dialects) {
  describeOn(dialect, 'bad input', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => { await t.close() })

    const send = (method: string, url: string, payload?: unknown) => t.request({ method: method as 'GET', url, payload: payload as object })
    const sendText = (method: string, url: string, payload: string | Buffer) =>
      t.request({ method: method as 'POST', url, headers: { 'content-type': 'application/json' }, payload })

    describe('text a database cannot store exactly', () => {
      for (const [label, text] of BAD_TEXT) {
        it(`refuses ${label} in a pool or provider name, storing nothing`, async () => {
          const pool = await send('POST', '/api/pools', { name: text, category: 'c' })
          assert.equal(pool.status, 422)
          assert.deepEqual(pool.body, unstorable(text, 'body', 'name'))
          const provider = await send('POST', '/api/providers', { name: text })
          assert.equal(provider.status, 422)
          assert.deepEqual(provider.body, unstorable(text, 'body', 'name'))
          assert.equal((await send('GET', '/api/pools')).body.total, 0)
          assert.deepEqual((await send('GET', '/api/providers')).body, [])
        })

        it(`refuses ${label} in a rotate reason, a nested value and a key`, async () => {
          const poolId = await createPool(t, 'p')
          const rotate = await send('POST', `/api/pools/${poolId}/rotate`, { reason: text })
          assert.equal(rotate.status, 422)
          assert.deepEqual(rotate.body, unstorable(text, 'body', 'reason'))
          const nestedValue = await send('POST', '/api/chunks', chunk('c', {}, { page: { titles: ['ok', text] } }))
          assert.equal(nestedValue.status, 422)
          assert.deepEqual(nestedValue.body, unstorable(text, 'body', 'metadata', 'page', 'titles', 1))
          const key = await send('POST', '/api/pools', { name: 'q', category: 'c', [text]: 1 })
          assert.equal(key.status, 422)
          assert.deepEqual(key.body, unstorable(text, 'body', text), 'a key is its own input')
          assert.equal((await send('GET', '/api/pools')).body.total, 1)
        })
      }

      it('lists every place in one 422', async () => {
        const res = await send('POST', '/api/chunks/batch', { chunks: [chunk('ok'), chunk('a', { chunk_id: 'a\u0000' }), chunk('b', { content: '\ud800' })] })
        assert.equal(res.status, 422)
        assert.deepEqual(res.body, { detail: [unstorableAt('a\u0000', 'body', 'chunks', 1, 'chunk_id'), unstorableAt('\ud800', 'body', 'chunks', 2, 'content')] })
      })

      it('refuses a NUL character in a path value (a chunk id) on every method', async () => {
        await send('POST', '/api/chunks', chunk('a'))
        for (const [method, payload] of [['GET'], ['PUT', chunk('a')], ['DELETE']] as Array<[string, unknown?]>) {
          const res = await send(method, '/api/chunks/a%00b', payload)
          assert.equal(res.status, 422, method)
          assert.deepEqual(res.body, unstorable('a\u0000b', 'path', 'chunk_id'), method)
        }
        const refusal = await send('DELETE', '/api/providers/1/refusals/%00')
        assert.equal(refusal.status, 422)
        assert.deepEqual(refusal.body, unstorable('\u0000', 'path', 'resource'))
      })

      it('refuses a NUL character in a query value (chunk and audit filters, repeated keys too)', async () => {
        for (const [target, field, input] of [['/api/chunks?parent_id=a%00b', 'parent_id', 'a\u0000b'], ['/api/chunks?embedding_model=%00', 'embedding_model', '\u0000'], ['/api/audit?actor=x%00', 'actor', 'x\u0000']]) {
          const res = await send('GET', target as string)
          assert.equal(res.status, 422, target)
          assert.deepEqual(res.body, unstorable(input as string, 'query', field as string), target)
        }
        const repeated = await send('GET', '/api/chunks?source=a&source=b%00')
        assert.equal(repeated.status, 422)
        assert.deepEqual(repeated.body, unstorable('b\u0000', 'query', 'source', 1))
      })

      it('refuses a NUL character in a chunk search filter', async () => {
        const res = await send('POST', '/api/chunks/search', { embedding: [1, 0, 0], embedding_model: 'mini', filter: { source: '\u0000' } })
        assert.equal(res.status, 422)
        assert.deepEqual(res.body, unstorable('\u0000', 'body', 'filter', 'source'))
      })

      it('refuses a body that is not UTF-8 (a raw surrogate or a stray byte) instead of storing U+FFFD', async () => {
        for (const bytes of [[0xed, 0xa0, 0x80], [0xff]]) {
          const payload = Buffer.concat([Buffer.from('{"name":"x'), Buffer.from(bytes), Buffer.from('"}')])
          const res = await sendText('POST', '/api/providers', payload)
          assert.equal(res.status, 422)
          // At the first byte that is not UTF-8, counted in characters as Python counts a JSON position.
          assert.deepEqual(res.body, jsonInvalid('{"name":"x'.length, 'the body is not valid UTF-8'))
        }
        assert.deepEqual((await send('GET', '/api/providers')).body, [])
      })

      it('stores other text exactly: non-BMP characters and percent-encoded text that is not UTF-8 in a query', async () => {
        const id = await createProvider(t, 'emoji 😀 ✓ \u0001')
        assert.equal((await send('GET', `/api/providers/${id}`)).body.name, 'emoji 😀 ✓ \u0001')
        const res = await send('GET', '/api/chunks?parent_id=%ED%A0%80')
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, { chunks: [], total: 0, next_cursor: null })
      })

      it('leaves the proxy\'s pass-through path alone', async () => {
        const res = await send('GET', '/api/pools/999/proxy/a%00b')
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { detail: 'Pool 999 not found' })
      })
    })

    describe('nesting', () => {
      it('answers 422 quickly for a body nested 100,000 levels deep (it used to overflow the stack: 500)', async () => {
        for (const [method, url] of [['POST', '/api/chunks'], ['POST', '/api/providers'], ['POST', '/api/pools']]) {
          const record = JSON.stringify(chunk('deep', {}, { extra: 0 })).replace('"extra":0', `"extra":${nested(100_000)}`)
          const started = Date.now()
          const res = await sendText(method as string, url as string, record)
          assert.ok(Date.now() - started < 2000, `${url} took ${Date.now() - started} ms`)
          assert.equal(res.status, 422, url)
          // At the bracket that opens level 65: extra's first array is level 3.
          assert.deepEqual(res.body, depth(record.indexOf('"extra":') + '"extra":'.length + 62), url)
        }
        assert.equal((await send('GET', '/api/chunks')).body.total, 0)
      })

      it('accepts 64 levels and refuses 65', async () => {
        // body (1) > metadata (2) > extra's arrays (3 …).
        const record = (levels: number) => JSON.stringify(chunk('n', {}, { extra: 0 })).replace('"extra":0', `"extra":${nested(levels - 2, '"x"')}`)
        const deepest = await sendText('POST', '/api/chunks', record(64))
        assert.equal(deepest.status, 200, JSON.stringify(deepest.body))
        const tooDeep = await sendText('POST', '/api/chunks', record(65))
        assert.equal(tooDeep.status, 422)
        assert.deepEqual(tooDeep.body, depth(record(65).indexOf('"extra":') + '"extra":'.length + 62))
      })
    })

    describe('integers in the path and query', () => {
      const BAD = ['0x10', '1e1', '%2B1', '1.0', '%201', '1%20', '', 'one', '1_000', '0b1', 'Infinity']

      it('refuses anything but decimal digits in a path id, on every route', async () => {
        const poolId = await createPool(t, 'p')
        const providerId = await createProvider(t, 'a')
        for (const bad of BAD.filter((b) => b !== '')) {
          for (const [method, url, loc] of [
            ['GET', `/api/pools/${bad}`, 'pool_id'],
            ['GET', `/api/providers/${bad}`, 'provider_id'],
            ['DELETE', `/api/pools/${poolId}/members/${bad}`, 'provider_id'],
            ['POST', `/api/pools/${bad}/rotate`, 'pool_id'],
            ['GET', `/api/pools/${bad}/proxy/x`, 'pool_id'],
            ['GET', `/api/providers/${bad}/refusals`, 'provider_id']
          ] as Array<[string, string, string]>) {
            const res = await send(method, url)
            assert.equal(res.status, 422, `${method} ${url}`)
            assert.deepEqual(res.body, notInteger(decodeURIComponent(bad), 'path', loc), `${method} ${url}`)
          }
        }
        assert.equal((await send('GET', `/api/pools/${poolId}`)).status, 200)
        assert.equal((await send('GET', `/api/providers/00${providerId}`)).body.provider_id, providerId)
      })

      it('refuses anything but decimal digits in a query integer', async () => {
        const poolId = await createPool(t, 'p')
        for (const bad of BAD) {
          for (const url of [`/api/pools/${poolId}/history?limit=${bad}`, `/api/chunks?limit=${bad}`, `/api/audit?limit=${bad}`]) {
            const res = await send('GET', url)
            assert.equal(res.status, 422, url)
            assert.deepEqual(res.body, notInteger(decodeURIComponent(bad), 'query', 'limit'), url)
          }
        }
        assert.equal((await send('GET', `/api/pools/${poolId}/history?limit=10`)).status, 200)
      })

      it('reads a minus sign as a negative number, which the range then refuses', async () => {
        const res = await send('GET', '/api/pools/-1')
        assert.equal(res.status, 422)
        assert.deepEqual(res.body, { detail: [{ type: 'greater_than_equal', loc: ['path', 'pool_id'], msg: 'Input should be greater than or equal to 1', input: '-1', ctx: { ge: 1 }, url: url('greater_than_equal') }] })
      })
    })

    describe('date-time values', () => {
      it('refuses a leap second and instants outside years 0000-9999 (they used to be 500s)', async () => {
        for (const [since, error] of [
          ['2016-12-31T23:59:60Z', 'second value is outside expected range of 0-59'],
          ['2016-12-31T22:59:60-01:00', 'second value is outside expected range of 0-59'],
          ['9999-12-31T23:59:59-01:00', 'the instant is outside the years 0000 to 9999'],
          ['0000-01-01T00:00:00%2B01:00', 'the instant is outside the years 0000 to 9999']
        ] as const) {
          const res = await send('GET', `/api/audit?since=${since}`)
          assert.equal(res.status, 422, since)
          assert.deepEqual(res.body, notDateTime(decodeURIComponent(since), error), since)
        }
      })

      it('accepts every other RFC 3339 date-time', async () => {
        await createPool(t, 'p')
        for (const since of ['2016-12-31T23:59:59Z', '2016-12-31t23:59:59.123456z', '2000-01-01T00:00:00%2B14:00', '9999-12-31T23:59:59.999Z']) {
          const res = await send('GET', `/api/audit?since=${since}`)
          assert.equal(res.status, 200, since)
          assert.equal(res.body.total, since.startsWith('9999') ? 0 : 1, since)
        }
      })
    })
  })
}
