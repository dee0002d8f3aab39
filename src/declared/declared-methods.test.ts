/**
 * Pools as code carry a provider's `methods` (issue 36 item 7) on both databases:
 * planned and applied as a field of its own, exported as stored (absent when every
 * method is allowed), the export applying back to no change, and a bad pattern
 * refused with its place in the state.
 */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const STATE = {
  providers: [
    { name: 'node-a', base_url: 'https://a.example' },
    { name: 'node-b', base_url: 'https://b.example', methods: { allow: ['eth_*', 'net_version'], deny: ['eth_sign*'] } }
  ],
  pools: [{ name: 'chain', category: 'rpc', protocol: 'evm', members: [{ provider: 'node-a' }, { provider: 'node-b' }] }]
}

for (const dialect of dialects) {
  describeOn(dialect, 'pools as code: provider methods', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const post = async (url: string, payload: unknown) => await t.request({ method: 'POST', url, payload: payload as Record<string, unknown> })
    const exported = async () => (await t.request({ method: 'GET', url: '/api/config/export' })).body

    it('applies, exports as stored and applies back to no change; a change is planned as a field', async () => {
      const applied = await post('/api/config/apply', STATE)
      assert.equal(applied.status, 200, JSON.stringify(applied.body))
      const created = applied.body.changes.find((c: { name: string }) => c.name === 'node-b')
      assert.deepEqual(created.fields.methods, { from: null, to: STATE.providers[1]?.methods })
      const providers = (await t.request({ method: 'GET', url: '/api/providers' })).body
      assert.deepEqual(providers.map((p: { methods: unknown }) => p.methods), [null, STATE.providers[1]?.methods])

      const json = await exported()
      assert.equal('methods' in json.providers[0], false, 'every method allowed: left out')
      assert.deepEqual(json.providers[1].methods, STATE.providers[1]?.methods)
      assert.deepEqual((await post('/api/config/plan', json)).body.changes, [], 'the export applies back to no change')
      const yaml = await t.app.inject({ method: 'GET', url: '/api/config/export?format=yaml' })
      assert.match(yaml.body, /\n\s+methods:\n\s+allow:\n\s+- eth_\*\n/)

      const narrowed = structuredClone(STATE) as any
      narrowed.providers[0].methods = { deny: ['debug_*'] }
      delete narrowed.providers[1].methods
      const plan = (await post('/api/config/plan', narrowed)).body.changes
      assert.deepEqual(plan, [
        { kind: 'provider', action: 'update', name: 'node-a', fields: { methods: { from: null, to: { deny: ['debug_*'] } } } },
        { kind: 'provider', action: 'update', name: 'node-b', fields: { methods: { from: STATE.providers[1]?.methods, to: null } } }
      ])
      await post('/api/config/apply', narrowed)
      const after = (await t.request({ method: 'GET', url: '/api/providers' })).body
      assert.deepEqual(after.map((p: { methods: unknown }) => p.methods), [{ deny: ['debug_*'] }, null], 'left out in a state: every method')
      assert.deepEqual((await post('/api/config/plan', await exported())).body.changes, [])
    })

    it('refuses a bad pattern, too many patterns and an unknown key, at their place in the state', async () => {
      const bad = structuredClone(STATE) as any
      bad.providers[1].methods = { allow: ['eth call'], deny: Array.from({ length: 65 }, (_, i) => `m${i}`), block: ['x'] }
      const res = await post('/api/config/plan', bad)
      assert.equal(res.status, 422)
      const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'))
      for (const loc of ['body.providers.1.methods.allow.0', 'body.providers.1.methods.deny', 'body.providers.1.methods.block.[key]']) {
        assert.ok(locs.includes(loc), `${loc} in ${JSON.stringify(locs)}`)
      }
    })
  })
}
