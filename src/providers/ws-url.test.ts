/**
 * A provider's `ws_url` (where its WebSocket streams go) through the API on both
 * databases: null unless set, in every record and in the data plane's member rows;
 * an update leaving it out keeps it, null clears it; a ws:// or wss:// URL of at most
 * 2,048 characters without userinfo, else 422 in pydantic's URL words naming it,
 * nothing written; its credentials masked as base_url's, and kept when a URL comes
 * back as admin was shown it; and pools as code plans, applies and exports it
 * (a credential in it as a placeholder), the export applying back to no change.
 */
/* eslint-disable no-template-curly-in-string -- `${NAME}` placeholders are part of what is tested */
import assert from 'node:assert/strict'
import { afterEach, beforeEach, it } from 'node:test'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const url = (type: string) => `https://errors.pydantic.dev/2.5/v/${type}`
const parsing = (input: string, error: string) =>
  ({ type: 'url_parsing', loc: ['body', 'ws_url'], msg: `Input should be a valid URL, ${error}`, input, ctx: { error }, url: url('url_parsing') })

for (const dialect of dialects) {
  describeOn(dialect, 'provider ws_url', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect, { healthCheckTimer: false }) })
    afterEach(async () => { await t.close() })

    const shown = async (id: number) => (await t.request({ method: 'GET', url: `/api/providers/${id}` })).body
    const put = async (id: number, payload: Record<string, unknown>) => await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload })
    const stored = async (id: number) => (await t.database.db.selectFrom('providers').select('ws_url').where('id', '=', id).executeTakeFirstOrThrow()).ws_url
    const post = async (path: string, payload: unknown) => await t.request({ method: 'POST', url: path, payload: payload as Record<string, unknown> })

    it('is null unless set, after base_url in every record; an update leaving it out keeps it, null clears it, a URL replaces it', async () => {
      const plain = await createProvider(t, 'plain', { base_url: 'https://node.example' })
      const set = await createProvider(t, 'set', { base_url: 'https://node.example', ws_url: 'wss://node.example/ws' })
      const nulled = await createProvider(t, 'nulled', { ws_url: null })
      assert.deepEqual([(await shown(plain)).ws_url, (await shown(set)).ws_url, (await shown(nulled)).ws_url], [null, 'wss://node.example/ws', null])
      assert.deepEqual(Object.keys(await shown(set)).slice(0, 6), ['id', 'provider_id', 'name', 'category', 'base_url', 'ws_url'])
      const list = (await t.request({ method: 'GET', url: '/api/providers' })).body
      assert.deepEqual(list.map((p: { ws_url: string | null }) => p.ws_url), [null, 'wss://node.example/ws', null])

      const kept = await put(set, { description: 'kept' })
      assert.equal(kept.status, 200)
      assert.equal(kept.body.ws_url, 'wss://node.example/ws')
      assert.equal((await put(set, { ws_url: 'ws://127.0.0.1:8546' })).body.ws_url, 'ws://127.0.0.1:8546')
      assert.equal(await stored(set), 'ws://127.0.0.1:8546')
      const cleared = await put(set, { ws_url: null })
      assert.equal(cleared.status, 200)
      assert.equal(cleared.body.ws_url, null)
      assert.equal(await stored(set), null)
      assert.equal((await shown(set)).base_url, 'https://node.example', 'base_url untouched')
    })

    it('is in the data plane\'s member rows, following a change of the provider', async () => {
      const pool = await createPool(t, 'chain', { protocol: 'evm' })
      const own = await createProvider(t, 'own', { base_url: 'https://a.example', ws_url: 'wss://a.example/ws' })
      const derived = await createProvider(t, 'derived', { base_url: 'https://b.example' })
      await addMember(t, pool, own)
      await addMember(t, pool, derived)
      const urls = async () => (await t.app.runtime.members(pool))?.map((m) => [m.provider_id, m.ws_url])
      assert.deepEqual(await urls(), [[own, 'wss://a.example/ws'], [derived, null]])
      await put(derived, { ws_url: 'ws://b.example:8546' })
      await put(own, { ws_url: null })
      assert.deepEqual(await urls(), [[own, null], [derived, 'ws://b.example:8546']])
    })

    it('takes a ws:// or wss:// URL of up to 2,048 characters; anything else is a 422 naming ws_url, on create and update, nothing written', async () => {
      const longest = `wss://a.example/${'p'.repeat(2048 - 'wss://a.example/'.length)}`
      assert.equal((await shown(await createProvider(t, 'longest', { ws_url: longest }))).ws_url, longest)
      const refusals: Array<[unknown, Record<string, unknown>]> = [
        ['https://a.example/ws', {
          type: 'url_scheme', loc: ['body', 'ws_url'], msg: "URL scheme should be 'ws' or 'wss'", input: 'https://a.example/ws', ctx: { expected_schemes: "'ws' or 'wss'" }, url: url('url_scheme')
        }],
        ['a.example/ws', parsing('a.example/ws', 'relative URL without a base')],
        ['', parsing('', 'input is empty')],
        ['ws://', parsing('ws://', 'empty host')],
        ['wss://a.example:99999', parsing('wss://a.example:99999', 'invalid port number')],
        ['wss://a.example/a b', parsing('wss://a.example/a b', 'whitespace is not allowed in a URL')],
        [42, { type: 'string_type', loc: ['body', 'ws_url'], msg: 'Input should be a valid string', input: 42, url: url('string_type') }]
      ]
      const id = await createProvider(t, 'p', { ws_url: 'wss://kept.example' })
      for (const [wsUrl, issue] of refusals) {
        const created = await post('/api/providers', { name: 'bad', ws_url: wsUrl })
        assert.equal(created.status, 422, JSON.stringify(wsUrl))
        assert.deepEqual(created.body, { detail: [issue] }, JSON.stringify(wsUrl))
        const updated = await put(id, { ws_url: wsUrl })
        assert.equal(updated.status, 422, JSON.stringify(wsUrl))
        assert.deepEqual(updated.body, { detail: [issue] }, JSON.stringify(wsUrl))
      }
      const tooLong = await put(id, { ws_url: `${longest}p` })
      assert.equal(tooLong.status, 422)
      assert.deepEqual(tooLong.body.detail.map((d: { loc: unknown[], type: string, msg: string }) => [d.loc, d.type, d.msg]),
        [[['body', 'ws_url'], 'url_too_long', 'URL should have at most 2048 characters']])
      for (const withUser of ['wss://user:hunter2@a.example/ws', 'ws://token@a.example']) {
        const refused = await put(id, { ws_url: withUser })
        assert.equal(refused.status, 422, withUser)
        assert.deepEqual(refused.body.detail.map((d: { loc: unknown[], type: string }) => [d.loc, d.type]), [[['body', 'ws_url'], 'value_error']])
        assert.match(refused.body.detail[0].msg, /^Value error, ws_url may not carry credentials \(user:password@\); put them in auth_headers/)
        assert.doesNotMatch(JSON.stringify(refused.body), /hunter2/)
      }
      assert.equal((await t.request({ method: 'GET', url: '/api/providers' })).body.length, 2, 'no provider created')
      assert.equal(await stored(id), 'wss://kept.example', 'nothing written')
    })

    it('shows its credentials masked as base_url\'s, and keeps the stored ones when it comes back as admin was shown it', async () => {
      await t.close()
      const admin = { authorization: 'Bearer admin-secret-0123456789' }
      const reader = { authorization: 'Bearer read-secret-0123456789' }
      t = await buildTestApp(dialect, { healthCheckTimer: false }, { AUTH_TOKENS: 'ops:admin:admin-secret-0123456789,dash:read:read-secret-0123456789' })
      const created = await t.request({ method: 'POST', url: '/api/providers', headers: admin, payload: { name: 'keyed', ws_url: 'wss://node.example/ws?api_key=abc123&region=eu' } })
      assert.equal(created.status, 200, JSON.stringify(created.body))
      assert.equal(created.body.ws_url, 'wss://node.example/ws?api_key=***&region=eu')
      const id = created.body.provider_id
      assert.equal((await t.request({ method: 'GET', url: `/api/providers/${id}`, headers: reader })).body.ws_url, 'wss://node.example/ws?api_key=***&region=***')
      const back = await t.request({ method: 'PUT', url: `/api/providers/${id}`, headers: admin, payload: { ws_url: created.body.ws_url, description: 'edited' } })
      assert.equal(back.status, 200, JSON.stringify(back.body))
      assert.equal(await stored(id), 'wss://node.example/ws?api_key=abc123&region=eu', 'sent back as shown: the credential stays')
      const moved = await t.request({ method: 'PUT', url: `/api/providers/${id}`, headers: admin, payload: { ws_url: 'wss://node.example/ws?api_key=new-key&region=us' } })
      assert.equal(moved.body.ws_url, 'wss://node.example/ws?api_key=***&region=us')
      assert.equal(await stored(id), 'wss://node.example/ws?api_key=new-key&region=us')
    })

    it('is planned, applied and exported by pools as code, a credential in it as a placeholder; the export applies back to no change', async () => {
      const state = (wsUrl?: string | null) => ({
        providers: [{ name: 'node-a', base_url: 'https://a.example', ...(wsUrl === undefined ? {} : { ws_url: wsUrl }) }],
        pools: [{ name: 'chain', category: 'rpc', protocol: 'evm', members: [{ provider: 'node-a' }] }]
      })
      const created = await post('/api/config/plan', state('wss://a.example/ws?api_key=K1'))
      assert.deepEqual(created.body.changes[0].fields.ws_url, { from: null, to: 'wss://a.example/ws?api_key=***' })
      assert.equal((await post('/api/config/apply', state('wss://a.example/ws?api_key=K1'))).status, 200)
      const id = (await t.request({ method: 'GET', url: '/api/providers' })).body[0].id
      assert.equal(await stored(id), 'wss://a.example/ws?api_key=K1')

      const exported = (await t.request({ method: 'GET', url: '/api/config/export' })).body
      assert.equal(exported.providers[0].ws_url, 'wss://a.example/ws?api_key=${SOURCEPOOL_NODE_A_API_KEY}')
      const unfilled = await post('/api/config/plan', exported)
      assert.equal(unfilled.status, 422, 'a placeholder must be filled in first')
      assert.deepEqual(unfilled.body.detail.map((d: { loc: unknown[] }) => d.loc), [['body', 'providers', 0, 'ws_url']])
      const filled = { ...exported, providers: [{ ...exported.providers[0], ws_url: 'wss://a.example/ws?api_key=K1' }] }
      assert.deepEqual((await post('/api/config/plan', filled)).body.changes, [], 'the export, filled in, applies back to no change')

      const newKey = [{ kind: 'provider', action: 'update', name: 'node-a', fields: { ws_url: { from: 'wss://a.example/ws?api_key=***', to: 'wss://a.example/ws?api_key=*** (changed)' } } }]
      assert.deepEqual((await post('/api/config/plan', state('wss://a.example/ws?api_key=K2'))).body.changes, newKey)
      const back = [{ kind: 'provider', action: 'update', name: 'node-a', fields: { ws_url: { from: 'wss://a.example/ws?api_key=***', to: null } } }]
      assert.deepEqual((await post('/api/config/apply', state())).body.changes, back, 'left out, it is null')
      assert.equal(await stored(id), null)
      assert.equal('ws_url' in (await t.request({ method: 'GET', url: '/api/config/export' })).body.providers[0], false, 'null is left out')

      const bad = await post('/api/config/plan', state('http://a.example/ws'))
      assert.equal(bad.status, 422, JSON.stringify(bad.body))
      assert.deepEqual(bad.body.detail.map((d: { loc: unknown[], type: string }) => [d.loc, d.type]), [[['body', 'providers', 0, 'ws_url'], 'url_scheme']])
    })
  })
}
