import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { ISO_UTC, addMember, createPool, createProvider, rotateTimes } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

/** Creates a provider with the given credentials and returns its id. */
async function createProviderAs (t: TestApp, headers: Record<string, string>, name: string): Promise<number> {
  const res = await t.request({ method: 'POST', url: '/api/providers', headers, payload: { name } })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.provider_id
}

for (const dialect of dialects) {
  describeOn(dialect, 'providers', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => { await t.close() })

    it('POST /api/providers creates a provider with all its fields', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/providers',
        payload: { name: 'transparency', category: 'public-spending', base_url: 'https://api.example.gov/v1', description: 'portal' }
      })
      assert.equal(res.status, 200)
      assert.equal(res.body.id, res.body.provider_id)
      assert.deepEqual({ ...res.body, id: 0, provider_id: 0, created_at: '', updated_at: '' }, {
        id: 0,
        provider_id: 0,
        name: 'transparency',
        category: 'public-spending',
        base_url: 'https://api.example.gov/v1',
        ws_url: null,
        description: 'portal',
        rate_limit: null,
        timeout_ms: null,
        auth_headers: null,
        health_check: null,
        last_check: null,
        methods: null,
        max_logs_range: null,
        max_batch_size: 10,
        batches: null,
        method_costs: null,
        created_at: '',
        updated_at: '',
        message: "Provider 'transparency' created successfully"
      })
      assert.match(res.body.created_at, ISO_UTC)
    })

    it('stores every concurrent create but the duplicate, which alone is refused (writes sharing a commit stay apart)', async () => {
      const names = ['c0', 'c1', 'c2', 'c1', 'c3', 'c4', 'c5', 'c6']
      const results = await Promise.all(names.map((name) => t.request({ method: 'POST', url: '/api/providers', payload: { name } })))
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 409])
      const listed = (await t.request({ method: 'GET', url: '/api/providers' })).body.map((p: any) => p.name).sort()
      assert.deepEqual(listed, ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6'])
      const audit = (await t.request({ method: 'GET', url: '/api/audit?action=provider.create' })).body.records
      assert.equal(audit.length, 7)
    })

    it('POST /api/providers answers 409 for a duplicate name and 422 for bad fields', async () => {
      await createProvider(t, 'same')
      const dup = await t.request({ method: 'POST', url: '/api/providers', payload: { name: 'same' } })
      assert.equal(dup.status, 409)
      assert.deepEqual(dup.body, { detail: "Provider name 'same' already exists" })
      const bad = await t.request({ method: 'POST', url: '/api/providers', payload: { base_url: 'ftp://x' } })
      assert.equal(bad.status, 422)
      assert.deepEqual(bad.body.detail.map((d: any) => d.loc.join('.')).sort(), ['body.base_url', 'body.name'])
      const empty = await t.request({ method: 'POST', url: '/api/providers', payload: { name: '' } })
      assert.deepEqual(empty.body.detail, [{
        type: 'string_too_short', loc: ['body', 'name'], msg: 'String should have at least 1 character', input: '', ctx: { min_length: 1 }, url: 'https://errors.pydantic.dev/2.5/v/string_too_short'
      }])
    })

    it('GET /api/providers lists by id with total; GET one answers the record or 404', async () => {
      const a = await createProvider(t, 'a')
      const b = await createProvider(t, 'b', { category: 'rpc' })
      const list = await t.request({ method: 'GET', url: '/api/providers' })
      assert.equal(list.status, 200)
      assert.equal(list.headers['x-total-count'], '2')
      assert.deepEqual(list.body.map((p: any) => [p.id, p.provider_id]), [[a, a], [b, b]])
      const one = await t.request({ method: 'GET', url: `/api/providers/${b}` })
      assert.deepEqual(one.body, list.body[1])
      assert.equal(one.body.category, 'rpc')
      const missing = await t.request({ method: 'GET', url: '/api/providers/999' })
      assert.equal(missing.status, 404)
      assert.deepEqual(missing.body, { detail: 'Provider 999 not found' })
    })

    it('PUT /api/providers/:id changes only what is sent, refuses a taken name, and 404s', async () => {
      const a = await createProvider(t, 'a', { description: 'keep' })
      await createProvider(t, 'b')
      const res = await t.request({ method: 'PUT', url: `/api/providers/${a}`, payload: { base_url: 'http://localhost:9000', description: null } })
      assert.equal(res.status, 200)
      assert.equal(res.body.base_url, 'http://localhost:9000')
      assert.equal(res.body.description, 'keep')
      assert.equal(res.body.message, "Provider 'a' updated successfully")
      const taken = await t.request({ method: 'PUT', url: `/api/providers/${a}`, payload: { name: 'b' } })
      assert.equal(taken.status, 409)
      assert.deepEqual(taken.body, { detail: "Provider name 'b' already exists" })
      const missing = await t.request({ method: 'PUT', url: '/api/providers/999', payload: {} })
      assert.deepEqual(missing.body, { detail: 'Provider 999 not found' })
    })

    it('shows base_url with every query value and any password masked to callers below admin, and its credentials masked to admin', async () => {
      await t.close()
      const admin = { authorization: 'Bearer admin-secret-0123456789' }
      const reader = { authorization: 'Bearer read-secret-0123456789' }
      t = await buildTestApp(dialect, {}, { AUTH_TOKENS: 'ops:admin:admin-secret-0123456789,dash:read:read-secret-0123456789' })
      const created = await t.request({ method: 'POST', url: '/api/providers', headers: admin, payload: { name: 'keyed', base_url: 'https://api.example.com/v1?api_key=abc123&region=eu' } })
      assert.equal(created.body.base_url, 'https://api.example.com/v1?api_key=***&region=eu')
      const id = created.body.provider_id
      // A row stored before userinfo was refused.
      const legacy = await createProviderAs(t, admin, 'legacy')
      await t.database.db.updateTable('providers').set({ base_url: 'https://user:hunter2@old.example.com/?key=k1' }).where('id', '=', legacy).execute()
      const list = await t.request({ method: 'GET', url: '/api/providers', headers: reader })
      assert.equal(list.status, 200)
      assert.deepEqual(list.body.map((p: any) => p.base_url), ['https://api.example.com/v1?api_key=***&region=***', 'https://user:***@old.example.com/?key=***'])
      const one = await t.request({ method: 'GET', url: `/api/providers/${id}`, headers: reader })
      assert.equal(one.body.base_url, 'https://api.example.com/v1?api_key=***&region=***')
      assert.doesNotMatch(JSON.stringify([list.body, one.body]), /abc123|hunter2|k1|eu/)
      const asAdmin = await t.request({ method: 'GET', url: '/api/providers', headers: admin })
      assert.deepEqual(asAdmin.body.map((p: any) => p.base_url), ['https://api.example.com/v1?api_key=***&region=eu', 'https://user:***@old.example.com/?key=***'])
    })

    it('PUT keeps a stored credential when base_url or the check path comes back as admin was shown it, and takes a new one', async () => {
      const created = await t.request({
        method: 'POST',
        url: '/api/providers',
        payload: { name: 'keyed', base_url: 'https://api.example.com/v1?api_key=abc123&region=eu', health_check: { path: '/ping?token=tk1&x=1' } }
      })
      const id = created.body.provider_id
      assert.equal(created.body.base_url, 'https://api.example.com/v1?api_key=***&region=eu')
      assert.equal(created.body.health_check.path, '/ping?token=***&x=1')
      // The record sent back whole, with one other field changed: the credentials stay.
      const back = await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload: { ...created.body, description: 'edited', id: undefined, provider_id: undefined, auth_headers: undefined, last_check: undefined, created_at: undefined, updated_at: undefined } })
      assert.equal(back.status, 200, JSON.stringify(back.body))
      const stored = await t.database.db.selectFrom('providers').select(['base_url', 'health_check']).where('id', '=', id).executeTakeFirstOrThrow()
      assert.equal(stored.base_url, 'https://api.example.com/v1?api_key=abc123&region=eu')
      assert.equal(JSON.parse(stored.health_check as string).path, '/ping?token=tk1&x=1')
      // A non-secret part changed beside the masked one is a new URL, taken as sent.
      const moved = await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload: { base_url: 'https://api.example.com/v1?api_key=new-key&region=us' } })
      assert.equal(moved.body.base_url, 'https://api.example.com/v1?api_key=***&region=us')
      const now = await t.database.db.selectFrom('providers').select('base_url').where('id', '=', id).executeTakeFirstOrThrow()
      assert.equal(now.base_url, 'https://api.example.com/v1?api_key=new-key&region=us')
    })

    it('DELETE /api/providers/:id removes its memberships and clears it as current provider', async () => {
      const pool = await createPool(t, 'pool')
      const a = await createProvider(t, 'a')
      await addMember(t, pool, a)
      await rotateTimes(t, pool, 1)
      const res = await t.request({ method: 'DELETE', url: `/api/providers/${a}` })
      assert.equal(res.status, 200)
      assert.deepEqual(res.body, { message: "Provider 'a' deleted successfully", provider_id: a })
      const status = await t.request({ method: 'GET', url: `/api/pools/${pool}` })
      assert.deepEqual(status.body.members, [])
      assert.equal(status.body.current_provider, null)
      const again = await t.request({ method: 'DELETE', url: `/api/providers/${a}` })
      assert.equal(again.status, 404)
      assert.deepEqual(again.body, { detail: `Provider ${a} not found` })
    })
  })
}
