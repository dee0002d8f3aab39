/**
 * The four pool fields an `evm` pool reads (issue 36: `finality_depth`,
 * `cache_unfinalized_ms`, `head_check_interval_s`, `max_block_lag`) through the API
 * on both databases: their defaults on any pool, values given on create, changed by
 * an update as the other policy fields are (change_seq moves, the data plane's pool
 * row follows, null and absent leave them), and a value out of its bounds refused
 * with pydantic's 422, nothing written. The pools-as-code round trip is in
 * declared/declared.test.ts.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { createPool } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const FIELDS = ['finality_depth', 'cache_unfinalized_ms', 'head_check_interval_s', 'max_block_lag'] as const
type Fields = Record<typeof FIELDS[number], number>

const DEFAULTS: Fields = { finality_depth: 64, cache_unfinalized_ms: 0, head_check_interval_s: 5, max_block_lag: 5 }
const LOWEST: Fields = { finality_depth: 0, cache_unfinalized_ms: 0, head_check_interval_s: 1, max_block_lag: 0 }
const HIGHEST: Fields = { finality_depth: 100_000, cache_unfinalized_ms: 3_600_000, head_check_interval_s: 3600, max_block_lag: 1_000_000 }

const pick = (values: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(FIELDS.map((field) => [field, values[field]]))

/** pydantic 2.5's answer to an integer field given `input` beyond a bound. */
function boundIssue (field: string, input: number, bound: number, low: boolean): Record<string, unknown> {
  const type = low ? 'greater_than_equal' : 'less_than_equal'
  return {
    type,
    loc: ['body', field],
    msg: `Input should be ${low ? 'greater' : 'less'} than or equal to ${bound}`,
    input,
    ctx: low ? { ge: bound } : { le: bound },
    url: `https://errors.pydantic.dev/2.5/v/${type}`
  }
}

