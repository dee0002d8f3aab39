/**
 * The 422 bodies in FastAPI 0.104 + pydantic 2.5's words, entry by entry: each
 * error type this service gives, with its exact message, `input`, `ctx` and `url`;
 * what an `input` may never show (credentials) or grow to (a whole megabyte); and
 * JSON that does not parse. Through the routes, on every dialect.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { chunk } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const url = (type: string) => `https://errors.pydantic.dev/2.5/v/${type}`
/** A value_error entry: this service's own rules, as pydantic 2 reports a validator's ValueError. */
const valueError = (loc: Array<string | number>, input: unknown, sentence: string) =>
  ({ type: 'value_error', loc, msg: `Value error, ${sentence}`, input, ctx: { error: {} }, url: url('value_error') })

for (const dialect of dialects) {
  describeOn(dialect, '422 bodies in pydantic 2.5\'s words', () => {
    let t: TestApp
    before(async () => { t = await buildTestApp(dialect) })
    after(async () => { await t.close() })

    const detail = async (method: string, target: string, payload?: unknown) => {
      const res = await t.request({ method: method as 'POST', url: target, payload: payload as object })
      assert.equal(res.status, 422, JSON.stringify(res.body))
      return res.body.detail
    }
    const raw = async (payload: string | Buffer) => {
      const res = await t.request({ method: 'POST', url: '/api/pools', headers: { 'content-type': 'application/json' }, payload })
      assert.equal(res.status, 422, JSON.stringify(res.body))
      return res.body
    }

    describe('missing', () => {
      it('names the field, with the object that lacks it as input', async () => {
        assert.deepEqual(await detail('POST', '/api/pools', { name: 'p', extra: [1] }), [
          { type: 'missing', loc: ['body', 'category'], msg: 'Field required', input: { name: 'p', extra: [1] }, url: url('missing') }
        ])
        assert.deepEqual(await detail('POST', '/api/pools/1/members', { weight: 2, health_check: { path: '/h' } }), [
          { type: 'missing', loc: ['body', 'provider_id'], msg: 'Field required', input: { weight: 2, health_check: { path: '/h' } }, url: url('missing') }
        ])
      })

      it('answers a missing body, or null, as FastAPI 0.104 does: loc ["body"], input null', async () => {
        const expected = [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null, url: url('missing') }]
        assert.deepEqual(await detail('POST', '/api/pools'), expected)
        assert.deepEqual((await raw('null')).detail, expected)
      })
    })

    describe('wrong types: a body is typed strictly, in pydantic strict mode\'s words', () => {
      it('int_type, int_from_float, string_type, bool_type, float_type, list_type', async () => {
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', timeout_ms: '5000', category: 7 }), [
          { type: 'string_type', loc: ['body', 'category'], msg: 'Input should be a valid string', input: 7, url: url('string_type') },
          { type: 'int_type', loc: ['body', 'timeout_ms'], msg: 'Input should be a valid integer', input: '5000', url: url('int_type') }
        ])
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', timeout_ms: 150.5 }), [
          { type: 'int_from_float', loc: ['body', 'timeout_ms'], msg: 'Input should be a valid integer, got a number with a fractional part', input: 150.5, url: url('int_from_float') }
        ])
        assert.deepEqual(await detail('POST', '/api/pools', { name: 'p', category: 'c', retry_non_idempotent: 'yes' }), [
          { type: 'bool_type', loc: ['body', 'retry_non_idempotent'], msg: 'Input should be a valid boolean', input: 'yes', url: url('bool_type') }
        ])
        assert.deepEqual(await detail('POST', '/api/chunks', chunk('c', { embedding: [1, '2', 3] })), [
          { type: 'float_type', loc: ['body', 'embedding', 1], msg: 'Input should be a valid number', input: '2', url: url('float_type') }
        ])
        assert.deepEqual(await detail('POST', '/api/chunks', chunk('c', { embedding: 'none' })), [
          { type: 'list_type', loc: ['body', 'embedding'], msg: 'Input should be a valid list', input: 'none', url: url('list_type') }
        ])
      })

      it('a model where an object with fields belongs (model_attributes_type), a dict where a mapping does (dict_type)', async () => {
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', rate_limit: 5 }), [
          { type: 'model_attributes_type', loc: ['body', 'rate_limit'], msg: 'Input should be a valid dictionary or object to extract fields from', input: 5, url: url('model_attributes_type') }
        ])
        assert.deepEqual(await detail('POST', '/api/pools', ['p']), [
          { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: ['p'], url: url('model_attributes_type') }
        ])
        // Credentials: never echoed, even sent where they do not belong.
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', auth_headers: 'Bearer s3cret' }), [
          { type: 'dict_type', loc: ['body', 'auth_headers'], msg: 'Input should be a valid dictionary', input: '***', url: url('dict_type') }
        ])
      })

      it('path and query values arrive as text: int_parsing and bool_parsing, the text as input', async () => {
        assert.deepEqual(await detail('GET', '/api/pools?limit=ten'), [
          { type: 'int_parsing', loc: ['query', 'limit'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'ten', url: url('int_parsing') }
        ])
        assert.deepEqual(await detail('GET', '/api/providers/1e1'), [
          { type: 'int_parsing', loc: ['path', 'provider_id'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: '1e1', url: url('int_parsing') }
        ])
        assert.deepEqual(await detail('GET', '/api/chunks?include_embedding=maybe'), [
          { type: 'bool_parsing', loc: ['query', 'include_embedding'], msg: 'Input should be a valid boolean, unable to interpret input', input: 'maybe', url: url('bool_parsing') }
        ])
      })

      it('reports each member of a union under its label, as pydantic does', async () => {
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', base_url: 'http://a.example', health_check: { path: '/h', expect_status: [true] } }), [
          { type: 'int_type', loc: ['body', 'health_check', 'expect_status', 0, 'constrained-int'], msg: 'Input should be a valid integer', input: true, url: url('int_type') },
          { type: 'string_type', loc: ['body', 'health_check', 'expect_status', 0, 'constrained-str'], msg: 'Input should be a valid string', input: true, url: url('string_type') }
        ])
      })
    })

    describe('limits', () => {
      it('greater_than_equal and less_than_equal with ge and le', async () => {
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', rate_limit: { requests: 0, per: 'minute' }, timeout_ms: 600_001 }), [
          { type: 'greater_than_equal', loc: ['body', 'rate_limit', 'requests'], msg: 'Input should be greater than or equal to 1', input: 0, ctx: { ge: 1 }, url: url('greater_than_equal') },
          { type: 'less_than_equal', loc: ['body', 'timeout_ms'], msg: 'Input should be less than or equal to 600000', input: 600_001, ctx: { le: 600_000 }, url: url('less_than_equal') }
        ])
        assert.deepEqual(await detail('GET', '/api/pools?limit=1001'), [
          { type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 1000', input: '1001', ctx: { le: 1000 }, url: url('less_than_equal') }
        ])
      })

      it('string_too_short (one character: singular) and string_too_long', async () => {
        assert.deepEqual(await detail('POST', '/api/providers', { name: '' }), [
          { type: 'string_too_short', loc: ['body', 'name'], msg: 'String should have at least 1 character', input: '', ctx: { min_length: 1 }, url: url('string_too_short') }
        ])
        const long = 'n'.repeat(201)
        assert.deepEqual(await detail('POST', '/api/providers', { name: long }), [
          { type: 'string_too_long', loc: ['body', 'name'], msg: 'String should have at most 200 characters', input: long, ctx: { max_length: 200 }, url: url('string_too_long') }
        ])
      })

      it('too_short and too_long for a list, too_long for a dict', async () => {
        const check = (expect: unknown[]) => ({ name: 'p', base_url: 'http://a.example', health_check: { path: '/h', expect_status: expect } })
        assert.deepEqual(await detail('POST', '/api/providers', check([])), [{
          type: 'too_short',
          loc: ['body', 'health_check', 'expect_status'],
          msg: 'List should have at least 1 item after validation, not 0',
          input: [],
          ctx: { field_type: 'List', min_length: 1, actual_length: 0 },
          url: url('too_short')
        }])
        const many = Array.from({ length: 51 }, () => 200)
        assert.deepEqual(await detail('POST', '/api/providers', check(many)), [{
          type: 'too_long',
          loc: ['body', 'health_check', 'expect_status'],
          msg: 'List should have at most 50 items after validation, not 51',
          input: many,
          ctx: { field_type: 'List', max_length: 50, actual_length: 51 },
          url: url('too_long')
        }])
        const headers = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`x-key-${i}`, `secret-${i}`]))
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', auth_headers: headers }), [{
          type: 'too_long',
          loc: ['body', 'auth_headers'],
          msg: 'Dictionary should have at most 20 items after validation, not 21',
          input: Object.fromEntries(Object.keys(headers).map((name) => [name, '***'])),
          ctx: { field_type: 'Dictionary', max_length: 20, actual_length: 21 },
          url: url('too_long')
        }])
      })
    })

    describe('allowed values and patterns', () => {
      it('enum: the values as pydantic lists them (commas and a final "or"), no url', async () => {
        const expected = "'round_robin', 'weighted', 'priority', 'least_used', 'random', 'least_latency', 'least_outstanding' or 'consistent_hash'"
        assert.deepEqual(await detail('POST', '/api/pools', { name: 'p', category: 'c', rotation_strategy: 'fastest' }), [
          { type: 'enum', loc: ['body', 'rotation_strategy'], msg: `Input should be ${expected}`, input: 'fastest', ctx: { expected } }
        ])
        assert.deepEqual(await detail('POST', '/api/pools', { name: 'p', category: 'c', all_down: 'never' }), [
          { type: 'enum', loc: ['body', 'all_down'], msg: "Input should be 'soonest' or 'fail'", input: 'never', ctx: { expected: "'soonest' or 'fail'" } }
        ])
      })

      it('string_pattern_mismatch with the pattern, and a key refused at [key]', async () => {
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', base_url: 'http://a.example', health_check: { path: 'health' } }), [
          { type: 'string_pattern_mismatch', loc: ['body', 'health_check', 'path'], msg: "String should match pattern '^/'", input: 'health', ctx: { pattern: '^/' }, url: url('string_pattern_mismatch') }
        ])
        const pattern = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$"
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', auth_headers: { 'x key': 'secret' } }), [
          { type: 'string_pattern_mismatch', loc: ['body', 'auth_headers', 'x key', '[key]'], msg: `String should match pattern '${pattern}'`, input: 'x key', ctx: { pattern }, url: url('string_pattern_mismatch') }
        ])
      })

      it('a URL is refused in pydantic\'s URL words, never with the regular expression that checks it', async () => {
        const refusal = async (baseUrl: string) => (await detail('POST', '/api/providers', { name: 'p', base_url: baseUrl }))[0]
        const parsing = (input: string, error: string) =>
          ({ type: 'url_parsing', loc: ['body', 'base_url'], msg: `Input should be a valid URL, ${error}`, input, ctx: { error }, url: url('url_parsing') })
        assert.deepEqual(await refusal('ftp://files.example'), {
          type: 'url_scheme', loc: ['body', 'base_url'], msg: "URL scheme should be 'http' or 'https'", input: 'ftp://files.example', ctx: { expected_schemes: "'http' or 'https'" }, url: url('url_scheme')
        })
        assert.deepEqual(await refusal('api.example.com'), parsing('api.example.com', 'relative URL without a base'))
        assert.deepEqual(await refusal(''), parsing('', 'input is empty'))
        assert.deepEqual(await refusal('http://'), parsing('http://', 'empty host'))
        assert.deepEqual(await refusal('http://a.example:99999'), parsing('http://a.example:99999', 'invalid port number'))
        assert.deepEqual(await refusal('http://[::1/x'), parsing('http://[::1/x', 'invalid IPv6 address'))
        assert.deepEqual(await refusal('http://a.example/a b'), parsing('http://a.example/a b', 'whitespace is not allowed in a URL'))
        const long = `http://a.example/${'p'.repeat(2048)}`
        const tooLong = await refusal(long)
        assert.deepEqual({ ...tooLong, input: undefined }, {
          type: 'url_too_long', loc: ['body', 'base_url'], msg: 'URL should have at most 2048 characters', input: undefined, ctx: { max_length: 2048 }, url: url('url_too_long')
        })
        for (const baseUrl of ['ftp://x', 'x', '', 'http://', 'http://a b', long]) {
          assert.doesNotMatch(JSON.stringify(await detail('POST', '/api/providers', { name: 'p', base_url: baseUrl })), /\^https|\[\^\\\\s\]/, baseUrl)
        }
      })

      it('a date-time in speedate\'s words, or asks for a timezone', async () => {
        assert.deepEqual(await detail('GET', '/api/audit?since=2026-02-30T00:00:00Z'), [{
          type: 'datetime_parsing', loc: ['query', 'since'], msg: 'Input should be a valid datetime, day value is outside expected range', input: '2026-02-30T00:00:00Z', ctx: { error: 'day value is outside expected range' }, url: url('datetime_parsing')
        }])
        assert.deepEqual(await detail('GET', '/api/audit?since=2026-01-01'), [{
          type: 'datetime_parsing',
          loc: ['query', 'since'],
          msg: 'Input should be a valid datetime, invalid datetime separator, expected `T`, `t`, `_` or space',
          input: '2026-01-01',
          ctx: { error: 'invalid datetime separator, expected `T`, `t`, `_` or space' },
          url: url('datetime_parsing')
        }])
        assert.deepEqual(await detail('GET', '/api/audit?since=2026-01-01T10:00:00'), [
          { type: 'timezone_aware', loc: ['query', 'since'], msg: 'Input should have timezone info', input: '2026-01-01T10:00:00', url: url('timezone_aware') }
        ])
        // speedate reads `_` between date and time; RFC 3339 does not.
        assert.deepEqual(await detail('GET', '/api/audit?since=2026-01-01_10:00:00Z'), [{
          type: 'datetime_parsing', loc: ['query', 'since'], msg: 'Input should be a valid datetime, not an RFC 3339 date-time', input: '2026-01-01_10:00:00Z', ctx: { error: 'not an RFC 3339 date-time' }, url: url('datetime_parsing')
        }])
      })
    })

    describe('this service\'s own rules: value_error', () => {
      it('words each rule as a validator\'s ValueError, the value at loc as input', async () => {
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', base_url: 'http://a.example', health_check: { path: '/a/../b', interval_s: 1, timeout_ms: 5000 } }), [
          valueError(['body', 'health_check', 'path'], '/a/../b', 'Path may not contain dot segments or backslashes'),
          valueError(['body', 'health_check', 'timeout_ms'], 5000, 'timeout_ms must be at most the interval (1000 ms)')
        ])
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', health_check: { path: '/h' } }), [
          valueError(['body', 'health_check'], { path: '/h' }, "a health check needs the provider's base_url")
        ])
        assert.deepEqual(await detail('POST', '/api/providers', { name: 'p', auth_headers: { Host: 'secret' } }), [
          valueError(['body', 'auth_headers', 'Host', '[key]'], 'Host', 'the proxy manages host itself; it cannot be a credential header')
        ])
        assert.deepEqual(await detail('GET', '/api/audit?cursor=nope'), [
          valueError(['query', 'cursor'], 'nope', 'invalid cursor: pass next_cursor from the previous page as it is')
        ])
        assert.deepEqual(await detail('POST', '/api/pools', { name: 'p', category: 'c', cooldown_seconds: 60, max_cooldown_seconds: 30 }), [
          valueError(['body', 'max_cooldown_seconds'], 30, 'max_cooldown_seconds must be greater than or equal to cooldown_seconds (60)')
        ])
      })

      it('extra_forbidden for a key a declared state does not have', async () => {
        assert.deepEqual(await detail('POST', '/api/config/plan', { providers: [], pols: [{ name: 'p' }] }), [
          { type: 'extra_forbidden', loc: ['body', 'pols'], msg: 'Extra inputs are not permitted', input: [{ name: 'p' }], url: url('extra_forbidden') }
        ])
      })
    })

    describe('what an input may show', () => {
      it('masks every credential: header values, secret-looking keys, passwords and keys in URLs', async () => {
        const [headerValue] = await detail('POST', '/api/providers', { name: 'p', auth_headers: { 'x-api-key': 12345 } })
        assert.deepEqual(headerValue, { type: 'string_type', loc: ['body', 'auth_headers', 'x-api-key'], msg: 'Input should be a valid string', input: '***', url: url('string_type') })
        const [missing] = await detail('POST', '/api/providers', {
          base_url: 'https://user:pw@a.example/v1?api_key=k1&region=eu', auth_headers: { authorization: 'Bearer t0k3n' }, forward_client_auth: true
        })
        assert.deepEqual(missing, {
          type: 'missing',
          loc: ['body', 'name'],
          msg: 'Field required',
          input: { base_url: 'https://user:***@a.example/v1?api_key=***&region=eu', auth_headers: { authorization: '***' }, forward_client_auth: true },
          url: url('missing')
        })
      })

      it('cuts a long string after 1,024 characters and a large value after about 4 KiB, saying so', async () => {
        const [tooLong] = await detail('POST', '/api/providers', { name: 'p', description: 'd'.repeat(5000) })
        assert.equal(tooLong.type, 'string_too_long')
        assert.equal(tooLong.input, `${'d'.repeat(1024)}…`)
        const [missing] = await detail('POST', '/api/pools', { name: 'p', notes: Array.from({ length: 2000 }, (_, i) => i) })
        assert.equal(missing.type, 'missing')
        const notes = missing.input.notes as unknown[]
        assert.ok(JSON.stringify(missing.input).length < 5000, `${JSON.stringify(missing.input).length} characters`)
        assert.deepEqual(notes.slice(0, 3), [0, 1, 2])
        assert.match(String(notes.at(-1)), /^… \d+ more items$/)
        assert.equal(Number(/\d+/.exec(String(notes.at(-1)))?.[0]) + notes.length - 1, 2000)
      })
    })

    describe('JSON that does not parse: FastAPI 0.104\'s json_invalid', () => {
      const invalid = (position: number, error: string) => ({ detail: [{ type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error } }] })

      it('names the position where reading stopped in Python\'s words', async () => {
        assert.deepEqual(await raw('{some broken json}'), invalid(1, 'Expecting property name enclosed in double quotes'))
        assert.deepEqual(await raw('{"name": "p",}'), invalid(13, 'Expecting property name enclosed in double quotes'))
        assert.deepEqual(await raw('{"name" "p"}'), invalid(8, "Expecting ':' delimiter"))
        assert.deepEqual(await raw('[1, 2'), invalid(5, "Expecting ',' delimiter"))
        assert.deepEqual(await raw('{"name": '), invalid(9, 'Expecting value'))
        assert.deepEqual(await raw('{"name": "p"} x'), invalid(14, 'Extra data'))
        // Positions count characters as Python does: 😀 is one.
        assert.deepEqual(await raw('{"😀": 1 x}'), invalid(8, "Expecting ',' delimiter"))
      })
    })
  })
}
