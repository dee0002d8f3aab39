/**
 * A provider's `max_batch_size` (issue 36 item 2) through the API on both databases:
 * 10 unless set, 1 to 1,000 calls (422 otherwise, nothing written), kept by an update
 * that leaves it out or sends null; the record's `batches` is null until the data
 * plane sees the provider refuse a batch (rpc-upstream-batch.test.ts); the data
 * plane's pool row carries the largest size among the pool's enabled members; and
 * pools as code plans, applies and exports it (the default left out), the export
 * applying back to no change.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

for (const dialect of dialects) {
  describeOn(dialect, 'provider max_batch_size', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const shown = async (id: number) => (await t.request({ method: 'GET', url: `/api/providers/${id}` })).body
    const put = async (id: number, payload: Record<string, unknown>) => await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload })

    it('is 10 unless set; an update leaving it out or sending null keeps it; batches is null', async () => {
      const plain = await createProvider(t, 'plain')
      const single = await createProvider(t, 'single', { max_batch_size: 1 })
      const nulled = await createProvider(t, 'nulled', { max_batch_size: null })
      assert.deepEqual([(await shown(plain)).max_batch_size, (await shown(single)).max_batch_size, (await shown(nulled)).max_batch_size], [10, 1, 10])
      assert.equal((await shown(plain)).batches, null)
      const list = (await t.request({ method: 'GET', url: '/api/providers' })).body
      assert.deepEqual(list.map((p: { max_batch_size: number, batches: null }) => [p.max_batch_size, p.batches]), [[10, null], [1, null], [10, null]])
      assert.equal((await put(single, { description: 'kept' })).body.max_batch_size, 1)
      assert.equal((await put(single, { max_batch_size: null })).body.max_batch_size, 1)
      assert.equal((await put(single, { max_batch_size: 1000 })).body.max_batch_size, 1000)
      assert.equal((await shown(single)).max_batch_size, 1000)
    })

    it('answers 422 for a size outside 1 to 1,000 or not an integer, on create and update, and writes nothing', async () => {
      for (const size of [0, -1, 1001, 2.5, 'ten']) {
        const created = await t.request({ method: 'POST', url: '/api/providers', payload: { name: 'p', max_batch_size: size } })
        assert.equal(created.status, 422, JSON.stringify(size))
        assert.deepEqual(created.body.detail.map((d: { loc: unknown[] }) => d.loc), [['body', 'max_batch_size']], JSON.stringify(size))
      }
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 0)
      const id = await createProvider(t, 'p', { max_batch_size: 5 })
      assert.equal((await put(id, { max_batch_size: 0 })).status, 422)
      assert.equal((await shown(id)).max_batch_size, 5)
    })

    it('gives the data plane\'s pool row the largest size of its enabled members, following their changes', async () => {
      const poolSize = async (id: number) => (await t.app.runtime.pool(id))?.max_batch_size
      const pool = await createPool(t, 'chain', { protocol: 'evm' })
      assert.equal(await poolSize(pool), null, 'no members')
      const small = await createProvider(t, 'small', { max_batch_size: 2 })
      const big = await createProvider(t, 'big', { max_batch_size: 50 })
      await addMember(t, pool, small)
      await addMember(t, pool, big)
      assert.equal(await poolSize(pool), 50)
      await t.request({ method: 'PUT', url: `/api/pools/${pool}/members/${big}`, payload: { enabled: false } })
      assert.equal(await poolSize(pool), 2, 'a disabled member does not count')
      await put(small, { max_batch_size: 1 })
      assert.equal(await poolSize(pool), 1, 'a provider\'s change reaches its pools')
    })

    it('is planned, applied and exported by pools as code; left out it is 10, and the export leaves 10 out', async () => {
      const post = async (url: string, payload: unknown) => await t.request({ method: 'POST', url, payload: payload as Record<string, unknown> })
      const state = (size?: number) => ({
        providers: [{ name: 'node-a', base_url: 'https://a.example', ...(size === undefined ? {} : { max_batch_size: size }) }],
        pools: [{ name: 'chain', category: 'rpc', protocol: 'evm', members: [{ provider: 'node-a' }] }]
      })
      assert.equal((await post('/api/config/apply', state(50))).status, 200)
      const id = (await t.request({ method: 'GET', url: '/api/providers' })).body[0].id
      assert.equal((await shown(id)).max_batch_size, 50)
      const exported = (await t.request({ method: 'GET', url: '/api/config/export' })).body
      assert.equal(exported.providers[0].max_batch_size, 50)
      assert.deepEqual((await post('/api/config/plan', exported)).body.changes, [], 'the export applies back to no change')

      const back = [{ kind: 'provider', action: 'update', name: 'node-a', fields: { max_batch_size: { from: 50, to: 10 } } }]
      assert.deepEqual((await post('/api/config/plan', state())).body.changes, back, 'left out, it is the default')
      assert.deepEqual((await post('/api/config/apply', state())).body.changes, back)
      assert.equal((await shown(id)).max_batch_size, 10)
      assert.equal('max_batch_size' in (await t.request({ method: 'GET', url: '/api/config/export' })).body.providers[0], false, 'the default is left out')

      const bad = await post('/api/config/plan', state(0))
      assert.equal(bad.status, 422, JSON.stringify(bad.body))
      assert.deepEqual(bad.body.detail.map((d: { loc: unknown[] }) => d.loc), [['body', 'providers', 0, 'max_batch_size']])
    })
  })
}
