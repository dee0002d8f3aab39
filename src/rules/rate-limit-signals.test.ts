/**
 * A provider's own rate-limit signals, read from its answer headers at a fixed time:
 * every accepted form, the caps, and garbage that must be ignored without throwing.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { rateLimitSignals } from './rate-limit-signals.js'

const now = new Date('2026-03-01T12:00:00.000Z')
const nowS = now.getTime() / 1000
const read = (status: number, headers: Record<string, string | string[] | undefined>, max = 300): ReturnType<typeof rateLimitSignals> =>
  rateLimitSignals(status, headers, now, max)

describe('rateLimitSignals: Retry-After', () => {
  it('reads delta-seconds on a 429 and a 503, rounding a fraction up', () => {
    assert.deepEqual(read(429, { 'retry-after': '120' }), { retryAfterS: 120 })
    assert.deepEqual(read(503, { 'retry-after': ' 7 ' }), { retryAfterS: 7 })
    assert.deepEqual(read(429, { 'retry-after': '1.2' }), { retryAfterS: 2 })
    assert.deepEqual(read(429, { 'retry-after': ['30', '90'] }), { retryAfterS: 30 })
  })

  it('reads it on no other status', () => {
    for (const status of [200, 301, 401, 500, 502, 504]) assert.deepEqual(read(status, { 'retry-after': '120' }), {}, String(status))
  })

  it('reads the three HTTP-date forms as seconds from now, rounded up', () => {
    assert.deepEqual(read(429, { 'retry-after': 'Sun, 01 Mar 2026 12:01:30 GMT' }), { retryAfterS: 90 })
    assert.deepEqual(read(503, { 'retry-after': 'Sunday, 01-Mar-26 12:00:10 GMT' }), { retryAfterS: 10 })
    assert.deepEqual(read(503, { 'retry-after': 'Sun Mar  1 12:00:45 2026' }), { retryAfterS: 45 })
    const half = new Date(now.getTime() + 500)
    assert.deepEqual(rateLimitSignals(429, { 'retry-after': 'Sun, 01 Mar 2026 12:00:10 GMT' }, half, 300), { retryAfterS: 10 }, '9.5 s rounds up')
    assert.deepEqual(read(429, { 'retry-after': 'Sunday, 01-Mar-76 12:00:10 GMT' }, 1e10), { retryAfterS: 1_577_923_210 }, 'a two-digit year 50 years ahead is ahead')
  })

  it('ignores dates in the past or now, and impossible dates', () => {
    for (const value of [
      'Sun, 01 Mar 2026 11:59:59 GMT', 'Sun, 01 Mar 2026 12:00:00 GMT', 'Sunday, 01-Mar-77 12:00:10 GMT', 'Sun, 31 Feb 2026 12:00:10 GMT',
      'Sun, 01 Mar 2026 25:00:00 GMT', 'Sun, 01 Foo 2026 12:00:10 GMT', 'Sun, 01 Mar 2026 12:00:10 PST', '2026-03-01 12:00:10'
    ]) assert.deepEqual(read(429, { 'retry-after': value }), {}, value)
  })

  it('caps at maxSeconds and ignores garbage', () => {
    assert.deepEqual(read(429, { 'retry-after': '86400' }), { retryAfterS: 300 })
    assert.deepEqual(read(429, { 'retry-after': 'Mon, 01 Mar 2027 12:00:00 GMT' }, 60), { retryAfterS: 60 })
    assert.deepEqual(read(429, { 'retry-after': '9'.repeat(500) }), { retryAfterS: 300 })
    for (const value of ['0', '-5', 'soon', '', 'NaN', 'Infinity', '1e3', '0x10', '12 s', '9'.repeat(2000)]) {
      assert.deepEqual(read(429, { 'retry-after': value }), {}, value.slice(0, 20))
    }
    assert.deepEqual(read(429, { 'retry-after': [] }), {})
    assert.deepEqual(read(429, { 'retry-after': 12 as unknown as string }), {})
  })
})

describe('rateLimitSignals: remaining and reset', () => {
  it('pauses until X-RateLimit-Reset given as seconds to wait, Unix seconds or Unix milliseconds', () => {
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '42' }), { pauseS: 42, source: 'x-ratelimit-remaining' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(nowS + 75) }), { pauseS: 75, source: 'x-ratelimit-remaining' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(nowS + 12.3) }), { pauseS: 13, source: 'x-ratelimit-remaining' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now.getTime() + 2500) }), { pauseS: 3, source: 'x-ratelimit-remaining' })
  })

  it('reads the IETF RateLimit-Remaining / RateLimit-Reset pair and the X/Twitter one', () => {
    assert.deepEqual(read(200, { 'ratelimit-remaining': '0', 'ratelimit-reset': '30' }), { pauseS: 30, source: 'ratelimit-remaining' })
    assert.deepEqual(read(200, { 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(nowS + 600) }, 900), { pauseS: 600, source: 'x-rate-limit-remaining' })
  })

  it('prefers X-RateLimit-Reset-After, and falls back to X-RateLimit-Reset when it is unusable', () => {
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '1.25', 'x-ratelimit-reset': String(nowS + 2) }), { pauseS: 2, source: 'x-ratelimit-remaining' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': '7', 'x-ratelimit-reset': String(nowS + 100) }), { pauseS: 7, source: 'x-ratelimit-remaining' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset-after': 'x', 'x-ratelimit-reset': '9' }), { pauseS: 9, source: 'x-ratelimit-remaining' })
  })

  it('reads OpenAI-style durations and Anthropic-style RFC 3339 resets', () => {
    assert.deepEqual(read(200, { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1m30s' }), { pauseS: 90, source: 'x-ratelimit-remaining-requests' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining-tokens': '0', 'x-ratelimit-reset-tokens': '250ms' }), { pauseS: 1, source: 'x-ratelimit-remaining-tokens' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1h' }, 7200), { pauseS: 3600, source: 'x-ratelimit-remaining-requests' })
    assert.deepEqual(read(200, { 'anthropic-ratelimit-requests-remaining': '0', 'anthropic-ratelimit-requests-reset': '2026-03-01T12:00:20Z' }),
      { pauseS: 20, source: 'anthropic-ratelimit-requests-remaining' })
    assert.deepEqual(read(200, { 'anthropic-ratelimit-tokens-remaining': '0', 'anthropic-ratelimit-tokens-reset': '2026-03-01T13:00:05+01:00' }),
      { pauseS: 5, source: 'anthropic-ratelimit-tokens-remaining' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': 'Sun, 01 Mar 2026 12:00:08 GMT' }), { pauseS: 8, source: 'x-ratelimit-remaining' })
  })

  it('does not pause while requests remain, nor without a usable reset', () => {
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': '42' }), {})
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0.5', 'x-ratelimit-reset': '42' }), {})
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0' }), {})
    assert.deepEqual(read(200, { 'x-ratelimit-reset': '42' }), {})
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'ratelimit-reset': '42' }), {}, 'a reset of another family does not count')
    for (const reset of ['0', '-5', 'soon', '', 'NaN', '1e3', String(nowS - 10), String(now.getTime() - 10), '2026-03-01T11:00:00Z', '2026-03-01T12:00:20', '5x', 'ms', '9'.repeat(2000)]) {
      assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset }), {}, reset.slice(0, 20))
    }
    for (const remaining of ['-1', 'none', '', 'zero', '0'.repeat(2000)]) {
      assert.deepEqual(read(200, { 'x-ratelimit-remaining': remaining, 'x-ratelimit-reset': '42' }), {}, remaining.slice(0, 20))
    }
  })

  it('reads remaining 0 written as 0.0 or as the first of several lines', () => {
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0.0', 'x-ratelimit-reset': '42' }), { pauseS: 42, source: 'x-ratelimit-remaining' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': ['0', '5'], 'x-ratelimit-reset': ['42', '1'] }), { pauseS: 42, source: 'x-ratelimit-remaining' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0, 5', 'x-ratelimit-reset': '42' }), { pauseS: 42, source: 'x-ratelimit-remaining' })
  })

  it('caps the pause at maxSeconds, and a 429 gives both signals', () => {
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(nowS + 86_400 * 30) }), { pauseS: 300, source: 'x-ratelimit-remaining' })
    assert.deepEqual(read(200, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '999999' }, 60), { pauseS: 60, source: 'x-ratelimit-remaining' })
    assert.deepEqual(read(429, { 'retry-after': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '40' }), { retryAfterS: 5, pauseS: 40, source: 'x-ratelimit-remaining' })
  })

  it('takes the longest pause when several families say none is left', () => {
    assert.deepEqual(read(200, {
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': '10s',
      'x-ratelimit-remaining-tokens': '0',
      'x-ratelimit-reset-tokens': '50s',
      'ratelimit-remaining': '3',
      'ratelimit-reset': '100'
    }), { pauseS: 50, source: 'x-ratelimit-remaining-tokens' })
  })
})

describe('rateLimitSignals: the RateLimit structured field', () => {
  it('pauses for t when r=0, with or without a policy name', () => {
    assert.deepEqual(read(200, { ratelimit: '"default";r=0;t=10' }), { pauseS: 10, source: 'ratelimit' })
    assert.deepEqual(read(200, { ratelimit: 'default;r=0;t=10' }), { pauseS: 10, source: 'ratelimit' })
    assert.deepEqual(read(200, { ratelimit: 'r=0;t=12' }), { pauseS: 12, source: 'ratelimit' })
    assert.deepEqual(read(200, { ratelimit: '"a;b,c";t=9;r=0' }), { pauseS: 9, source: 'ratelimit' })
  })

  it('counts any member with r=0, the longest t winning, across several lines', () => {
    assert.deepEqual(read(200, { ratelimit: '"minute";r=0;t=20, "hour";r=0;t=1800, "day";r=50;t=40000' }, 3600), { pauseS: 1800, source: 'ratelimit' })
    assert.deepEqual(read(200, { ratelimit: ['"minute";r=5;t=20', '"burst";r=0;t=3'] }), { pauseS: 3, source: 'ratelimit' })
  })

  it('reads the dictionary form of draft 07', () => {
    assert.deepEqual(read(200, { ratelimit: 'limit=100, remaining=0, reset=50' }), { pauseS: 50, source: 'ratelimit' })
    assert.deepEqual(read(200, { ratelimit: 'limit=100, remaining=4, reset=50' }), {})
  })

  it('ignores members left with requests, without t, or with garbage, and caps t', () => {
    for (const value of ['"default";r=1;t=10', '"default";r=0', '"default";r=0;t=-4', '"default";r=0;t=abc', '"default";r=x;t=10', ';;;,,,', '"unterminated;r=0;t=5', 'r=0;t=0']) {
      assert.deepEqual(read(200, { ratelimit: value }), {}, value)
    }
    assert.deepEqual(read(200, { ratelimit: '"d";r=0;t=100000' }), { pauseS: 300, source: 'ratelimit' })
    assert.deepEqual(read(200, { ratelimit: `"d";r=0;t=5, ${'x'.repeat(2000)}` }), {}, 'over 1 KiB is not read')
  })
})

describe('rateLimitSignals: never throws', () => {
  it('answers {} for odd inputs', () => {
    const odd = { 'retry-after': null, 'x-ratelimit-remaining': { a: 1 }, ratelimit: [null, 5] } as unknown as Record<string, string>
    assert.deepEqual(read(429, odd), {})
    assert.deepEqual(read(429, Object.create(null)), {})
    assert.deepEqual(rateLimitSignals(429, { 'retry-after': 'Sun, 01 Mar 2026 12:01:30 GMT' }, new Date(Number.NaN), 300), {})
    assert.deepEqual(read(429, { 'retry-after': '10' }, 0), {}, 'a cap of 0 leaves nothing')
    assert.deepEqual(read(429, { 'retry-after': '10' }, Number.NaN), {})
  })
})
