/**
 * A provider's `max_logs_range` (issue 36 item 9) through the API on both databases:
 * null unless set, 1 to 1,000,000 blocks (422 otherwise, nothing written), kept by an
 * update that leaves it out and lifted by one that sends null; the data plane's pool
 * row carries the smallest limit among the pool's enabled members (rpc-logs.ts splits
 * by it), following member and provider changes; and pools as code plans, applies
 * and exports it, the export applying back to no change.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

for (const dialect of dialects) {
  describeOn(dialect, 'provider max_logs_range', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const shown = async (id: number) => (await t.request({ method: 'GET', url: `/api/providers/${id}` })).body.max_logs_range
    const put = async (id: number, payload: Record<string, unknown>) => await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload })
    const poolLimit = async (id: number) => (await t.app.runtime.pool(id))?.max_logs_range

    it('is null unless set; an update leaving it out keeps it, one sending null lifts it', async () => {
      const plain = await createProvider(t, 'plain')
      const limited = await createProvider(t, 'limited', { max_logs_range: 2000 })
      assert.deepEqual([await shown(plain), await shown(limited)], [null, 2000])
      const list = (await t.request({ method: 'GET', url: '/api/providers' })).body
      assert.deepEqual(list.map((p: { max_logs_range: number | null }) => p.max_logs_range), [null, 2000])

      assert.equal((await put(limited, { description: 'kept' })).body.max_logs_range, 2000)
      assert.equal((await put(limited, { max_logs_range: 10 })).body.max_logs_range, 10)
      assert.equal((await put(limited, { max_logs_range: null })).body.max_logs_range, null)
      assert.equal(await shown(limited), null)
    })

    it('answers 422 for a limit outside 1 to 1,000,000 blocks or not an integer, on create and update, and writes nothing', async () => {
      for (const max of [0, -5, 1_000_001, 2.5, 'wide']) {
        const created = await t.request({ method: 'POST', url: '/api/providers', payload: { name: 'p', max_logs_range: max } })
        assert.equal(created.status, 422, JSON.stringify(max))
        assert.deepEqual(created.body.detail.map((d: { loc: unknown[] }) => d.loc), [['body', 'max_logs_range']], JSON.stringify(max))
      }
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 0)
      const id = await createProvider(t, 'p', { max_logs_range: 5 })
      assert.equal((await put(id, { max_logs_range: 0 })).status, 422)
      assert.equal(await shown(id), 5)
      assert.equal((await put(id, { max_logs_range: 1_000_000 })).body.max_logs_range, 1_000_000)
    })

    it('gives the data plane\'s pool row the smallest limit of its enabled members, following their changes', async () => {
      const pool = await createPool(t, 'chain', { protocol: 'evm' })
      assert.equal(await poolLimit(pool), null, 'no members')
      const wide = await createProvider(t, 'wide', { max_logs_range: 10_000 })
      const narrow = await createProvider(t, 'narrow', { max_logs_range: 500 })
      const open = await createProvider(t, 'open')
      await addMember(t, pool, open)
      assert.equal(await poolLimit(pool), null, 'no member sets one')
      await addMember(t, pool, wide)
      await addMember(t, pool, narrow)
      assert.equal(await poolLimit(pool), 500)
      await t.request({ method: 'PUT', url: `/api/pools/${pool}/members/${narrow}`, payload: { enabled: false } })
      assert.equal(await poolLimit(pool), 10_000, 'a disabled member does not count')
      await put(wide, { max_logs_range: 2000 })
      assert.equal(await poolLimit(pool), 2000, 'a provider\'s change reaches its pools')
      await put(wide, { max_logs_range: null })
      assert.equal(await poolLimit(pool), null)
    })

    it('is planned, applied and exported by pools as code; left out it is no limit; the export applies back to no change', async () => {
      const post = async (url: string, payload: unknown) => await t.request({ method: 'POST', url, payload: payload as Record<string, unknown> })
      const state = (max?: number | null) => ({
        providers: [{ name: 'node-a', base_url: 'https://a.example', ...(max === undefined ? {} : { max_logs_range: max }) }],
        pools: [{ name: 'chain', category: 'rpc', protocol: 'evm', members: [{ provider: 'node-a' }] }]
      })
      assert.equal((await post('/api/config/apply', state(3000))).status, 200)
      const id = (await t.request({ method: 'GET', url: '/api/providers' })).body[0].id
      assert.equal(await shown(id), 3000)
      const exported = (await t.request({ method: 'GET', url: '/api/config/export' })).body
      assert.equal(exported.providers[0].max_logs_range, 3000)
      assert.deepEqual((await post('/api/config/plan', exported)).body.changes, [], 'the export applies back to no change')
      const yaml = await t.app.inject({ method: 'GET', url: '/api/config/export?format=yaml' })
      assert.match(yaml.body, /\n\s+max_logs_range: 3000\n/)

      const lifted = [{ kind: 'provider', action: 'update', name: 'node-a', fields: { max_logs_range: { from: 3000, to: null } } }]
      assert.deepEqual((await post('/api/config/plan', state())).body.changes, lifted, 'left out, it is no limit')
      assert.deepEqual((await post('/api/config/apply', state(null))).body.changes, lifted)
      assert.equal(await shown(id), null)
      assert.equal('max_logs_range' in (await t.request({ method: 'GET', url: '/api/config/export' })).body.providers[0], false, 'no limit is left out')

      const bad = await post('/api/config/plan', state(0))
      assert.equal(bad.status, 422, JSON.stringify(bad.body))
      assert.deepEqual(bad.body.detail.map((d: { loc: unknown[] }) => d.loc), [['body', 'providers', 0, 'max_logs_range']])
    })
  })
}
