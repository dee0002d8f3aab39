/**
 * One rule per write, whichever door it comes in by: applying a declared state and
 * making the same changes through the API leave the same rows (providers, pools,
 * members, policy) and the same audit records, which are also the admin events the
 * event stream sends. On both databases.
 */
import assert from 'node:assert/strict'
import { afterEach, it } from 'node:test'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const PROVIDERS = [
  { name: 'portal-a', category: 'public-spending', base_url: 'https://a.example/v1', auth_headers: { 'X-Api-Key': 'KA' }, rate_limit: { requests: 100, per: 'minute' }, timeout_ms: 5000 },
  { name: 'portal-b', category: 'public-spending', base_url: 'https://b.example', health_check: { path: '/health', interval_s: 30 } }
]
const POOL = { name: 'spending', category: 'public-spending', description: 'the portals', rotation_strategy: 'weighted', failure_threshold: 2, cooldown_seconds: 45 }
const MEMBERS = [{ provider: 'portal-a', weight: 3, priority: 2 }, { provider: 'portal-b' }]

/** What a state leaves, without the ids and instants that differ from run to run. */
async function stateOf (t: TestApp) {
  const get = async (url: string) => (await t.request({ method: 'GET', url })).body
  const providers = (await get('/api/providers') as Array<Record<string, unknown>>)
    .map(({ id, provider_id: _, created_at: _c, updated_at: _u, ...rest }) => rest)
  const pools = (await get('/api/pools')).pools.map((p: Record<string, any>) => ({
    name: p.name,
    category: p.category,
    description: p.description,
    rotation_strategy: p.rotation_strategy,
    enabled: p.enabled,
    policy: p.policy,
    members: p.members.map((m: Record<string, unknown>) => ({ provider: m.provider_name, priority: m.priority, weight: m.weight, enabled: m.enabled, use_count: m.use_count, health: m.health }))
  }))
  const audit = (await get('/api/audit')).records.map((r: { action: string, target: string }) => `${r.action} ${r.target}`).sort()
  const history = (await get('/api/pools/1/history')).history
  return { providers, pools, audit, history }
}

for (const dialect of dialects) {
  describeOn(dialect, 'a declared apply and the same changes through the API', () => {
    const apps: TestApp[] = []
    afterEach(async () => { for (const t of apps.splice(0)) await t.close() })

    it('leave the same rows and the same audit records (the admin events)', async () => {
      const declared = await buildTestApp(dialect, { healthCheckTimer: false })
      apps.push(declared)
      const applied = await declared.request({ method: 'POST', url: '/api/config/apply', payload: { providers: PROVIDERS, pools: [{ ...POOL, members: MEMBERS }] } })
      assert.equal(applied.status, 200, JSON.stringify(applied.body))

      const api = await buildTestApp(dialect, { healthCheckTimer: false })
      apps.push(api)
      const ids = new Map<string, number>()
      for (const provider of PROVIDERS) {
        const res = await api.request({ method: 'POST', url: '/api/providers', payload: provider })
        assert.equal(res.status, 200, JSON.stringify(res.body))
        ids.set(provider.name, res.body.provider_id)
      }
      const pool = await api.request({ method: 'POST', url: '/api/pools', payload: POOL })
      assert.equal(pool.status, 200, JSON.stringify(pool.body))
      for (const { provider, ...fields } of MEMBERS) {
        const res = await api.request({ method: 'POST', url: `/api/pools/${pool.body.pool_id as number}/members`, payload: { provider_id: ids.get(provider), ...fields } })
        assert.equal(res.status, 200, JSON.stringify(res.body))
      }

      const [fromFile, fromApi] = [await stateOf(declared), await stateOf(api)]
      assert.equal(fromFile.pools.length, 1)
      assert.equal(fromFile.pools[0].members.length, 2)
      assert.equal(fromFile.audit.length, 5, 'two providers, a pool and two members')
      assert.deepEqual(fromFile, fromApi)
    })
  })
}
