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

const UNSTORABLE = { msg: 'text contains a NUL character or an unpaired surrogate, which cannot be stored', type: 'value_error.str.unstorable' }
const unstorable = (...loc: Array<string | number>) => ({ detail: [{ loc, ...UNSTORABLE }] })
const notInteger = (...loc: string[]) => ({ detail: [{ loc, msg: 'value is not a valid integer', type: 'type_error.integer' }] })
const DEPTH = { detail: [{ loc: ['body'], msg: 'JSON is nested more than 64 levels deep', type: 'value_error.jsondecode.depth' }] }
const NOT_UTF8 = { detail: [{ loc: ['body'], msg: 'Invalid JSON: the body is not valid UTF-8', type: 'value_error.jsondecode' }] }
const NOT_DATE_TIME = { detail: [{ loc: ['query', 'since'], msg: 'value is not a valid date-time', type: 'value_error.date-time' }] }

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
          assert.deepEqual(pool.body, unstorable('body', 'name'))
          const provider = await send('POST', '/api/providers', { name: text })
          assert.equal(provider.status, 422)
          assert.deepEqual(provider.body, unstorable('body', 'name'))
          assert.equal((await send('GET', '/api/pools')).body.total, 0)
          assert.equal((await send('GET', '/api/providers')).body.total, 0)
        })

        it(`refuses ${label} in a rotate reason, a nested value and a key`, async () => {
          const poolId = await createPool(t, 'p')
          const rotate = await send('POST', `/api/pools/${poolId}/rotate`, { reason: text })
          assert.equal(rotate.status, 422)
          assert.deepEqual(rotate.body, unstorable('body', 'reason'))
          const nestedValue = await send('POST', '/api/chunks', chunk('c', {}, { page: { titles: ['ok', text] } }))
          assert.equal(nestedValue.status, 422)
          assert.deepEqual(nestedValue.body, unstorable('body', 'metadata', 'page', 'titles', 1))
          const key = await send('POST', '/api/pools', { name: 'q', category: 'c', [text]: 1 })
          assert.equal(key.status, 422)
          assert.deepEqual(key.body, unstorable('body', text))
          assert.equal((await send('GET', '/api/pools')).body.total, 1)
        })
      }

      it('lists every place in one 422', async () => {
        const res = await send('POST', '/api/chunks/batch', { chunks: [chunk('ok'), chunk('a', { chunk_id: 'a\u0000' }), chunk('b', { content: '\ud800' })] })
        assert.equal(res.status, 422)
        assert.deepEqual(res.body, { detail: [{ loc: ['body', 'chunks', 1, 'chunk_id'], ...UNSTORABLE }, { loc: ['body', 'chunks', 2, 'content'], ...UNSTORABLE }] })
      })

      it('refuses a NUL character in a path value (a chunk id) on every method', async () => {
        await send('POST', '/api/chunks', chunk('a'))
        for (const [method, payload] of [['GET'], ['PUT', chunk('a')], ['DELETE']] as Array<[string, unknown?]>) {
          const res = await send(method, '/api/chunks/a%00b', payload)
          assert.equal(res.status, 422, method)
          assert.deepEqual(res.body, unstorable('path', 'chunk_id'), method)
        }
        const refusal = await send('DELETE', '/api/providers/1/refusals/%00')
        assert.equal(refusal.status, 422)
        assert.deepEqual(refusal.body, unstorable('path', 'resource'))
      })

      it('refuses a NUL character in a query value (chunk and audit filters, repeated keys too)', async () => {
        for (const [url, field] of [['/api/chunks?parent_id=a%00b', 'parent_id'], ['/api/chunks?embedding_model=%00', 'embedding_model'], ['/api/audit?actor=x%00', 'actor']]) {
          const res = await send('GET', url as string)
          assert.equal(res.status, 422, url)
          assert.deepEqual(res.body, unstorable('query', field as string), url)
        }
        const repeated = await send('GET', '/api/chunks?source=a&source=b%00')
        assert.equal(repeated.status, 422)
        assert.deepEqual(repeated.body, unstorable('query', 'source', 1))
      })

      it('refuses a NUL character in a chunk search filter', async () => {
        const res = await send('POST', '/api/chunks/search', { embedding: [1, 0, 0], embedding_model: 'mini', filter: { source: '\u0000' } })
        assert.equal(res.status, 422)
        assert.deepEqual(res.body, unstorable('body', 'filter', 'source'))
      })

      it('refuses a body that is not UTF-8 (a raw surrogate or a stray byte) instead of storing U+FFFD', async () => {
        for (const bytes of [[0xed, 0xa0, 0x80], [0xff]]) {
          const payload = Buffer.concat([Buffer.from('{"name":"x'), Buffer.from(bytes), Buffer.from('"}')])
          const res = await sendText('POST', '/api/providers', payload)
          assert.equal(res.status, 422)
          assert.deepEqual(res.body, NOT_UTF8)
        }
        assert.equal((await send('GET', '/api/providers')).body.total, 0)
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
          assert.deepEqual(res.body, DEPTH, url)
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
        assert.deepEqual(tooDeep.body, DEPTH)
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
            assert.deepEqual(res.body, notInteger('path', loc), `${method} ${url}`)
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
            assert.deepEqual(res.body, notInteger('query', 'limit'), url)
          }
        }
        assert.equal((await send('GET', `/api/pools/${poolId}/history?limit=10`)).status, 200)
      })

      it('reads a minus sign as a negative number, which the range then refuses', async () => {
        const res = await send('GET', '/api/pools/-1')
        assert.equal(res.status, 422)
        assert.deepEqual(res.body, { detail: [{ loc: ['path', 'pool_id'], msg: 'ensure this value is greater than or equal to 1', type: 'value_error.number.not_ge', ctx: { limit_value: 1 } }] })
      })
    })

    describe('date-time values', () => {
      it('refuses a leap second and instants outside years 0000-9999 (they used to be 500s)', async () => {
        for (const since of ['2016-12-31T23:59:60Z', '2016-12-31T22:59:60-01:00', '9999-12-31T23:59:59-01:00', '0000-01-01T00:00:00%2B01:00']) {
          const res = await send('GET', `/api/audit?since=${since}`)
          assert.equal(res.status, 422, since)
          assert.deepEqual(res.body, NOT_DATE_TIME, since)
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
