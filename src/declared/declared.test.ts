/**
 * Pools as code through the API on both databases: apply, apply again (nothing
 * written), the plan of each kind of change, prune, export → apply back to no
 * change, and the 422s of a state that does not check out.
 */
/* eslint-disable no-template-curly-in-string -- `${NAME}` placeholders are what these tests are about */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { parse } from 'yaml'
import { FOUR_PROBLEM_FILE } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { parseDeclaredFile } from './declared-file.js'

const STATE = {
  providers: [
    { name: 'portal-a', category: 'public-spending', base_url: 'https://a.example/v1', auth_headers: { 'X-Api-Key': 'KA' }, rate_limit: { requests: 100, per: 'minute' } },
    { name: 'portal-b', category: 'public-spending', base_url: 'https://b.example', health_check: { path: '/health' } }
  ],
  pools: [
    { name: 'spending', category: 'public-spending', rotation_strategy: 'weighted', members: [{ provider: 'portal-a', weight: 3 }, { provider: 'portal-b' }] }
  ]
}

for (const dialect of dialects) {
  describeOn(dialect, 'pools as code', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const post = async (url: string, payload: unknown) => await t.request({ method: 'POST', url, payload: payload as Record<string, unknown> })
    const audits = async () => (await t.request({ method: 'GET', url: '/api/audit' })).body.records as Array<{ actor: string, action: string, target: string }>

    it('applies a state in one go, and applying it again writes nothing', async () => {
      const first = await post('/api/config/apply', STATE)
      assert.equal(first.status, 200, JSON.stringify(first.body))
      assert.deepEqual(first.body.summary, { create: 5, update: 0, delete: 0 })
      assert.equal(first.body.applied, true)
      assert.deepEqual(first.body.changes.map((c: { kind: string, name: string }) => `${c.kind} ${c.name}`),
        ['provider portal-a', 'provider portal-b', 'pool spending', 'member spending/portal-a', 'member spending/portal-b'])
      const pool = (await t.request({ method: 'GET', url: '/api/pools' })).body.pools[0]
      assert.equal(pool.rotation_strategy, 'weighted')
      assert.deepEqual(pool.members.map((m: { provider_name: string, weight: number }) => [m.provider_name, m.weight]), [['portal-a', 3], ['portal-b', 1]])
      const providers = (await t.request({ method: 'GET', url: '/api/providers' })).body
      assert.deepEqual(providers[0].auth_headers, { 'x-api-key': '***' })
      assert.equal(providers[1].health_check.interval_s, 10)
      const written = await audits()
      assert.equal(written.length, 5)
      const updatedAt = providers.map((p: { updated_at: string }) => p.updated_at)

      const again = await post('/api/config/apply', STATE)
      assert.deepEqual({ ...again.body, fingerprint: undefined }, { changes: [], summary: { create: 0, update: 0, delete: 0 }, applied: true, fingerprint: undefined })
      assert.equal((await audits()).length, 5, 'no audit record')
      const after = (await t.request({ method: 'GET', url: '/api/providers' })).body
      assert.deepEqual(after.map((p: { updated_at: string }) => p.updated_at), updatedAt, 'no updated_at moved')
    })

    it('plans each kind of change field by field, and deletes only with prune', async () => {
      await post('/api/config/apply', STATE)
      await post('/api/providers', { name: 'stray' })
      const changed = structuredClone(STATE) as any
      changed.providers[0].base_url = 'https://a2.example/v1'
      changed.providers[0].auth_headers = { 'X-Api-Key': 'KA2' }
      changed.pools[0].rotation_strategy = 'round_robin'
      changed.pools[0].cooldown_seconds = 60
      changed.pools[0].members = [{ provider: 'portal-a', weight: 1 }]
      changed.providers.push({ name: 'portal-c' })
      const plan = await post('/api/config/plan', changed)
      assert.equal(plan.status, 200, JSON.stringify(plan.body))
      assert.equal(plan.body.applied, false)
      assert.deepEqual(plan.body.changes, [
        {
          kind: 'provider',
          action: 'update',
          name: 'portal-a',
          fields: {
            base_url: { from: 'https://a.example/v1', to: 'https://a2.example/v1' },
            auth_headers: { from: { 'x-api-key': '***' }, to: { 'x-api-key': '*** (changed)' } }
          }
        },
        { kind: 'provider', action: 'create', name: 'portal-c', fields: { max_batch_size: { from: null, to: 10 } } },
        { kind: 'pool', action: 'update', name: 'spending', fields: { rotation_strategy: { from: 'weighted', to: 'round_robin' }, cooldown_seconds: { from: 30, to: 60 } } },
        { kind: 'member', action: 'update', name: 'spending/portal-a', fields: { weight: { from: 3, to: 1 } } }
      ])
      assert.equal((await t.request({ method: 'GET', url: '/api/pools' })).body.pools[0].rotation_strategy, 'weighted', 'a plan changes nothing')

      const pruned = await post('/api/config/plan', { ...changed, prune: true })
      assert.deepEqual(pruned.body.changes.filter((c: { action: string }) => c.action === 'delete').map((c: { kind: string, name: string }) => `${c.kind} ${c.name}`),
        ['member spending/portal-b', 'provider stray'])
      assert.equal((await post('/api/config/apply', changed)).body.summary.delete, 0)
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 4, 'nothing deleted without prune')
      const applied = await post('/api/config/apply', { ...changed, prune: true })
      assert.deepEqual(applied.body.summary, { create: 0, update: 0, delete: 2 })
      const names = (await t.request({ method: 'GET', url: '/api/providers' })).body.map((p: { name: string }) => p.name)
      assert.deepEqual(names, ['portal-a', 'portal-b', 'portal-c'])
      assert.deepEqual((await audits()).slice(0, 2).map((a) => a.action).sort(), ['member.remove', 'provider.delete'])
      assert.equal((await t.request({ method: 'GET', url: '/api/pools' })).body.pools[0].members.length, 1)
    })

    it('applies exactly the changes reviewed when given their fingerprint, and nothing when the state moved since (409)', async () => {
      await post('/api/config/apply', STATE)
      const plan = await post('/api/config/plan', { ...STATE, prune: true })
      assert.match(plan.body.fingerprint, /^[0-9a-f]{64}$/)
      assert.deepEqual(plan.body.changes, [], 'nothing to prune yet')
      await post('/api/providers', { name: 'created-meanwhile' })
      const moved = await t.request({ method: 'POST', url: `/api/config/apply?expect=${plan.body.fingerprint as string}`, payload: { ...STATE, prune: true } })
      assert.equal(moved.status, 409, JSON.stringify(moved.body))
      assert.match(moved.body.detail, /changed since that plan/)
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 3, 'the provider created meanwhile was not pruned unseen')
      const replanned = await post('/api/config/plan', { ...STATE, prune: true })
      const applied = await t.request({ method: 'POST', url: `/api/config/apply?expect=${replanned.body.fingerprint as string}`, payload: { ...STATE, prune: true } })
      assert.equal(applied.status, 200)
      assert.deepEqual(applied.body.summary, { create: 0, update: 0, delete: 1 })
      assert.equal(applied.body.fingerprint, replanned.body.fingerprint)
    })

    it('exports the stored state as a file that applies back to no change', async () => {
      await post('/api/config/apply', STATE)
      await t.request({ method: 'PUT', url: '/api/pools/1', payload: { description: 'set through the API', enabled: false } })
      const yaml = await t.app.inject({ method: 'GET', url: '/api/config/export?format=yaml' })
      assert.equal(yaml.statusCode, 200)
      assert.match(String(yaml.headers['content-type']), /^application\/yaml/)
      assert.match(yaml.body, /x-api-key: \$\{SOURCEPOOL_PORTAL_A_X_API_KEY\}/)
      assert.ok(!yaml.body.includes('KA'), 'no credential value')
      const { desired } = parseDeclaredFile(yaml.body, 'export.yaml', { SOURCEPOOL_PORTAL_A_X_API_KEY: 'KA' })
      assert.equal(desired.pools[0]?.description, 'set through the API')
      const json = (await t.request({ method: 'GET', url: '/api/config/export' })).body
      assert.deepEqual(json, parse(yaml.body))
      json.providers[0].auth_headers['x-api-key'] = 'KA'
      const plan = await post('/api/config/plan', json)
      assert.deepEqual(plan.body.changes, [])
    })

    it('carries the cache and wait fields: applied, planned field by field, exported and applied back to no change', async () => {
      const cached = structuredClone(STATE) as any
      Object.assign(cached.pools[0], { cache_ttl_seconds: 60, cache_stale_seconds: 120, max_wait_ms: 500 })
      assert.equal((await post('/api/config/apply', cached)).status, 200)
      const policy = (await t.request({ method: 'GET', url: '/api/pools/1' })).body.policy
      assert.deepEqual([policy.cache_ttl_seconds, policy.cache_stale_seconds, policy.max_wait_ms], [60, 120, 500])
      const plan = await post('/api/config/plan', { ...cached, pools: [{ ...cached.pools[0], cache_ttl_seconds: 0, max_wait_ms: undefined }] })
      assert.deepEqual(plan.body.changes, [
        { kind: 'pool', action: 'update', name: 'spending', fields: { cache_ttl_seconds: { from: 60, to: 0 }, max_wait_ms: { from: 500, to: 0 } } }
      ])
      const json = (await t.request({ method: 'GET', url: '/api/config/export' })).body
      const pool = json.pools[0]
      assert.deepEqual([pool.cache_ttl_seconds, pool.cache_stale_seconds, pool.max_wait_ms], [60, 120, 500])
      const yaml = await t.app.inject({ method: 'GET', url: '/api/config/export?format=yaml' })
      assert.match(yaml.body, /cache_ttl_seconds: 60\n\s+cache_stale_seconds: 120\n\s+max_wait_ms: 500\n/)
      json.providers[0].auth_headers['x-api-key'] = 'KA'
      assert.deepEqual((await post('/api/config/plan', json)).body.changes, [])
      const applied = await post('/api/config/apply', { ...json, pools: [{ ...pool, max_wait_ms: 0 }] })
      assert.deepEqual(applied.body.summary, { create: 0, update: 1, delete: 0 })
      assert.equal((await t.request({ method: 'GET', url: '/api/pools/1' })).body.policy.max_wait_ms, 0)
    })

    it('carries the protocol: exported as stored, a declared evm planned and applied, left out meaning http, an unknown one refused', async () => {
      await post('/api/config/apply', STATE)
      const exported = async () => {
        const json = (await t.request({ method: 'GET', url: '/api/config/export' })).body
        json.providers[0].auth_headers['x-api-key'] = 'KA'
        return json
      }
      const plain = await exported()
      assert.equal(plain.pools[0].protocol, 'http')
      assert.deepEqual((await post('/api/config/plan', plain)).body.changes, [], 'the export applies back to no change')

      const evm = { ...STATE, pools: [{ ...STATE.pools[0], protocol: 'evm' }] }
      const toEvm = [{ kind: 'pool', action: 'update', name: 'spending', fields: { protocol: { from: 'http', to: 'evm' } } }]
      assert.deepEqual((await post('/api/config/plan', evm)).body.changes, toEvm)
      const applied = await post('/api/config/apply', evm)
      assert.deepEqual([applied.body.changes, applied.body.summary], [toEvm, { create: 0, update: 1, delete: 0 }])
      assert.equal((await t.request({ method: 'GET', url: '/api/pools/1' })).body.policy.protocol, 'evm')
      const yaml = await t.app.inject({ method: 'GET', url: '/api/config/export?format=yaml' })
      assert.match(yaml.body, /\n\s+protocol: evm\n/)
      const again = await exported()
      assert.equal(again.pools[0].protocol, 'evm')
      assert.deepEqual((await post('/api/config/plan', again)).body.changes, [], 'exported evm applies back to no change')
      assert.deepEqual((await post('/api/config/plan', STATE)).body.changes,
        [{ kind: 'pool', action: 'update', name: 'spending', fields: { protocol: { from: 'evm', to: 'http' } } }], 'left out, it is the default')

      const bad = await post('/api/config/plan', { ...STATE, pools: [{ ...STATE.pools[0], protocol: 'grpc' }] })
      assert.equal(bad.status, 422, JSON.stringify(bad.body))
      assert.deepEqual(bad.body.detail.map((d: { loc: unknown[], type: string }) => [d.loc, d.type]), [[['body', 'pools', 0, 'protocol'], 'enum']])
    })

    it('carries the evm fields: exported as stored, declared values planned and applied, left out meaning the defaults, out of bounds refused', async () => {
      await post('/api/config/apply', STATE)
      const exported = async () => {
        const json = (await t.request({ method: 'GET', url: '/api/config/export' })).body
        json.providers[0].auth_headers['x-api-key'] = 'KA'
        return json
      }
      const defaults = { finality_depth: 64, cache_unfinalized_ms: 0, head_check_interval_s: 5, max_block_lag: 5 }
      const evmOf = (pool: Record<string, unknown>) => Object.fromEntries(Object.keys(defaults).map((k) => [k, pool[k]]))
      const plain = await exported()
      assert.deepEqual(evmOf(plain.pools[0]), defaults)
      assert.deepEqual((await post('/api/config/plan', plain)).body.changes, [], 'the export applies back to no change')

      const values = { finality_depth: 12, cache_unfinalized_ms: 2000, head_check_interval_s: 30, max_block_lag: 0 }
      const evm = { ...STATE, pools: [{ ...STATE.pools[0], protocol: 'evm', ...values }] }
      const fields = {
        protocol: { from: 'http', to: 'evm' },
        finality_depth: { from: 64, to: 12 },
        cache_unfinalized_ms: { from: 0, to: 2000 },
        head_check_interval_s: { from: 5, to: 30 },
        max_block_lag: { from: 5, to: 0 }
      }
      const toEvm = [{ kind: 'pool', action: 'update', name: 'spending', fields }]
      assert.deepEqual((await post('/api/config/plan', evm)).body.changes, toEvm)
      const applied = await post('/api/config/apply', evm)
      assert.deepEqual([applied.body.changes, applied.body.summary], [toEvm, { create: 0, update: 1, delete: 0 }])
      assert.deepEqual(evmOf((await t.request({ method: 'GET', url: '/api/pools/1' })).body.policy), values)
      assert.deepEqual(evmOf((await t.app.runtime.pool(1)) as unknown as Record<string, unknown>), values, 'the data plane\'s pool row')
      const yaml = await t.app.inject({ method: 'GET', url: '/api/config/export?format=yaml' })
      assert.match(yaml.body, /\n\s+finality_depth: 12\n\s+cache_unfinalized_ms: 2000\n\s+head_check_interval_s: 30\n\s+max_block_lag: 0\n/)
      const again = await exported()
      assert.deepEqual(evmOf(again.pools[0]), values)
      assert.deepEqual((await post('/api/config/plan', again)).body.changes, [], 'the exported values apply back to no change')
      const back = (await post('/api/config/plan', STATE)).body.changes
      assert.deepEqual(back, [{ kind: 'pool', action: 'update', name: 'spending', fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { from: v.to, to: v.from }])) }],
        'left out, they are the defaults')

      const created = await post('/api/config/plan', { ...STATE, pools: [...STATE.pools, { name: 'nodes', category: 'rpc', protocol: 'evm', max_block_lag: 3 }] })
      const shown = created.body.changes.find((c: { name: string }) => c.name === 'nodes').fields
      assert.deepEqual(evmOf(Object.fromEntries(Object.entries(shown).map(([k, v]) => [k, (v as { to: unknown }).to]))), { ...defaults, max_block_lag: 3 }, 'a created pool\'s plan')

      const bad = await post('/api/config/plan', { ...STATE, pools: [{ ...STATE.pools[0], finality_depth: -1, cache_unfinalized_ms: 3_600_001, head_check_interval_s: 0, max_block_lag: 1.5 }] })
      assert.equal(bad.status, 422, JSON.stringify(bad.body))
      assert.deepEqual(bad.body.detail.map((d: { loc: unknown[], type: string }) => [d.loc.at(-1), d.type]).sort(),
        [['cache_unfinalized_ms', 'less_than_equal'], ['finality_depth', 'greater_than_equal'], ['head_check_interval_s', 'greater_than_equal'], ['max_block_lag', 'int_from_float']])
    })

    it('refuses an unknown key (never drops it: beside prune it would delete everything) and an unfilled placeholder', async () => {
      await post('/api/config/apply', STATE)
      const typo = await post('/api/config/apply', { prune: true, provider: STATE.providers, pools: STATE.pools })
      assert.equal(typo.status, 422, JSON.stringify(typo.body))
      assert.deepEqual(typo.body.detail.map((d: { loc: unknown[] }) => d.loc), [['body', 'provider']])
      const inner = await post('/api/config/plan', { providers: [{ name: 'x', bse_url: 'https://x.example' }] })
      assert.deepEqual(inner.body.detail.map((d: { loc: unknown[] }) => d.loc), [['body', 'providers', 0, 'bse_url']])
      const placeholder = await post('/api/config/apply', { providers: [{ name: 'x', base_url: 'https://x.example/?key=${X_KEY}', auth_headers: { 'x-api-key': '${X_API_KEY}' } }] })
      assert.equal(placeholder.status, 422)
      assert.deepEqual(placeholder.body.detail.map((d: { loc: unknown[] }) => d.loc), [['body', 'providers', 0, 'base_url'], ['body', 'providers', 0, 'auth_headers', 'x-api-key']])
      assert.match(placeholder.body.detail[1].msg, /holds the placeholder \$\{X_API_KEY\}/)
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 2, 'nothing deleted, nothing created')
    })

    it('exports query credentials as placeholders too, and keeps placeholders of similar names apart', async () => {
      await post('/api/config/apply', {
        providers: [
          { name: 'portal-a', base_url: 'https://a.example/v1?api_key=SECRET1&region=eu', auth_headers: { 'x-token': 'T1' }, health_check: { path: '/h?token=SECRET2' } },
          { name: 'portal_a', base_url: 'https://a2.example', auth_headers: { 'x-token': 'T2' } }
        ]
      })
      const yaml = (await t.app.inject({ method: 'GET', url: '/api/config/export?format=yaml' })).body
      assert.ok(!/SECRET|T1|T2/.test(yaml), yaml)
      const exported = parse(yaml)
      const [a, b] = exported.providers
      assert.equal(a.base_url, 'https://a.example/v1?api_key=${SOURCEPOOL_PORTAL_A_1_API_KEY}&region=eu')
      assert.equal(a.health_check.path, '/h?token=${SOURCEPOOL_PORTAL_A_1_TOKEN}')
      assert.deepEqual([a.auth_headers['x-token'], b.auth_headers['x-token']], ['${SOURCEPOOL_PORTAL_A_1_X_TOKEN}', '${SOURCEPOOL_PORTAL_A_2_X_TOKEN}'])
      const { state } = parseDeclaredFile(yaml, 'export.yaml', {
        SOURCEPOOL_PORTAL_A_1_API_KEY: 'SECRET1', SOURCEPOOL_PORTAL_A_1_TOKEN: 'SECRET2', SOURCEPOOL_PORTAL_A_1_X_TOKEN: 'T1', SOURCEPOOL_PORTAL_A_2_X_TOKEN: 'T2'
      })
      assert.deepEqual((await post('/api/config/plan', state)).body.changes, [], 'filled in, the export applies back to no change')
    })

    it('answers 422 naming every problem of a state at once, its shape\'s and its references\', to plan and apply alike', async () => {
      const state = parse(FOUR_PROBLEM_FILE)
      for (const url of ['/api/config/plan', '/api/config/apply']) {
        const res = await post(url, state)
        assert.equal(res.status, 422, JSON.stringify(res.body))
        assert.deepEqual(res.body.detail.map((d: { loc: unknown[], type: string }) => [d.loc.join('.'), d.type]), [
          ['body.providers.0.colour', 'extra_forbidden'],
          ['body.providers.0.base_url', 'url_parsing'],
          ['body.pools.0.rotation_strategy', 'enum'],
          ['body.pools.0.members.1.provider', 'value_error']
        ], url)
        assert.equal(res.body.detail[3].msg, "Value error, no provider 'ghost' is declared in this state")
      }
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 0)
      assert.equal((await audits()).length, 0)
    })

    it('answers 422 naming every problem of a state, and changes nothing', async () => {
      const res = await post('/api/config/apply', {
        providers: [{ name: 'a', base_url: 'https://u:p@a.example' }, { name: 'a' }, { name: 'b', auth_headers: { Authorization: 'one', authorization: 'two' } }],
        pools: [{ name: 'p', category: 'c', members: [{ provider: 'ghost' }], cooldown_seconds: 60, max_cooldown_seconds: 30 }]
      })
      assert.equal(res.status, 422, JSON.stringify(res.body))
      assert.deepEqual(res.body.detail.map((d: { loc: unknown[] }) => d.loc), [
        ['body', 'providers', 0, 'base_url'],
        ['body', 'providers', 1, 'name'],
        // A header name refused is a key refused: pydantic's `[key]` under it.
        ['body', 'providers', 2, 'auth_headers', 'authorization', '[key]'],
        ['body', 'pools', 0, 'members', 0, 'provider'],
        ['body', 'pools', 0, 'max_cooldown_seconds']
      ])
      assert.deepEqual(res.body.detail.map((d: { type: string, msg: string, input: unknown }) => [d.type, d.msg, d.input]), [
        ['value_error', 'Value error, base_url may not carry credentials (user:password@); put them in auth_headers, e.g. {"authorization": "Basic <base64 of user:password>"}', 'https://u:***@a.example/'],
        ['value_error', "Value error, provider 'a' is declared twice (first as providers[0])", 'a'],
        ['value_error', 'Value error, header names are case-insensitive: authorization is given twice', 'authorization'],
        ['value_error', "Value error, no provider 'ghost' is declared in this state", 'ghost'],
        ['value_error', 'Value error, max_cooldown_seconds must be greater than or equal to cooldown_seconds (60)', 30]
      ])
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 0)
    })
  })
}
