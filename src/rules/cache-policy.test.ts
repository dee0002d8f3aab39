/**
 * The cache rules: what is stored and for how long, what a client's request asks
 * of the cache, the key (who may share an entry) and Vary matching.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { ageSeconds, asksForItsOwn, CACHEABLE_STATUSES, cacheKey, forbidsStore, freshSeconds, parseCacheControl, varyMatches, varyValues, wantsFresh } from './cache-policy.js'

describe('parseCacheControl', () => {
  it('reads names in lower case, values unquoted, flags as true', () => {
    assert.deepEqual(parseCacheControl('Public, MAX-AGE=60, s-maxage="30", no-transform'),
      new Map<string, string | true>([['public', true], ['max-age', '60'], ['s-maxage', '30'], ['no-transform', true]]))
  })

  it('keeps commas and escapes inside a quoted value, and joins several field lines', () => {
    assert.deepEqual(parseCacheControl('private="set-cookie, x-a", ext="a\\"b"'), new Map([['private', 'set-cookie, x-a'], ['ext', 'a"b']]))
    assert.deepEqual(parseCacheControl(['max-age=5', 'no-store']), new Map<string, string | true>([['max-age', '5'], ['no-store', true]]))
  })

  it('keeps the first of repeated directives', () => {
    assert.equal(parseCacheControl('max-age=5, max-age=500').get('max-age'), '5')
  })

  it('tolerates garbage without throwing', () => {
    assert.deepEqual(parseCacheControl(undefined), new Map())
    assert.deepEqual(parseCacheControl(''), new Map())
    assert.deepEqual(parseCacheControl(',,, ,'), new Map())
    assert.deepEqual(parseCacheControl('=5, "unterminated'), new Map([['"unterminated', true]]))
    assert.deepEqual(parseCacheControl('a="\\'), new Map([['a', '"\\']]))
    assert.equal(parseCacheControl('x'.repeat(100_000) + ',no-store').has('no-store'), true)
    assert.deepEqual(parseCacheControl([1, null] as unknown as string[]), new Map())
  })
})

describe('CACHEABLE_STATUSES', () => {
  it('holds 200 and the heuristically cacheable statuses, never a 5xx, 206 or a refusal', () => {
    for (const status of [200, 203, 204, 300, 301, 308, 404, 405, 410, 414]) assert.ok(CACHEABLE_STATUSES.has(status), String(status))
    for (const status of [201, 206, 302, 304, 401, 402, 403, 429, 500, 501, 502, 503, 504]) assert.ok(!CACHEABLE_STATUSES.has(status), String(status))
    assert.ok([...CACHEABLE_STATUSES].every((status) => status < 500))
  })
})

describe('freshSeconds', () => {
  const ok = (headers: Record<string, string | string[]> = {}, ttl = 60): number | null => freshSeconds('GET', 200, headers, ttl)

  it('stores a GET 200 for the pool TTL when the provider says nothing', () => {
    assert.equal(ok(), 60)
    assert.equal(freshSeconds('GET', 404, {}, 60), 60)
    assert.equal(ok({ 'cache-control': 'public' }), 60)
  })

  it('stores nothing with a pool TTL of 0, for another method, or another status', () => {
    assert.equal(ok({}, 0), null)
    assert.equal(ok({}, -1), null)
    assert.equal(ok({}, Number.NaN), null)
    for (const method of ['HEAD', 'POST', 'PUT', 'get']) assert.equal(freshSeconds(method, 200, {}, 60), null, method)
    for (const status of [206, 401, 402, 403, 429, 500, 501, 503]) assert.equal(freshSeconds('GET', status, {}, 60), null, String(status))
  })

  it('never stores no-store, private or no-cache answers, qualified forms included', () => {
    for (const cc of ['no-store', 'private', 'no-cache', 'NO-STORE', 'max-age=60, private', 'private="set-cookie"', 'no-cache="x-a"', 'public, s-maxage=60, no-store']) {
      assert.equal(ok({ 'cache-control': cc }), null, cc)
    }
    assert.equal(ok({ 'cache-control': ['public', 'no-store'] }), null)
  })

  it('never stores an answer with Vary: * or a Set-Cookie', () => {
    assert.equal(ok({ vary: '*' }), null)
    assert.equal(ok({ vary: 'Accept, *' }), null)
    assert.equal(ok({ vary: ['accept', '*'] }), null)
    assert.equal(ok({ vary: 'Accept' }), 60)
    assert.equal(ok({ 'set-cookie': ['a=b'] }), null)
    assert.equal(ok({ 'set-cookie': 'a=b' }), null)
  })

  it('takes the shorter of the pool TTL and s-maxage, else max-age', () => {
    assert.equal(ok({ 'cache-control': 'max-age=30' }), 30)
    assert.equal(ok({ 'cache-control': 'max-age=3600' }), 60)
    assert.equal(ok({ 'cache-control': 's-maxage=10, max-age=30' }), 10)
    assert.equal(ok({ 'cache-control': 'max-age=10, s-maxage=30' }), 30, 's-maxage wins over max-age: we are a shared cache')
    assert.equal(ok({ 'cache-control': 's-maxage=3600, max-age=1' }), 60)
    assert.equal(ok({ 'cache-control': 'max-age="20"' }), 20)
  })

  it('stores nothing whose lifetime is 0', () => {
    assert.equal(ok({ 'cache-control': 'max-age=0' }), null)
    assert.equal(ok({ 'cache-control': 's-maxage=0, max-age=60' }), null)
  })

  it('ignores malformed numbers: the next lifetime, else the pool TTL, applies', () => {
    for (const cc of ['max-age=abc', 'max-age=-5', 'max-age=1.5', 'max-age=', 'max-age', 'max-age=5s', 'max-age= ']) assert.equal(ok({ 'cache-control': cc }), 60, cc)
    assert.equal(ok({ 'cache-control': 's-maxage=x, max-age=20' }), 20)
    assert.equal(ok({ 'cache-control': `max-age=${'9'.repeat(400)}` }), 60)
  })

  it('counts the Age a cache upstream already held the answer for', () => {
    assert.equal(ok({ 'cache-control': 'max-age=30', age: '10' }), 20)
    assert.equal(ok({ 'cache-control': 'max-age=100', age: '10' }), 60)
    assert.equal(ok({ 'cache-control': 'max-age=30', age: '30' }), null)
    assert.equal(ok({ 'cache-control': 'max-age=30', age: '99' }), null)
    assert.equal(ok({ 'cache-control': 'max-age=30', age: 'junk' }), 30)
    assert.equal(ok({ age: '500' }), 60, 'without a lifetime from the provider the pool TTL applies as it is')
  })
})

describe('wantsFresh and forbidsStore', () => {
  it('a client asks for a fresh answer with no-cache, max-age=0 or Pragma: no-cache', () => {
    for (const headers of [{ 'cache-control': 'no-cache' }, { 'cache-control': 'max-age=0' }, { 'cache-control': 'Max-Age="0"' }, { pragma: 'no-cache' }, { pragma: 'x, No-Cache' }, { 'cache-control': ['foo', 'no-cache'] }]) {
      assert.equal(wantsFresh(headers), true, JSON.stringify(headers))
    }
    for (const headers of [{}, { 'cache-control': 'max-age=10' }, { 'cache-control': 'no-store' }, { 'cache-control': 'max-age=zero' }, { pragma: 'no-cachex' }, { 'cache-control': 'x="no-cache"' }]) {
      assert.equal(wantsFresh(headers), false, JSON.stringify(headers))
    }
  })

  it('a client forbids storing with no-store only', () => {
    assert.equal(forbidsStore({ 'cache-control': 'no-store' }), true)
    assert.equal(forbidsStore({ 'cache-control': 'max-age=5, NO-STORE' }), true)
    assert.equal(forbidsStore({ 'cache-control': 'no-cache' }), false)
    assert.equal(forbidsStore({ pragma: 'no-store' }), false)
    assert.equal(forbidsStore({}), false)
  })
})

describe('freshSeconds: Expires and Pragma', () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0)
  const date = 'Thu, 01 Jan 2026 12:00:00 GMT'
  it('reads Expires against the answer\'s Date (or now) when there is no max-age, and never past the pool TTL', () => {
    assert.equal(freshSeconds('GET', 200, { date, expires: 'Thu, 01 Jan 2026 12:00:45 GMT' }, 600, now), 45)
    assert.equal(freshSeconds('GET', 200, { expires: 'Thu, 01 Jan 2026 12:00:45 GMT' }, 600, now), 45, 'without Date: from now')
    assert.equal(freshSeconds('GET', 200, { date, expires: 'Thu, 01 Jan 2026 13:00:00 GMT' }, 600, now), 600)
    assert.equal(freshSeconds('GET', 200, { date, expires: 'Thu, 01 Jan 2026 12:00:45 GMT', 'cache-control': 'max-age=10' }, 600, now), 10, 'max-age wins')
  })
  it('does not store an answer whose Expires is past or not a date, nor one with Pragma: no-cache and no Cache-Control', () => {
    assert.equal(freshSeconds('GET', 200, { date, expires: 'Thu, 01 Jan 2026 11:00:00 GMT' }, 600, now), null)
    assert.equal(freshSeconds('GET', 200, { expires: '0' }, 600, now), null)
    assert.equal(freshSeconds('GET', 200, { pragma: 'no-cache' }, 600, now), null)
    assert.equal(freshSeconds('GET', 200, { pragma: 'no-cache', 'cache-control': 'max-age=30' }, 600, now), 30, 'Cache-Control decides when present')
  })
})

describe('cacheKey', () => {
  const base = { accept: 'application/json', 'accept-encoding': 'gzip' }

  it('is the same for the same request, and never holds a credential in clear', () => {
    const key = cacheKey('/a?x=1', base, false)
    assert.deepEqual(JSON.parse(key), ['sourcepool-cache/1', '/a?x=1', 'application/json', 'gzip'])
    assert.ok(!cacheKey('/a', { 'x-provider-authorization': 'Bearer secret-token' }, true).includes('secret-token'))
    assert.equal(cacheKey('/a?x=1', { ...base, 'user-agent': 'other', authorization: 'Bearer t' }, false), key, 'other headers do not count')
  })

  it('differs with the path and the query exactly as sent', () => {
    const keys = ['/a?x=1&y=2', '/a?y=2&x=1', '/a', '/a?', '/b?x=1&y=2', '/a?x=%31&y=2', '/A?x=1&y=2'].map((path) => cacheKey(path, base, false))
    assert.equal(new Set(keys).size, keys.length)
  })

  it('differs with Accept and Accept-Encoding, absent apart from empty', () => {
    const keys = [
      base, { ...base, accept: 'text/csv' }, { ...base, accept: '' }, { 'accept-encoding': 'gzip' },
      { ...base, 'accept-encoding': 'br' }, { ...base, 'accept-encoding': '' }, { accept: 'application/json' }, {}
    ].map((headers) => cacheKey('/a', headers, false))
    assert.equal(new Set(keys).size, keys.length)
  })

  it('frames its parts unambiguously', () => {
    assert.notEqual(cacheKey('/a', { accept: 'b' }, false), cacheKey('/a","b', {}, false))
    assert.notEqual(cacheKey('/a', { accept: 'x', 'accept-encoding': 'y' }, false), cacheKey('/a', { accept: 'x","y' }, false))
    assert.notEqual(cacheKey('/a', { accept: 'x', 'accept-encoding': '' }, false), cacheKey('/a', { accept: '', 'accept-encoding': 'x' }, false))
    assert.notEqual(cacheKey('/a', { accept: ['x', 'y'] }, false), cacheKey('/a', { accept: 'x,y' }, false))
  })

  it('counts the client credentials only when the pool forwards them', () => {
    const alice = { ...base, 'x-provider-authorization': 'Bearer alice' }
    const bob = { ...base, 'x-provider-authorization': 'Bearer bob' }
    assert.equal(cacheKey('/a', alice, false), cacheKey('/a', bob, false))
    assert.equal(cacheKey('/a', { ...base, cookie: 's=1' }, false), cacheKey('/a', base, false))
    const keys = [
      alice, bob, base, { ...base, cookie: 's=1' }, { ...base, cookie: 's=2' }, { ...alice, cookie: 's=1' },
      { ...base, 'x-provider-authorization': '' }, { ...base, 'x-provider-authorization': 's=1' }
    ].map((headers) => cacheKey('/a', headers, true))
    assert.equal(new Set(keys).size, keys.length)
    assert.equal(cacheKey('/a', alice, true), cacheKey('/a', { ...alice }, true))
    assert.notEqual(cacheKey('/a', base, true), cacheKey('/a', base, false), 'a forwarding pool never shares with a keyless lookup')
  })

  it('counts every other header that goes upstream (a custom credential), not the neutral ones', () => {
    const alice = cacheKey('/a', { ...base, 'x-api-key': 'alice' }, false)
    assert.notEqual(alice, cacheKey('/a', { ...base, 'x-api-key': 'bob' }, false))
    assert.notEqual(alice, cacheKey('/a', base, false))
    assert.ok(!alice.includes('alice'), 'only as a hash')
    assert.equal(cacheKey('/a', { ...base, 'user-agent': 'x', 'x-request-id': 'r1', authorization: 'Bearer ours', 'x-sourcepool-key': 'k' }, false), cacheKey('/a', base, false))
    assert.equal(cacheKey('/a', { ...base, 'x-b': '2', 'x-a': '1' }, false), cacheKey('/a', { ...base, 'x-a': '1', 'x-b': '2' }, false), 'in any order')
  })

  it('passes through a request for a range or with a condition', () => {
    for (const name of ['range', 'if-range', 'if-none-match', 'if-modified-since', 'if-match', 'if-unmodified-since']) assert.equal(asksForItsOwn({ [name]: 'x' }), true, name)
    assert.equal(asksForItsOwn({ accept: 'application/json' }), false)
  })

  it('does not contain the credentials', () => {
    assert.ok(!cacheKey('/a', { 'x-provider-authorization': 'secret' }, true).includes('secret'))
  })
})

describe('varyValues and varyMatches', () => {
  it('is null without a Vary, and null matches everything', () => {
    assert.equal(varyValues(undefined, { accept: 'a' }), null)
    assert.equal(varyValues('', { accept: 'a' }), null)
    assert.equal(varyValues(' , ', { accept: 'a' }), null)
    assert.equal(varyMatches(null, {}), true)
    assert.equal(varyMatches(null, { accept: 'anything' }), true)
  })

  it('records the request value of each named header, in lower case, absent as empty', () => {
    assert.deepEqual(varyValues('Accept-Language, X-Tenant', { 'accept-language': 'pt-BR', accept: 'x' }), { 'accept-language': 'pt-BR', 'x-tenant': '' })
    assert.deepEqual(varyValues(['origin', 'X-A'], { origin: 'https://a', 'x-a': ['1', '2'] }), { origin: 'https://a', 'x-a': '1, 2' })
  })

  it('matches a request with the same values and no other', () => {
    const stored = varyValues('Accept-Language, X-Tenant', { 'accept-language': 'pt-BR' })
    assert.equal(varyMatches(stored, { 'accept-language': 'pt-BR', other: 'x' }), true)
    assert.equal(varyMatches(stored, { 'accept-language': 'pt-BR', 'x-tenant': '' }), true, 'absent and empty are alike')
    assert.equal(varyMatches(stored, { 'accept-language': 'en' }), false)
    assert.equal(varyMatches(stored, { 'accept-language': 'pt-BR', 'x-tenant': 't1' }), false)
    assert.equal(varyMatches(stored, {}), false)
  })

  it('never matches a Vary: *', () => {
    const stored = varyValues('*', {})
    assert.ok(stored !== null)
    assert.equal(varyMatches(stored, {}), false)
  })

  it('is not fooled by names of Object.prototype', () => {
    const stored = varyValues('constructor, __proto__, toString', {})
    assert.deepEqual(Object.keys(stored ?? {}).sort(), ['__proto__', 'constructor', 'tostring'])
    assert.equal(varyMatches(stored, {}), true)
    assert.equal(varyMatches(JSON.parse(JSON.stringify(stored)), {}), true, 'after a round trip through JSON (Redis)')
    assert.equal(varyMatches(stored, { constructor: 'x' }), false)
  })
})

describe('ageSeconds', () => {
  it('is whole seconds since storing, never negative', () => {
    assert.equal(ageSeconds(1_000, 1_000), 0)
    assert.equal(ageSeconds(1_000, 1_999), 0)
    assert.equal(ageSeconds(1_000, 2_000), 1)
    assert.equal(ageSeconds(1_000, 62_500), 61)
    assert.equal(ageSeconds(5_000, 1_000), 0, 'a clock that went back')
    assert.equal(ageSeconds(Number.NaN, 1_000), 0)
  })
})
