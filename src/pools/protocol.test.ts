/**
 * A pool's `protocol` (issue 36) through the API on both databases: `http` unless
 * created with `jsonrpc` or `evm`, changed by an update like the other policy fields
 * (its change_seq moves, the data plane's pool row follows), and an unknown value
 * refused with pydantic's `enum` 422, nothing written.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { createPool } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const EXPECTED = "'http', 'jsonrpc' or 'evm'"

/** pydantic 2.5's answer to a str Enum field given `input`. */
const enumIssue = (input: unknown) => ({ type: 'enum', loc: ['body', 'protocol'], msg: `Input should be ${EXPECTED}`, input, ctx: { expected: EXPECTED } })

for (const dialect of dialects) {
  describeOn(dialect, 'pool protocol', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const policy = async (id: number) => (await t.request({ method: 'GET', url: `/api/pools/${id}` })).body.policy
    const changeSeq = async (id: number) =>
      Number((await t.database.db.selectFrom('pools').select('change_seq').where('id', '=', id).executeTakeFirstOrThrow()).change_seq)
    const runtimeProtocol = async (id: number) => (await t.app.runtime.pool(id))?.protocol

    it('is http unless the pool is created with jsonrpc or evm, in the record, the list and the data plane\'s pool row', async () => {
      const ids = [await createPool(t, 'plain'), await createPool(t, 'nulled', { protocol: null })]
      for (const protocol of ['http', 'jsonrpc', 'evm']) ids.push(await createPool(t, `pool-${protocol}`, { protocol }))
      const expected = ['http', 'http', 'http', 'jsonrpc', 'evm']
      const shown = []
      for (const id of ids) shown.push((await policy(id)).protocol)
      assert.deepEqual(shown, expected)
      const list = (await t.request({ method: 'GET', url: '/api/pools' })).body.pools
      assert.deepEqual(list.map((p: { policy: { protocol: string } }) => p.policy.protocol), expected)
      const loaded = []
      for (const id of ids) loaded.push(await runtimeProtocol(id))
      assert.deepEqual(loaded, expected)
    })

    it('is changed by an update as the other policy fields are: its change_seq moves, the data plane follows, null and absent leave it', async () => {
      const id = await createPool(t, 'rpc', { cache_ttl_seconds: 30 })
      assert.equal(await runtimeProtocol(id), 'http')
      const before = await changeSeq(id)
      const res = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { protocol: 'evm' } })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      assert.ok(await changeSeq(id) > before, 'change_seq moved')
      assert.deepEqual([(await policy(id)).protocol, (await policy(id)).cache_ttl_seconds], ['evm', 30], 'the other fields as they were')
      assert.equal(await runtimeProtocol(id), 'evm')

      for (const payload of [{ protocol: null }, { description: 'unchanged protocol' }]) {
        assert.equal((await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload })).status, 200)
        assert.equal((await policy(id)).protocol, 'evm', JSON.stringify(payload))
      }
      await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { protocol: 'jsonrpc' } })
      assert.equal((await policy(id)).protocol, 'jsonrpc')
      await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { protocol: 'http' } })
      assert.equal((await policy(id)).protocol, 'http')
      assert.equal(await runtimeProtocol(id), 'http')
    })

    it('answers 422 in pydantic 2.5 shape for an unknown protocol, on create and on update, and writes nothing', async () => {
      const created = await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'grpc', category: 'rpc', protocol: 'grpc' } })
      assert.equal(created.status, 422)
      assert.deepEqual(created.body, { detail: [enumIssue('grpc')] })
      assert.equal((await t.request({ method: 'GET', url: '/api/pools' })).body.total, 0)

      const id = await createPool(t, 'rpc', { protocol: 'jsonrpc' })
      const before = await changeSeq(id)
      for (const protocol of ['grpc', 'HTTP', '']) {
        const updated = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { protocol } })
        assert.equal(updated.status, 422)
        assert.deepEqual(updated.body, { detail: [enumIssue(protocol)] })
      }
      assert.equal((await policy(id)).protocol, 'jsonrpc')
      assert.equal(await changeSeq(id), before, 'nothing written')
    })
  })
}
