import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { sql } from 'kysely'
import { ISO_UTC } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { maskSecrets } from './audit.js'

const ADMIN = 'admin-secret-0123456789'
const CLIENT = 'client-secret-0123456789'
const AUTH_TOKENS = `ops:admin:${ADMIN},app:client:${CLIENT}`

for (const dialect of dialects) {
  describeOn(dialect, 'audit trail', () => {
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
      const limited = await audit('?actor=ops&limit=1')
      assert.equal(limited.records.length, 1)
      assert.equal(limited.total, 3)
      assert.equal((await audit('?actor=nobody')).total, 0)
      assert.equal((await audit('?since=2999-01-01T00:00:00Z')).total, 0)
      assert.equal((await audit('?since=2000-01-01T00:00:00Z')).total, 3)
      assert.equal((await call('GET', '/api/audit?limit=0')).status, 422)
      assert.equal((await call('GET', '/api/audit?since=yesterday')).status, 422)
    })

    it('masks credentials in the recorded changes: secret-looking query parameters (key= included) and credential headers', async () => {
      const created = await call('POST', '/api/providers', {
        name: 'secretive', base_url: 'https://api.example.com/v1?api_key=abc123&region=eu&key=k-456', auth_headers: { 'x-token': 'tok-789' }
      })
      assert.equal(created.status, 200)
      await call('PUT', `/api/providers/${created.body.provider_id}`, { base_url: 'https://api.example.com/v2?key=k-999&Signature=s-1' })
      const [updated, first] = (await audit()).records
      assert.deepEqual(first.changes, { name: 'secretive', base_url: 'https://api.example.com/v1?api_key=***&region=eu&key=***', auth_headers: '***' })
      assert.deepEqual(updated.changes, { base_url: 'https://api.example.com/v2?key=***&Signature=***' })
      assert.doesNotMatch(JSON.stringify([first, updated]), /abc123|k-456|tok-789|k-999|s-1/)
    })

    it('records nothing for a base_url with userinfo, which is refused', async () => {
      const refused = await call('POST', '/api/providers', { name: 'userinfo', base_url: 'https://user:hunter2@api.example.com/v1' })
      assert.equal(refused.status, 422)
      assert.deepEqual(refused.body.detail.map((d: any) => [d.loc, d.type]), [[['body', 'base_url'], 'value_error']])
      // The 422 echoes the URL it refused with the password masked.
      assert.equal(refused.body.detail[0].input, 'https://user:***@api.example.com/v1')
      assert.equal((await audit()).total, 0)
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

const DAY_MS = 24 * 60 * 60 * 1000
const invalidCursor = (input: string) => ({
  detail: [{
    type: 'value_error', loc: ['query', 'cursor'], msg: 'Value error, invalid cursor: pass next_cursor from the previous page as it is', input, ctx: { error: {} }, url: 'https://errors.pydantic.dev/2.5/v/value_error'
  }]
})

for (const dialect of dialects) {
  describeOn(dialect, 'audit trail pages and age limit', () => {
    let t: TestApp
    let time = Date.parse('2026-01-01T00:00:00.000Z')
    const start = async (env: Record<string, string> = {}) => {
      created = 0
      t = await buildTestApp(dialect, { now: () => new Date(time) }, env)
    }
    afterEach(async () => { await t.close() })

    const get = async (url: string) => await t.request({ method: 'GET', url })
    let created = 0
    const createPools = async (count: number, tick = () => {}) => {
      for (let i = 0; i < count; i++) {
        tick()
        const res = await t.request({ method: 'POST', url: '/api/pools', payload: { name: `p${created++}`, category: 'c' } })
        assert.equal(res.status, 200, JSON.stringify(res.body))
      }
    }
    /** Every record of `query`, following next_cursor page by page; asserts the total on each page. */
    const allPages = async (query: string, total: number) => {
      const seen: number[] = []
      const sizes: number[] = []
      let cursor: string | null = null
      do {
        const res = await get(`/api/audit?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
        assert.equal(res.status, 200, JSON.stringify(res.body))
        assert.equal(res.body.total, total)
        seen.push(...res.body.records.map((r: any) => r.id))
        sizes.push(res.body.records.length)
        cursor = res.body.next_cursor
      } while (cursor !== null)
      return { seen, sizes }
    }

    it('counts every matching record in total and pages with a cursor (7 records, limit 3)', async () => {
      await start()
      await createPools(7)
      const first = await get('/api/audit?limit=3')
      assert.equal(first.status, 200)
      assert.equal(first.body.total, 7)
      assert.equal(first.body.records.length, 3)
      assert.equal(typeof first.body.next_cursor, 'string')
      const everything = (await get('/api/audit')).body
      assert.equal(everything.next_cursor, null)
      const { seen, sizes } = await allPages('limit=3', 7)
      assert.deepEqual(sizes, [3, 3, 1])
      assert.deepEqual(seen, everything.records.map((r: any) => r.id))
      assert.deepEqual(seen, [...seen].sort((a, b) => b - a))
    })

    it('pages newest first by time, then id, when records share a time, with filters', async () => {
      await start()
      const times = [0, 0, 5, 5, 5, 2000, 2000, 2000, 2000]
      let i = 0
      await createPools(times.length, () => { time = Date.parse('2026-01-01T00:00:00.000Z') + (times[i++] as number) })
      const everything = (await get('/api/audit')).body.records
      const expected = [...everything].sort((a: any, b: any) => a.timestamp === b.timestamp ? b.id - a.id : a.timestamp < b.timestamp ? 1 : -1).map((r: any) => r.id)
      assert.deepEqual(everything.map((r: any) => r.id), expected)
      for (const limit of [1, 2, 4]) assert.deepEqual((await allPages(`limit=${limit}`, 9)).seen, expected, `limit ${limit}`)
      const since = await allPages('limit=2&since=2026-01-01T00:00:00.005Z', 7)
      assert.deepEqual(since.sizes, [2, 2, 2, 1])
      assert.deepEqual(since.seen, expected.slice(0, 7))
      const one = await allPages('limit=2&target=pool:3', 1)
      assert.deepEqual(one.sizes, [1])
    })

    it('keeps its place when newer records arrive between pages', async () => {
      await start()
      await createPools(4)
      const first = (await get('/api/audit?limit=2')).body
      await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'late', category: 'c' } })
      const second = (await get(`/api/audit?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`)).body
      assert.equal(second.total, 5)
      assert.equal(second.next_cursor, null)
      assert.deepEqual([...first.records, ...second.records].map((r: any) => r.changes.name), ['p3', 'p2', 'p1', 'p0'])
    })

    it('answers 422 for a cursor it did not write', async () => {
      await start()
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
      for (const cursor of ['not-a-cursor', encode(['yesterday', 1]), encode([1, 2]), encode(['2026-01-01T00:00:00.000Z', 0]), encode(['2026-01-01T00:00:00.000Z', 1.5]), encode({})]) {
        const res = await get(`/api/audit?cursor=${encodeURIComponent(cursor)}`)
        assert.equal(res.status, 422, cursor)
        assert.deepEqual(res.body, invalidCursor(cursor), cursor)
      }
    })

    it('purges records older than AUDIT_MAX_AGE_DAYS in housekeeping, by the injected clock', async () => {
      time = Date.parse('2026-01-01T00:00:00.000Z')
      await start({ AUDIT_MAX_AGE_DAYS: '30' })
      await createPools(1)
      time += DAY_MS
      await createPools(1)
      time = Date.parse('2026-01-01T00:00:00.000Z') + 30 * DAY_MS
      await t.app.runHousekeeping()
      assert.equal((await get('/api/audit')).body.total, 2, 'exactly 30 days old is kept')
      time += 1
      await t.app.runHousekeeping()
      const left = (await get('/api/audit')).body
      assert.equal(left.total, 1)
      assert.equal(left.records[0].timestamp, '2026-01-02T00:00:00.000Z')
    })

    it('purges a backlog larger than one batch', async () => {
      time = Date.parse('2026-06-01T00:00:00.000Z')
      await start({ AUDIT_MAX_AGE_DAYS: '1' })
      const old = { timestamp: '2026-01-01T00:00:00.000Z', actor: 'ops', action: 'pool.create', target: 'pool:1', changes: '{}', request_id: 'r' }
      for (let i = 0; i < 5; i++) await t.database.db.insertInto('audit_log').values(Array.from({ length: 500 }, () => old)).execute()
      await createPools(1)
      assert.equal((await get('/api/audit')).body.total, 2501)
      await t.app.runHousekeeping()
      const left = (await get('/api/audit')).body
      assert.equal(left.total, 1)
      assert.equal(left.records[0].timestamp, '2026-06-01T00:00:00.000Z')
    })

    it('keeps every record without AUDIT_MAX_AGE_DAYS', async () => {
      time = Date.parse('2026-01-01T00:00:00.000Z')
      await start()
      await createPools(2)
      time += 36_500 * DAY_MS
      await t.app.runHousekeeping()
      assert.equal((await get('/api/audit')).body.total, 2)
    })
  })
}

describe('maskSecrets', () => {
  it('masks secret-looking keys at any depth and leaves the rest', () => {
    assert.deepEqual(maskSecrets({ name: 'n', password: 'p', nested: { api_key: 'k', token: null }, list: [{ secret: 's' }] }),
      { name: 'n', password: '***', nested: { api_key: '***', token: null }, list: [{ secret: '***' }] })
  })

  it('masks credentials inside URLs, keeping the query parameters in their order', () => {
    assert.deepEqual(maskSecrets({
      a: 'https://user:hunter2@api.example.com/v1?api_key=abc123&region=eu',
      b: 'https://token-only@api.example.com/',
      c: 'https://api.example.com/?region=eu&key=k1&page=2',
      d: 'https://api.example.com/?region=eu'
    }), {
      a: 'https://user:***@api.example.com/v1?api_key=***&region=eu',
      b: 'https://***@api.example.com/',
      c: 'https://api.example.com/?region=eu&key=***&page=2',
      d: 'https://api.example.com/?region=eu'
    })
  })

  it('shows switches and numbers whatever their name (forward_client_auth), and masks any other value under a secret name', () => {
    assert.deepEqual(maskSecrets({ forward_client_auth: true, changes: { forward_client_auth: { from: false, to: true } }, auth_headers: { from: null, to: { 'x-custom': 'v' } }, token_ttl: 30 }),
      { forward_client_auth: true, changes: { forward_client_auth: { from: false, to: true } }, auth_headers: '***', token_ttl: 30 })
    assert.deepEqual(maskSecrets({ path: '/h?api_key=k&deep=1' }), { path: '/h?api_key=***&deep=1' })
  })
})
