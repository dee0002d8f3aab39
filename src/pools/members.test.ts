import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

for (const dialect of dialects) {
  describeOn(dialect, 'pool members', () => {
    let t: TestApp
    let poolId: number
    let providerId: number
    beforeEach(async () => {
      t = await buildTestApp(dialect)
      poolId = await createPool(t, 'pool')
      providerId = await createProvider(t, 'alpha')
    })
    afterEach(async () => { await t.close() })

    describe('POST /api/pools/:pool_id/members', () => {
      it('adds a member with priority and weight defaulting to 1', async () => {
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/members`, payload: { provider_id: providerId } })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, {
          member_id: res.body.member_id,
          pool_id: poolId,
          provider_id: providerId,
          provider_name: 'alpha',
          priority: 1,
          weight: 1,
          message: `Provider 'alpha' added to pool ${poolId}`
        })
        assert.equal(typeof res.body.member_id, 'number')
        const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
        assert.equal(status.body.members[0].enabled, true)
      })

      it('stores the priority and weight sent', async () => {
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/members`, payload: { provider_id: providerId, priority: 0, weight: 7 } })
        assert.equal(res.body.priority, 0)
        assert.equal(res.body.weight, 7)
      })

      it('answers 500 "Failed to add pool member" for an unknown pool, an unknown provider and a duplicate', async () => {
        const noPool = await t.request({ method: 'POST', url: '/api/pools/999/members', payload: { provider_id: providerId } })
        assert.equal(noPool.status, 500)
        assert.deepEqual(noPool.body, { detail: 'Failed to add pool member: pool 999 does not exist' })
        const noProvider = await t.request({ method: 'POST', url: `/api/pools/${poolId}/members`, payload: { provider_id: 999 } })
        assert.equal(noProvider.status, 500)
        assert.deepEqual(noProvider.body, { detail: 'Failed to add pool member: provider 999 does not exist' })
        await addMember(t, poolId, providerId)
        const dup = await t.request({ method: 'POST', url: `/api/pools/${poolId}/members`, payload: { provider_id: providerId } })
        assert.equal(dup.status, 500)
        assert.deepEqual(dup.body, { detail: `Failed to add pool member: provider ${providerId} is already a member of pool ${poolId}` })
        const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
        assert.equal(status.body.members.length, 1)
      })

      it('answers 422 for a missing provider_id, weight below 1 and negative priority', async () => {
        const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/members`, payload: { weight: 0, priority: -1 } })
        assert.equal(res.status, 422)
        assert.deepEqual(res.body.detail.map((d: any) => [d.loc.join('.'), d.type]).sort(), [
          ['body.priority', 'greater_than_equal'],
          ['body.provider_id', 'missing'],
          ['body.weight', 'greater_than_equal']
        ])
        const fractional = await t.request({ method: 'POST', url: `/api/pools/${poolId}/members`, payload: { provider_id: 1.5 } })
        assert.equal(fractional.status, 422)
        assert.deepEqual(fractional.body.detail, [{
          type: 'int_from_float', loc: ['body', 'provider_id'], msg: 'Input should be a valid integer, got a number with a fractional part', input: 1.5, url: 'https://errors.pydantic.dev/2.5/v/int_from_float'
        }])
      })
    })

    describe('PUT /api/pools/:pool_id/members/:provider_id', () => {
      it('changes only the fields sent and not null', async () => {
        await addMember(t, poolId, providerId, { priority: 2, weight: 3 })
        const res = await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providerId}`, payload: { weight: 9, priority: null } })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, {
          pool_id: poolId,
          provider_id: providerId,
          priority: 2,
          weight: 9,
          enabled: true,
          message: `Member ${providerId} of pool ${poolId} updated successfully`
        })
        const disabled = await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providerId}`, payload: { enabled: false } })
        assert.equal(disabled.body.enabled, false)
        assert.equal(disabled.body.weight, 9)
        const unchanged = await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providerId}`, payload: {} })
        assert.equal(unchanged.status, 200)
        assert.equal(unchanged.body.enabled, false)
        const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
        assert.equal(status.body.members[0].enabled, false)
        assert.equal(status.body.members[0].weight, 9)
      })

      it('answers 404 "Member not found in pool <id>" when the pair does not exist', async () => {
        const res = await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providerId}`, payload: { weight: 2 } })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { detail: `Member not found in pool ${poolId}` })
        const empty = await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providerId}`, payload: {} })
        assert.equal(empty.status, 404)
        const otherPool = await t.request({ method: 'PUT', url: `/api/pools/555/members/${providerId}`, payload: { weight: 2 } })
        assert.deepEqual(otherPool.body, { detail: 'Member not found in pool 555' })
      })
    })

    describe('DELETE /api/pools/:pool_id/members/:provider_id', () => {
      it('removes the member and answers its address', async () => {
        await addMember(t, poolId, providerId)
        const res = await t.request({ method: 'DELETE', url: `/api/pools/${poolId}/members/${providerId}` })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, { message: `Provider ${providerId} removed from pool ${poolId}`, pool_id: poolId, provider_id: providerId })
        const status = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
        assert.deepEqual(status.body.members, [])
        const again = await t.request({ method: 'DELETE', url: `/api/pools/${poolId}/members/${providerId}` })
        assert.equal(again.status, 404)
        assert.deepEqual(again.body, { detail: `Member not found in pool ${poolId}` })
      })
    })
  })
}
