/**
 * A provider's `method_costs` and a `rate_limit` in credits (issue 36 item 8) through
 * the API on both databases: answered as given, `null` unless set; an update leaving
 * the costs out keeps them, `{}` removes them, an object replaces them; every bad key,
 * cost and rate limit a 422 at its place, with nothing written; a rotation spends the
 * default cost of a quota in credits and stops short of the limit; a change of unit
 * starts the window's counter afresh; and pools as code plans, applies and exports
 * both, the export applying back to no change.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const COSTS = { eth_getLogs: 75, eth_call: 26, '*': 10 }
const CREDITS = { credits: 100_000, per: 'day' }

for (const dialect of dialects) {
  describeOn(dialect, 'provider method_costs and rate_limit in credits', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const shown = async (id: number) => (await t.request({ method: 'GET', url: `/api/providers/${id}` })).body
    const put = async (id: number, payload: Record<string, unknown>) => await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload })
    const post = async (payload: Record<string, unknown>) => await t.request({ method: 'POST', url: '/api/providers', payload })
    const locs = (res: { body: { detail: Array<{ loc: unknown[] }> } }) => res.body.detail.map((d) => d.loc)

    it('answers both as given and null unless set; an update leaving the costs out keeps them, {} removes them, an object replaces them', async () => {
      const plain = await createProvider(t, 'plain', { rate_limit: { requests: 600, per: 'minute' } })
      const metered = await createProvider(t, 'metered', { rate_limit: CREDITS, method_costs: COSTS })
      assert.deepEqual([(await shown(plain)).rate_limit, (await shown(plain)).method_costs], [{ requests: 600, per: 'minute' }, null])
      assert.deepEqual([(await shown(metered)).rate_limit, (await shown(metered)).method_costs], [CREDITS, COSTS])
      const list = (await t.request({ method: 'GET', url: '/api/providers' })).body
      assert.deepEqual(list.map((p: { method_costs: unknown }) => p.method_costs), [null, COSTS])

      assert.deepEqual((await put(metered, { description: 'kept', method_costs: null })).body.method_costs, COSTS, 'left out or null: kept')
      assert.deepEqual((await put(metered, { method_costs: { eth_call: 5 } })).body.method_costs, { eth_call: 5 }, 'an object replaces them')
      assert.equal((await put(metered, { method_costs: {} })).body.method_costs, null, '{} removes them')
      assert.deepEqual((await put(plain, { rate_limit: { credits: 50, per: 'hour' } })).body.rate_limit, { credits: 50, per: 'hour' })
      // Costs beside a quota in requests are kept and shown; they spend nothing (docs/decisions.md).
      const informing = (await put(plain, { rate_limit: { requests: 5, per: 'second' }, method_costs: COSTS })).body
      assert.deepEqual([informing.rate_limit, informing.method_costs], [{ requests: 5, per: 'second' }, COSTS])
    })

    it('answers 422 at the place of every bad cost, key or rate limit, on create and update, and writes nothing', async () => {
      const rows: Array<[Record<string, unknown>, unknown[], string]> = [
        [{ method_costs: { 'eth call': 5 } }, ['body', 'method_costs', 'eth call', '[key]'], 'string_pattern_mismatch'],
        [{ method_costs: { ['m'.repeat(129)]: 5 } }, ['body', 'method_costs', 'm'.repeat(129), '[key]'], 'string_pattern_mismatch'],
        [{ method_costs: { eth_call: 0 } }, ['body', 'method_costs', 'eth_call'], 'greater_than_equal'],
        [{ method_costs: { eth_call: 1_000_001 } }, ['body', 'method_costs', 'eth_call'], 'less_than_equal'],
        [{ method_costs: { eth_call: 2.5 } }, ['body', 'method_costs', 'eth_call'], 'int_from_float'],
        [{ method_costs: { eth_call: '5' } }, ['body', 'method_costs', 'eth_call'], 'int_type'],
        [{ method_costs: [5] }, ['body', 'method_costs'], 'dict_type'],
        [{ method_costs: Object.fromEntries(Array.from({ length: 257 }, (_, i) => [`m${i}`, 1])) }, ['body', 'method_costs'], 'too_long'],
        [{ rate_limit: { per: 'day' } }, ['body', 'rate_limit'], 'value_error'],
        [{ rate_limit: { requests: 5, credits: 5, per: 'day' } }, ['body', 'rate_limit'], 'value_error'],
        [{ rate_limit: { credits: 0, per: 'day' } }, ['body', 'rate_limit', 'credits'], 'greater_than_equal'],
        [{ rate_limit: { credits: 1_000_000_001, per: 'day' } }, ['body', 'rate_limit', 'credits'], 'less_than_equal'],
        [{ rate_limit: { credits: 10 } }, ['body', 'rate_limit', 'per'], 'missing']
      ]
      for (const [fields, loc, type] of rows) {
        const created = await post({ name: 'p', ...fields })
        assert.equal(created.status, 422, JSON.stringify(fields))
        assert.deepEqual(created.body.detail.map((d: { loc: unknown[], type: string }) => [d.loc, d.type]), [[loc, type]], JSON.stringify(fields))
      }
      const both = await post({ name: 'p', rate_limit: { requests: 5, credits: 5, per: 'day' } })
      assert.equal(both.body.detail[0].msg, 'Value error, a rate limit counts requests or credits, not both: send one of them')
      const neither = await post({ name: 'p', rate_limit: { per: 'day' } })
      assert.equal(neither.body.detail[0].msg, 'Value error, a rate limit needs requests or credits (how many per window)')
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 0)

      const id = await createProvider(t, 'p', { rate_limit: CREDITS, method_costs: COSTS })
      for (const [fields, loc] of rows) {
        const updated = await put(id, fields)
        assert.equal(updated.status, 422, JSON.stringify(fields))
        assert.deepEqual(locs(updated), [loc], JSON.stringify(fields))
      }
      assert.deepEqual([(await shown(id)).rate_limit, (await shown(id)).method_costs], [CREDITS, COSTS])
      assert.deepEqual((await put(id, { method_costs: { '*': 1_000_000, 'eth_get*ByHash': 1 } })).body.method_costs, { '*': 1_000_000, 'eth_get*ByHash': 1 })
    })

    it('spends the default cost of a quota in credits per rotation, never past the limit; a change of unit starts the window afresh', async () => {
      const pool = await createPool(t, 'rotated')
      const id = await createProvider(t, 'metered', { rate_limit: { credits: 25, per: 'day' }, method_costs: { eth_getLogs: 75, '*': 10 } })
      await addMember(t, pool, id)
      const rotate = async () => (await t.request({ method: 'POST', url: `/api/pools/${pool}/rotate` })).status
      const quota = async () => (await t.request({ method: 'GET', url: `/api/pools/${pool}` })).body.members[0].quota
      assert.deepEqual([await rotate(), await rotate()], [200, 200])
      assert.deepEqual(await quota(), { ...(await quota()), used: 20, limit: 25, unit: 'credits' })
      assert.equal(await rotate(), 404, 'five credits left: too few for a rotation')
      assert.equal((await quota()).used, 20)
      const member = (await t.request({ method: 'GET', url: `/api/pools/${pool}` })).body.members[0]
      assert.deepEqual([member.eligible, member.rate_limit.usage, member.rate_limit.limit], [true, 20, 25], 'not used up: a cheaper proxied call may still have the rest')

      await put(id, { rate_limit: { credits: 30, per: 'day' } })
      assert.deepEqual([(await quota()).used, (await quota()).limit], [20, 30], 'the same unit keeps its counter')
      await put(id, { rate_limit: { requests: 30, per: 'day' } })
      assert.deepEqual([(await quota()).used, (await quota()).unit], [0, 'requests'], 'another unit starts afresh')
      assert.equal(await rotate(), 200)
      assert.equal((await quota()).used, 1, 'a request is one, whatever the costs say')
    })

    it('is planned, applied and exported by pools as code; keys in another order change nothing; the export applies back to no change', async () => {
      const apply = async (url: string, payload: unknown) => await t.request({ method: 'POST', url, payload: payload as Record<string, unknown> })
      const state = (provider: Record<string, unknown>) => ({
        providers: [{ name: 'node-a', base_url: 'https://a.example', ...provider }],
        pools: [{ name: 'chain', category: 'rpc', protocol: 'evm', members: [{ provider: 'node-a' }] }]
      })
      assert.equal((await apply('/api/config/apply', state({ rate_limit: CREDITS, method_costs: COSTS }))).status, 200)
      const id = (await t.request({ method: 'GET', url: '/api/providers' })).body[0].id
      assert.deepEqual([(await shown(id)).rate_limit, (await shown(id)).method_costs], [CREDITS, COSTS])
      const exported = (await t.request({ method: 'GET', url: '/api/config/export' })).body
      assert.deepEqual([exported.providers[0].rate_limit, exported.providers[0].method_costs], [CREDITS, COSTS])
      assert.deepEqual((await apply('/api/config/plan', exported)).body.changes, [], 'the export applies back to no change')
      const reordered = Object.fromEntries(Object.entries(COSTS).reverse())
      assert.deepEqual((await apply('/api/config/plan', state({ rate_limit: CREDITS, method_costs: reordered }))).body.changes, [])
      const yaml = await t.app.inject({ method: 'GET', url: '/api/config/export?format=yaml' })
      assert.match(yaml.body, /\n\s+method_costs:\n\s+eth_getLogs: 75\n/)

      const changed = (await apply('/api/config/apply', state({ rate_limit: { requests: 600, per: 'minute' } }))).body.changes
      assert.deepEqual(changed, [{
        kind: 'provider',
        action: 'update',
        name: 'node-a',
        fields: { rate_limit: { from: CREDITS, to: { requests: 600, per: 'minute' } }, method_costs: { from: COSTS, to: null } }
      }])
      assert.deepEqual([(await shown(id)).rate_limit, (await shown(id)).method_costs], [{ requests: 600, per: 'minute' }, null])

      for (const [provider, loc] of [
        [{ method_costs: { eth_call: 0 } }, ['body', 'providers', 0, 'method_costs', 'eth_call']],
        [{ rate_limit: { credits: 5, requests: 5, per: 'day' } }, ['body', 'providers', 0, 'rate_limit']]
      ] as const) {
        const bad = await apply('/api/config/plan', state(provider))
        assert.equal(bad.status, 422, JSON.stringify(bad.body))
        assert.deepEqual(locs(bad), [loc])
      }
    })
  })
}
