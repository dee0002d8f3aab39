/**
 * The fields the original service's own clients read (its pool management page and
 * its JavaScript API client), in the original's shapes and units: the provider list
 * as a bare array with `id`, success rates as percentages, `rate_limit` objects and
 * `current_provider` with `id` and `status`. Each value is the one the original's
 * Python code computes for the same state.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { addMember, createPool, createProvider, rotateTimes } from './fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from './helpers.js'

for (const dialect of dialects) {
  describeOn(dialect, 'what the original service\'s clients read', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => { await t.close() })

    const member = async (poolId: number, providerId: number) =>
      (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members.find((m: any) => m.provider_id === providerId)
    const report = async (poolId: number, providerId: number, success: boolean) => {
      const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providerId, success } })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      return res.body
    }

    it('GET /api/providers answers a bare array of records with id, name and category, the total in X-Total-Count', async () => {
      const a = await createProvider(t, 'coingecko', { category: 'market_data' })
      const b = await createProvider(t, 'etherscan', { category: 'blockchain_explorers' })
      const c = await createProvider(t, 'nocategory')
      const res = await t.request({ method: 'GET', url: '/api/providers' })
      assert.equal(res.status, 200)
      assert.ok(Array.isArray(res.body))
      assert.equal(res.headers['x-total-count'], '3')
      assert.deepEqual(res.body.map((p: any) => ({ id: p.id, provider_id: p.provider_id, name: p.name, category: p.category })), [
        { id: a, provider_id: a, name: 'coingecko', category: 'market_data' },
        { id: b, provider_id: b, name: 'etherscan', category: 'blockchain_explorers' },
        { id: c, provider_id: c, name: 'nocategory', category: null }
      ])
      // What the pool page does with it: one <option> per provider, by id.
      const options = res.body.map((p: any) => `<option value="${p.id}">${p.name} (${p.category})</option>`).join('')
      assert.match(options, new RegExp(`<option value="${b}">etherscan \\(blockchain_explorers\\)</option>`))
    })

    it('GET /api/providers pages with limit and offset, by id, and X-Total-Count stays the whole count', async () => {
      const ids = []
      for (const name of ['p1', 'p2', 'p3', 'p4', 'p5']) ids.push(await createProvider(t, name))
      const page = await t.request({ method: 'GET', url: '/api/providers?limit=2&offset=1' })
      assert.equal(page.status, 200)
      assert.deepEqual(page.body.map((p: any) => p.id), ids.slice(1, 3))
      assert.equal(page.headers['x-total-count'], '5')
      const rest = await t.request({ method: 'GET', url: '/api/providers?offset=3' })
      assert.deepEqual(rest.body.map((p: any) => p.id), ids.slice(3))
      const beyond = await t.request({ method: 'GET', url: '/api/providers?offset=10' })
      assert.deepEqual(beyond.body, [])
      assert.equal(beyond.headers['x-total-count'], '5')
      for (const query of ['limit=0', 'limit=1001', 'offset=-1', 'limit=x']) {
        const bad = await t.request({ method: 'GET', url: `/api/providers?${query}` })
        assert.equal(bad.status, 422, query)
        assert.deepEqual(bad.body.detail.map((d: any) => d.loc), [['query', query.split('=')[0]]], query)
      }
    })

    it('shows success_rate as a percentage of outcomes with two decimals: 0, 33.33, 66.67 and 100 of 3, and 0 before any', async () => {
      const pool = await createPool(t, 'rates')
      const p = await createProvider(t, 'p')
      await addMember(t, pool, p)
      assert.equal((await member(pool, p)).success_rate, 0, 'never used: 0, as the original')
      const cases: Array<[boolean[], number]> = [[[false, false, false], 0], [[true, false, false], 33.33], [[true, true, false], 66.67], [[true, true, true], 100]]
      for (const [outcomes, expected] of cases) {
        await t.request({ method: 'DELETE', url: `/api/pools/${pool}/members/${p}` })
        await addMember(t, pool, p)
        let answer
        for (const success of outcomes) answer = await report(pool, p, success)
        assert.equal(answer.success_rate, expected, `report answer after ${String(outcomes)}`)
        const shown = await member(pool, p)
        assert.equal(shown.success_rate, expected, `status record after ${String(outcomes)}`)
        assert.equal(shown.success_count + shown.failure_count, 3)
      }
    })

    it('shows rate_limit as the original did: usage, limit, percentage to one decimal, ok / warning from 80 % / blocked at 100 %', async () => {
      const pool = await createPool(t, 'quota')
      const limited = await createProvider(t, 'limited', { rate_limit: { requests: 10, per: 'day' } })
      const free = await createProvider(t, 'free')
      await addMember(t, pool, limited)
      const other = await createPool(t, 'unlimited')
      await addMember(t, other, free)
      assert.equal((await member(other, free)).rate_limit, null, 'no rate limit: null')
      assert.deepEqual((await member(pool, limited)).rate_limit, { usage: 0, limit: 10, percentage: 0, status: 'ok' })
      await rotateTimes(t, pool, 7)
      assert.deepEqual((await member(pool, limited)).rate_limit, { usage: 7, limit: 10, percentage: 70, status: 'ok' })
      await rotateTimes(t, pool, 1)
      assert.deepEqual((await member(pool, limited)).rate_limit, { usage: 8, limit: 10, percentage: 80, status: 'warning' })
      await rotateTimes(t, pool, 2)
      const full = await member(pool, limited)
      assert.deepEqual(full.rate_limit, { usage: 10, limit: 10, percentage: 100, status: 'blocked' })
      assert.deepEqual({ used: full.quota.used, limit: full.quota.limit }, { used: 10, limit: 10 }, 'the same window as quota')
    })

    it('rounds rate_limit percentages as Python does (1 of 16 is 6.2, 2 of 7 is 28.6)', async () => {
      const pool = await createPool(t, 'odd')
      const sixteen = await createProvider(t, 'sixteen', { rate_limit: { requests: 16, per: 'day' } })
      await addMember(t, pool, sixteen)
      await rotateTimes(t, pool, 1)
      assert.equal((await member(pool, sixteen)).rate_limit.percentage, 6.2)
      await t.request({ method: 'PUT', url: `/api/providers/${sixteen}`, payload: { rate_limit: { requests: 7, per: 'day' } } })
      await rotateTimes(t, pool, 1)
      assert.deepEqual((await member(pool, sixteen)).rate_limit, { usage: 2, limit: 7, percentage: 28.6, status: 'ok' })
    })

    it('shows current_provider with id, provider_id, name and status active, in the full and the summary list', async () => {
      const pool = await createPool(t, 'current')
      const p = await createProvider(t, 'serving')
      await addMember(t, pool, p)
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${pool}` })).body.current_provider, null)
      await rotateTimes(t, pool, 1)
      const expected = { id: p, provider_id: p, name: 'serving', status: 'active' }
      assert.deepEqual((await t.request({ method: 'GET', url: `/api/pools/${pool}` })).body.current_provider, expected)
      assert.deepEqual((await t.request({ method: 'GET', url: '/api/pools' })).body.pools[0].current_provider, expected)
      assert.deepEqual((await t.request({ method: 'GET', url: '/api/pools?fields=summary' })).body.pools[0].current_provider, expected)
    })
  })
}
