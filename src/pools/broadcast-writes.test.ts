/**
 * The pool field `broadcast_writes` (issue 36 item 4) through the API and pools as
 * code, on both databases: false on any pool by default, in the status record and the
 * data plane's pool row; given on create, changed by an update as the other flags are
 * (change_seq moves, null and absent leave it); anything but a boolean refused with
 * pydantic's 422; exported, planned and applied by pools as code. What the proxy does
 * with it is in proxy/rpc-broadcast.test.ts.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { createPool } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const STATE = {
  providers: [{ name: 'node-a', category: 'rpc', base_url: 'https://a.example' }],
  pools: [{ name: 'mainnet', category: 'rpc', protocol: 'evm', members: [{ provider: 'node-a' }] }]
}

for (const dialect of dialects) {
  describeOn(dialect, 'pool broadcast_writes', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const shown = async (id: number) => (await t.request({ method: 'GET', url: `/api/pools/${id}` })).body.policy.broadcast_writes
    const stored = async (id: number) => ((await t.app.runtime.pool(id)) as unknown as { broadcast_writes: number }).broadcast_writes
    const changeSeq = async (id: number) =>
      Number((await t.database.db.selectFrom('pools').select('change_seq').where('id', '=', id).executeTakeFirstOrThrow()).change_seq)

    it('is false by default on any pool, true when given on create, in the record and the data plane\'s pool row', async () => {
      const plain = await createPool(t, 'plain')
      const evm = await createPool(t, 'evm', { protocol: 'evm', broadcast_writes: null })
      const on = await createPool(t, 'on', { protocol: 'evm', broadcast_writes: true })
      assert.deepEqual([await shown(plain), await shown(evm), await shown(on)], [false, false, true])
      assert.deepEqual([await stored(plain), await stored(evm), await stored(on)], [0, 0, 1])
      const list = (await t.request({ method: 'GET', url: '/api/pools' })).body.pools
      assert.deepEqual(list.map((p: { policy: { broadcast_writes: boolean } }) => p.policy.broadcast_writes), [false, false, true])
    })

    it('is changed by an update (change_seq moves, the data plane follows); null and absent leave it; a non-boolean is a 422', async () => {
      const id = await createPool(t, 'rpc', { protocol: 'evm' })
      for (const value of [true, false, true]) {
        const before = await changeSeq(id)
        assert.equal((await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { broadcast_writes: value } })).status, 200)
        assert.ok(await changeSeq(id) > before)
        assert.deepEqual([await shown(id), await stored(id)], [value, value ? 1 : 0])
      }
      for (const payload of [{ broadcast_writes: null }, { description: 'left' }]) {
        assert.equal((await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload })).status, 200)
        assert.equal(await shown(id), true, JSON.stringify(payload))
      }
      const before = await changeSeq(id)
      const bad = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { broadcast_writes: 'everywhere' } })
      assert.equal(bad.status, 422)
      assert.deepEqual(bad.body.detail.map((d: { loc: unknown[], type: string }) => [d.loc, d.type]), [[['body', 'broadcast_writes'], 'bool_type']])
      assert.equal(await changeSeq(id), before, 'nothing written')
    })

    it('is exported, planned and applied by pools as code; left out, it is false', async () => {
      const post = async (url: string, payload: unknown) => await t.request({ method: 'POST', url, payload: payload as Record<string, unknown> })
      assert.equal((await post('/api/config/apply', STATE)).status, 200)
      const exported = async () => (await t.request({ method: 'GET', url: '/api/config/export' })).body
      assert.equal((await exported()).pools[0].broadcast_writes, false)
      const on = { ...STATE, pools: [{ ...STATE.pools[0], broadcast_writes: true }] }
      const change = [{ kind: 'pool', action: 'update', name: 'mainnet', fields: { broadcast_writes: { from: false, to: true } } }]
      assert.deepEqual((await post('/api/config/plan', on)).body.changes, change)
      assert.deepEqual((await post('/api/config/apply', on)).body.changes, change)
      assert.equal(await shown(1), true)
      const again = await exported()
      assert.equal(again.pools[0].broadcast_writes, true)
      assert.deepEqual((await post('/api/config/plan', again)).body.changes, [], 'the export applies back to no change')
      assert.deepEqual((await post('/api/config/plan', STATE)).body.changes,
        [{ kind: 'pool', action: 'update', name: 'mainnet', fields: { broadcast_writes: { from: true, to: false } } }])
    })
  })
}
