import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { sql } from 'kysely'
import { ISO_UTC } from '../../test/fixtures.js'
import { buildTestApp, dialects, type TestApp } from '../../test/helpers.js'
import { maskSecrets } from './audit.js'

const ADMIN = 'admin-secret-0123456789'
const CLIENT = 'client-secret-0123456789'
const AUTH_TOKENS = `ops:admin:${ADMIN},app:client:${CLIENT}`

for (const dialect of dialects) {
  describe(`[${dialect.name}] audit trail`, () => {
    let t: TestApp
    let n = 0
    beforeEach(async () => { t = await buildTestApp(dialect, {}, { AUTH_TOKENS }) })
    afterEach(async () => { await t.close() })

    const as = (secret: string) => ({ authorization: `Bearer ${secret}`, 'x-request-id': `req-${++n}` })
    const call = async (method: string, url: string, payload?: unknown, secret = ADMIN) =>
      await t.request({ method: method as 'GET', url, headers: as(secret), payload: payload as object })
    const audit = async (query = '') => (await call('GET', `/api/audit${query}`)).body

    it('records every admin change with actor, action, target, changes and request id', async () => {
      const provider = (await call('POST', '/api/providers', { name: 'a', base_url: 'https://a.example' })).body.provider_id
      const pool = (await call('POST', '/api/pools', { name: 'p', category: 'c' })).body.pool_id
      await call('POST', `/api/pools/${pool}/members`, { provider_id: provider, weight: 2 })
      await call('PUT', `/api/pools/${pool}/members/${provider}`, { enabled: false })
      await call('PUT', `/api/pools/${pool}`, { description: 'd' })
      await call('PUT', `/api/providers/${provider}`, { rate_limit: { requests: 5, per: 'minute' } })
      await call('DELETE', `/api/providers/${provider}/rate_limit`)
      await call('DELETE', `/api/pools/${pool}/members/${provider}`)
      await call('DELETE', `/api/pools/${pool}`)
      await call('DELETE', `/api/providers/${provider}`)
      const { records, total } = await audit()
      assert.equal(total, 10)
      assert.deepEqual(records.map((r: any) => [r.action, r.target]).reverse(), [
        ['provider.create', `provider:${provider}`],
        ['pool.create', `pool:${pool}`],
        ['member.add', `pool:${pool}/provider:${provider}`],
        ['member.update', `pool:${pool}/provider:${provider}`],
        ['pool.update', `pool:${pool}`],
        ['provider.update', `provider:${provider}`],
        ['provider.rate_limit.remove', `provider:${provider}`],
        ['member.remove', `pool:${pool}/provider:${provider}`],
        ['pool.delete', `pool:${pool}`],
        ['provider.delete', `provider:${provider}`]
      ])
      const first = records[records.length - 1]
      assert.equal(first.actor, 'ops')
      assert.equal(first.request_id, `req-${n - 10}`)
      assert.match(first.timestamp, ISO_UTC)
      assert.deepEqual(first.changes, { name: 'a', base_url: 'https://a.example' })
      assert.deepEqual(records.find((r: any) => r.action === 'member.add').changes, { provider_id: provider, weight: 2 })
    })

    it('records nothing for failed changes and for the data plane', async () => {
      await call('PUT', '/api/pools/999', { enabled: false })
      await call('POST', '/api/pools', { category: 'missing name' })
      const pool = (await call('POST', '/api/pools', { name: 'p', category: 'c' })).body.pool_id
      const provider = (await call('POST', '/api/providers', { name: 'a' })).body.provider_id
      await call('POST', `/api/pools/${pool}/members`, { provider_id: provider })
      await call('POST', `/api/pools/${pool}/rotate`, undefined, CLIENT)
      await call('POST', `/api/pools/${pool}/report`, { provider_id: provider, success: true }, CLIENT)
      assert.deepEqual((await audit()).records.map((r: any) => r.action), ['member.add', 'provider.create', 'pool.create'])
    })

    it('filters by actor, action, target and since, with a limit', async () => {
      await call('POST', '/api/pools', { name: 'one', category: 'c' })
      await call('POST', '/api/pools', { name: 'two', category: 'c' })
      await call('POST', '/api/providers', { name: 'x' })
      assert.equal((await audit('?action=pool.create')).total, 2)
      assert.equal((await audit('?target=pool:1')).records[0].changes.name, 'one')
      assert.equal((await audit('?actor=ops&limit=1')).total, 1)
      assert.equal((await audit('?actor=nobody')).total, 0)
      assert.equal((await audit('?since=2999-01-01T00:00:00Z')).total, 0)
      assert.equal((await audit('?since=2000-01-01T00:00:00Z')).total, 3)
      assert.equal((await call('GET', '/api/audit?limit=0')).status, 422)
      assert.equal((await call('GET', '/api/audit?since=yesterday')).status, 422)
    })

    it('masks credentials in the recorded changes', async () => {
      await call('POST', '/api/providers', { name: 'secretive', base_url: 'https://user:hunter2@api.example.com/v1?api_key=abc123&region=eu' })
      const changes = (await audit()).records[0].changes
      assert.equal(changes.base_url, 'https://user:***@api.example.com/v1?api_key=***&region=eu')
      assert.ok(!JSON.stringify(changes).includes('hunter2'))
      assert.ok(!JSON.stringify(changes).includes('abc123'))
    })

    it('rolls the change back when its audit record cannot be written', async () => {
      const pool = (await call('POST', '/api/pools', { name: 'keep', category: 'c', description: 'before' })).body.pool_id
      await sql`drop table audit_log`.execute(t.database.db)
      const res = await call('PUT', `/api/pools/${pool}`, { description: 'after' })
      assert.equal(res.status, 500)
      assert.match(res.body.detail, /^Failed to update pool: /)
      const status = await call('GET', `/api/pools/${pool}`)
      assert.equal(status.body.description, 'before')
    })
  })
}

describe('maskSecrets', () => {
  it('masks secret-looking keys at any depth and leaves the rest', () => {
    assert.deepEqual(maskSecrets({ name: 'n', password: 'p', nested: { api_key: 'k', token: null }, list: [{ secret: 's' }] }),
      { name: 'n', password: '***', nested: { api_key: '***', token: null }, list: [{ secret: '***' }] })
  })
})