for (const dialect of dialects) {
  describeOn(dialect, 'pool evm fields', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const policy = async (id: number) => (await t.request({ method: 'GET', url: `/api/pools/${id}` })).body.policy
    const changeSeq = async (id: number) =>
      Number((await t.database.db.selectFrom('pools').select('change_seq').where('id', '=', id).executeTakeFirstOrThrow()).change_seq)
    const runtimeFields = async (id: number) => pick((await t.app.runtime.pool(id)) as unknown as Record<string, unknown>)

    it('has the defaults on any pool, evm or not, in the record, the list and the data plane\'s pool row', async () => {
      const ids = [
        await createPool(t, 'plain'),
        await createPool(t, 'evm', { protocol: 'evm' }),
        await createPool(t, 'nulled', { protocol: 'evm', finality_depth: null, cache_unfinalized_ms: null, head_check_interval_s: null, max_block_lag: null })
      ]
      for (const id of ids) {
        assert.deepEqual(pick(await policy(id)), DEFAULTS, `pool ${id}`)
        assert.deepEqual(await runtimeFields(id), DEFAULTS, `pool ${id}'s runtime row`)
      }
      const list = (await t.request({ method: 'GET', url: '/api/pools' })).body.pools
      assert.deepEqual(list.map((p: { policy: Record<string, unknown> }) => pick(p.policy)), [DEFAULTS, DEFAULTS, DEFAULTS])
    })

    it('takes values on create, its bounds included', async () => {
      const given = { finality_depth: 12, cache_unfinalized_ms: 2000, head_check_interval_s: 30, max_block_lag: 2 }
      for (const [name, values] of [['given', given], ['lowest', LOWEST], ['highest', HIGHEST]] as const) {
        const id = await createPool(t, name, { protocol: 'evm', ...values })
        assert.deepEqual(pick(await policy(id)), values, name)
        assert.deepEqual(await runtimeFields(id), values, `${name}'s runtime row`)
      }
      // Stored for a pool of another protocol too, as every policy field is.
      const http = await createPool(t, 'http', { max_block_lag: 9 })
      assert.deepEqual(pick(await policy(http)), { ...DEFAULTS, max_block_lag: 9 })
    })

    it('is changed by an update as the other policy fields are: change_seq moves, the data plane follows, null and absent leave them', async () => {
      const id = await createPool(t, 'rpc', { protocol: 'evm', cache_ttl_seconds: 30 })
      assert.deepEqual(await runtimeFields(id), DEFAULTS)
      let expected: Fields = { ...DEFAULTS }
      const steps: Array<Partial<Fields>> = [{ finality_depth: 10 }, { cache_unfinalized_ms: 1500 }, { head_check_interval_s: 2 }, { max_block_lag: 0 }, HIGHEST]
      for (const payload of steps) {
        const before = await changeSeq(id)
        const res = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload })
        assert.equal(res.status, 200, JSON.stringify(res.body))
        expected = { ...expected, ...payload }
        assert.ok(await changeSeq(id) > before, `change_seq moved for ${JSON.stringify(payload)}`)
        const shown = await policy(id)
        assert.deepEqual([pick(shown), shown.cache_ttl_seconds, shown.protocol], [expected, 30, 'evm'], JSON.stringify(payload))
        assert.deepEqual(await runtimeFields(id), expected, `the runtime row after ${JSON.stringify(payload)}`)
      }
      const nulls = { finality_depth: null, cache_unfinalized_ms: null, head_check_interval_s: null, max_block_lag: null }
      for (const payload of [nulls, { description: 'fields unchanged' }]) {
        assert.equal((await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload })).status, 200)
        assert.deepEqual(pick(await policy(id)), HIGHEST, JSON.stringify(payload))
      }
      assert.equal((await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: LOWEST })).status, 200)
      assert.deepEqual(pick(await policy(id)), LOWEST)
      assert.deepEqual(await runtimeFields(id), LOWEST)
    })

    it('answers 422 in pydantic 2.5 shape for a value out of bounds or not an integer, on create and on update, and writes nothing', async () => {
      const outside: Array<[typeof FIELDS[number], number, number, boolean]> = []
      for (const field of FIELDS) {
        outside.push([field, LOWEST[field] - 1, LOWEST[field], true], [field, HIGHEST[field] + 1, HIGHEST[field], false])
      }
      for (const [field, input, bound, low] of outside) {
        const created = await t.request({ method: 'POST', url: '/api/pools', payload: { name: `bad-${field}`, category: 'rpc', protocol: 'evm', [field]: input } })
        assert.equal(created.status, 422, `${field} ${input}`)
        assert.deepEqual(created.body, { detail: [boundIssue(field, input, bound, low)] })
      }
      assert.equal((await t.request({ method: 'GET', url: '/api/pools' })).body.total, 0, 'no pool created')

      const id = await createPool(t, 'rpc', { protocol: 'evm', max_block_lag: 7 })
      const before = await changeSeq(id)
      for (const [field, input, bound, low] of outside) {
        const updated = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { [field]: input } })
        assert.equal(updated.status, 422, `${field} ${input}`)
        assert.deepEqual(updated.body, { detail: [boundIssue(field, input, bound, low)] })
      }
      const fractional = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { head_check_interval_s: 2.5 } })
      assert.equal(fractional.status, 422)
      assert.deepEqual(fractional.body.detail.map((d: { loc: unknown[], type: string }) => [d.loc, d.type]), [[['body', 'head_check_interval_s'], 'int_from_float']])
      const text = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { finality_depth: 'deep' } })
      assert.equal(text.status, 422)
      assert.deepEqual(text.body.detail.map((d: { loc: unknown[], type: string }) => [d.loc, d.type]), [[['body', 'finality_depth'], 'int_type']])
      assert.deepEqual(pick(await policy(id)), { ...DEFAULTS, max_block_lag: 7 })
      assert.equal(await changeSeq(id), before, 'nothing written')
    })
  })
}
