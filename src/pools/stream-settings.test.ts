/**
 * A pool's seven settings for WebSocket streams through it (`ws_ping_interval_ms`,
 * `ws_replay`, `ws_max_streams`, `ws_max_streams_per_client`, `ws_max_message_bytes`,
 * `ws_send_buffer_bytes`, `ws_idle_timeout_ms`) through the API on both databases:
 * their defaults on any pool, in the record, the list and the data plane's pool row;
 * values given on create, their bounds included; changed by an update as the other
 * policy fields are (change_seq moves, the data plane follows, null and absent leave
 * them); `ws_replay`'s three forms answered as given and stored as text; a value just
 * past a bound, or of the wrong type, refused with pydantic's 422 naming the field,
 * nothing written; and pools as code plans, applies and exports them, the export
 * applying back to no change.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { createPool, DOCUMENTED_STREAM_DEFAULTS } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const LIMITS = ['ws_ping_interval_ms', 'ws_max_streams', 'ws_max_streams_per_client', 'ws_max_message_bytes', 'ws_send_buffer_bytes', 'ws_idle_timeout_ms'] as const
const FIELDS = [...LIMITS, 'ws_replay'] as const
type Limits = Record<typeof LIMITS[number], number>

const DEFAULTS = DOCUMENTED_STREAM_DEFAULTS
const LOWEST: Limits = { ws_ping_interval_ms: 1000, ws_max_streams: 1, ws_max_streams_per_client: 1, ws_max_message_bytes: 1024, ws_send_buffer_bytes: 65_536, ws_idle_timeout_ms: 0 }
const HIGHEST: Limits = {
  ws_ping_interval_ms: 3_600_000, ws_max_streams: 100_000, ws_max_streams_per_client: 100_000, ws_max_message_bytes: 16_777_216, ws_send_buffer_bytes: 67_108_864, ws_idle_timeout_ms: 86_400_000
}

const pick = (values: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(FIELDS.map((field) => [field, values[field]]))

/** pydantic 2.5's answer to an integer field given `input` beyond a bound. */
function boundIssue (loc: unknown[], input: number, bound: number, low: boolean): Record<string, unknown> {
  const type = low ? 'greater_than_equal' : 'less_than_equal'
  return {
    type,
    loc,
    msg: `Input should be ${low ? 'greater' : 'less'} than or equal to ${bound}`,
    input,
    ctx: low ? { ge: bound } : { le: bound },
    url: `https://errors.pydantic.dev/2.5/v/${type}`
  }
}

/** The entries of a 422 for `ws_replay` given `input`: the modes' words and the count's, each at its member of the union. */
function replayIssues (input: unknown, count: Record<string, unknown>): Array<Record<string, unknown>> {
  const modes = { type: 'enum', loc: ['body', 'ws_replay', 'str'], msg: "Input should be 'none' or 'first_second'", input, ctx: { expected: "'none' or 'first_second'" } }
  const notText = { type: 'string_type', loc: ['body', 'ws_replay', 'str'], msg: 'Input should be a valid string', input, url: 'https://errors.pydantic.dev/2.5/v/string_type' }
  return [...(typeof input === 'string' ? [] : [notText]), modes, { loc: ['body', 'ws_replay', 'constrained-int'], input, ...count }]
}

for (const dialect of dialects) {
  describeOn(dialect, 'pool stream settings', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const policy = async (id: number) => (await t.request({ method: 'GET', url: `/api/pools/${id}` })).body.policy
    const changeSeq = async (id: number) =>
      Number((await t.database.db.selectFrom('pools').select('change_seq').where('id', '=', id).executeTakeFirstOrThrow()).change_seq)
    const runtimeFields = async (id: number) => pick((await t.app.runtime.pool(id)) as unknown as Record<string, unknown>)
    const post = async (url: string, payload: unknown) => await t.request({ method: 'POST', url, payload: payload as Record<string, unknown> })

    it('has the defaults on any pool, in the record, the list and the data plane\'s pool row (ws_replay as stored text)', async () => {
      const ids = [
        await createPool(t, 'plain'),
        await createPool(t, 'evm', { protocol: 'evm' }),
        await createPool(t, 'nulled', Object.fromEntries(FIELDS.map((field) => [field, null])))
      ]
      for (const id of ids) {
        assert.deepEqual(pick(await policy(id)), DEFAULTS, `pool ${id}`)
        assert.deepEqual(await runtimeFields(id), DEFAULTS, `pool ${id}'s runtime row`)
      }
      const list = (await t.request({ method: 'GET', url: '/api/pools' })).body.pools
      assert.deepEqual(list.map((p: { policy: Record<string, unknown> }) => pick(p.policy)), [DEFAULTS, DEFAULTS, DEFAULTS])
    })

    it('takes values on create, its bounds included, and ws_replay in each of its forms', async () => {
      const given = { ws_ping_interval_ms: 15_000, ws_max_streams: 50, ws_max_streams_per_client: 5, ws_max_message_bytes: 65_536, ws_send_buffer_bytes: 1_048_576, ws_idle_timeout_ms: 60_000 }
      const cases = [['given', given, 'none'], ['lowest', LOWEST, 0], ['highest', HIGHEST, 100], ['counted', given, 7], ['second', given, 'first_second']] as const
      for (const [name, values, replay] of cases) {
        const id = await createPool(t, name, { ...values, ws_replay: replay })
        assert.deepEqual(pick(await policy(id)), { ...values, ws_replay: replay }, name)
        assert.deepEqual(await runtimeFields(id), { ...values, ws_replay: String(replay) }, `${name}'s runtime row`)
      }
    })

    it('is changed by an update as the other policy fields are: change_seq moves, the data plane follows, null and absent leave them', async () => {
      const id = await createPool(t, 'streams', { cache_ttl_seconds: 30 })
      let expected: Record<string, unknown> = { ...DEFAULTS }
      const steps: Array<Record<string, unknown>> = [
        { ws_ping_interval_ms: 5000 }, { ws_replay: 'none' }, { ws_max_streams: 10 }, { ws_max_streams_per_client: 2 }, { ws_max_message_bytes: 4096 },
        { ws_send_buffer_bytes: 131_072 }, { ws_idle_timeout_ms: 0 }, { ws_replay: 25 }, { ws_replay: 0 }, { ...HIGHEST, ws_replay: 'first_second' }, { ws_replay: 100 }
      ]
      for (const payload of steps) {
        const before = await changeSeq(id)
        const res = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload })
        assert.equal(res.status, 200, JSON.stringify(res.body))
        expected = { ...expected, ...payload }
        assert.ok(await changeSeq(id) > before, `change_seq moved for ${JSON.stringify(payload)}`)
        const shown = await policy(id)
        assert.deepEqual([pick(shown), shown.cache_ttl_seconds], [expected, 30], JSON.stringify(payload))
        assert.deepEqual(await runtimeFields(id), { ...expected, ws_replay: String(expected.ws_replay) }, `the runtime row after ${JSON.stringify(payload)}`)
      }
      for (const payload of [Object.fromEntries(FIELDS.map((field) => [field, null])), { description: 'fields unchanged' }]) {
        assert.equal((await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload })).status, 200)
        assert.deepEqual(pick(await policy(id)), { ...HIGHEST, ws_replay: 100 }, JSON.stringify(payload))
      }
    })

    it('answers 422 in pydantic 2.5 shape, naming the field, for a value just past a bound or of the wrong type, on create and update, and writes nothing', async () => {
      const outside: Array<[string, number, Array<Record<string, unknown>>]> = []
      for (const field of LIMITS) {
        outside.push(
          [field, LOWEST[field] - 1, [boundIssue(['body', field], LOWEST[field] - 1, LOWEST[field], true)]],
          [field, HIGHEST[field] + 1, [boundIssue(['body', field], HIGHEST[field] + 1, HIGHEST[field], false)]]
        )
      }
      const countOf = (input: number, bound: number, low: boolean) => boundIssue(['body', 'ws_replay', 'constrained-int'], input, bound, low)
      outside.push(['ws_replay', -1, replayIssues(-1, countOf(-1, 0, true))], ['ws_replay', 101, replayIssues(101, countOf(101, 100, false))])
      for (const [field, input, detail] of outside) {
        const created = await post('/api/pools', { name: `bad-${field}`, category: 'rpc', [field]: input })
        assert.equal(created.status, 422, `${field} ${input}`)
        assert.deepEqual(created.body, { detail }, `${field} ${input}`)
      }
      assert.equal((await t.request({ method: 'GET', url: '/api/pools' })).body.total, 0, 'no pool created')

      const id = await createPool(t, 'streams', { ws_max_streams: 7, ws_replay: 3 })
      const before = await changeSeq(id)
      for (const [field, input, detail] of outside) {
        const updated = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { [field]: input } })
        assert.equal(updated.status, 422, `${field} ${input}`)
        assert.deepEqual(updated.body, { detail }, `${field} ${input}`)
      }
      const intType = { type: 'int_type', msg: 'Input should be a valid integer', url: 'https://errors.pydantic.dev/2.5/v/int_type' }
      const wrong: Array<[Record<string, unknown>, unknown]> = [
        [{ ws_replay: 'all' }, replayIssues('all', intType)],
        [{ ws_replay: '5' }, replayIssues('5', intType)],
        [{ ws_replay: true }, replayIssues(true, intType)],
        [{ ws_replay: 2.5 }, replayIssues(2.5, { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part', url: 'https://errors.pydantic.dev/2.5/v/int_from_float' })]
      ]
      for (const [payload, detail] of wrong) {
        const refused = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload })
        assert.equal(refused.status, 422, JSON.stringify(payload))
        assert.deepEqual(refused.body.detail, detail, JSON.stringify(payload))
      }
      for (const [field, input, type] of [['ws_max_message_bytes', 2048.5, 'int_from_float'], ['ws_idle_timeout_ms', 'never', 'int_type'], ['ws_max_streams', false, 'int_type']] as const) {
        const refused = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { [field]: input } })
        assert.equal(refused.status, 422, `${field} ${input}`)
        assert.deepEqual(refused.body.detail.map((d: { loc: unknown[], type: string }) => [d.loc, d.type]), [[['body', field], type]])
      }
      assert.deepEqual(pick(await policy(id)), { ...DEFAULTS, ws_max_streams: 7, ws_replay: 3 })
      assert.equal(await changeSeq(id), before, 'nothing written')
    })

    it('is planned, applied and exported by pools as code in each of ws_replay\'s forms; left out, each is its default', async () => {
      const state = (fields: Record<string, unknown>) => ({ pools: [{ name: 'streams', category: 'rpc', ...fields }] })
      const set = { ws_ping_interval_ms: 10_000, ws_max_streams: 20, ws_max_streams_per_client: 4, ws_max_message_bytes: 2048, ws_send_buffer_bytes: 65_536, ws_idle_timeout_ms: 0 }
      const created = await post('/api/config/apply', state({ ...set, ws_replay: 12 }))
      assert.equal(created.status, 200, JSON.stringify(created.body))
      const shownCreate = created.body.changes[0].fields as Record<string, { from: unknown, to: unknown }>
      assert.deepEqual(pick(Object.fromEntries(Object.entries(shownCreate).map(([k, v]) => [k, v.to]))), { ...set, ws_replay: 12 }, 'a create shows every field')
      const id = (await t.request({ method: 'GET', url: '/api/pools' })).body.pools[0].pool_id
      assert.deepEqual(pick(await policy(id)), { ...set, ws_replay: 12 })

      for (const replay of [12, 'none', 0, 'first_second']) {
        if (replay !== 12) {
          const before = pick(await policy(id)).ws_replay
          const change = [{ kind: 'pool', action: 'update', name: 'streams', fields: { ws_replay: { from: before, to: replay } } }]
          assert.deepEqual((await post('/api/config/plan', state({ ...set, ws_replay: replay }))).body.changes, change, `plan to ${replay}`)
          assert.deepEqual((await post('/api/config/apply', state({ ...set, ws_replay: replay }))).body.changes, change, `apply to ${replay}`)
        }
        const exported = (await t.request({ method: 'GET', url: '/api/config/export' })).body
        assert.deepEqual(pick(exported.pools[0]), { ...set, ws_replay: replay }, `exported with ${replay}`)
        assert.deepEqual((await post('/api/config/plan', exported)).body.changes, [], `the export with ${replay} applies back to no change`)
      }

      const back = Object.fromEntries(LIMITS.map((field) => [field, { from: set[field], to: DEFAULTS[field] }]))
      const reset = await post('/api/config/apply', state({}))
      assert.deepEqual(reset.body.changes, [{ kind: 'pool', action: 'update', name: 'streams', fields: back }], 'left out, each is its default')
      assert.deepEqual(pick(await policy(id)), DEFAULTS)

      const bad = await post('/api/config/plan', state({ ws_send_buffer_bytes: 65_535, ws_replay: 'always' }))
      assert.equal(bad.status, 422, JSON.stringify(bad.body))
      assert.deepEqual([...new Set(bad.body.detail.map((d: { loc: unknown[] }) => JSON.stringify(d.loc.slice(0, 4))))].sort(),
        [JSON.stringify(['body', 'pools', 0, 'ws_replay']), JSON.stringify(['body', 'pools', 0, 'ws_send_buffer_bytes'])])
    })
  })
}
