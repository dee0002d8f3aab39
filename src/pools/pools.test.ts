import assert from 'node:assert/strict'
import { afterEach, beforeEach, describe, it } from 'node:test'
import { DOCUMENTED_STREAM_DEFAULTS, ISO_UTC, addMember, createPool, createProvider, rotateTimes } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

for (const dialect of dialects) {
  describeOn(dialect, 'pools', () => {
    let t: TestApp
    beforeEach(async () => { t = await buildTestApp(dialect) })
    afterEach(async () => { await t.close() })

    describe('POST /api/pools', () => {
      it('creates a pool with the spec fields and the round_robin default', async () => {
        const res = await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'quotes', category: 'market-data' } })
        assert.equal(res.status, 200)
        assert.deepEqual(Object.keys(res.body).sort(), ['category', 'created_at', 'message', 'name', 'pool_id', 'rotation_strategy'])
        assert.equal(res.body.name, 'quotes')
        assert.equal(res.body.category, 'market-data')
        assert.equal(res.body.rotation_strategy, 'round_robin')
        assert.match(res.body.created_at, ISO_UTC)
        assert.equal(typeof res.body.pool_id, 'number')
        assert.equal(res.body.message, "Pool 'quotes' created successfully")
      })

      it('stores description and strategy, and the pool starts enabled', async () => {
        const id = await createPool(t, 'rpc', { description: 'RPC nodes', rotation_strategy: 'weighted' })
        const res = await t.request({ method: 'GET', url: `/api/pools/${id}` })
        assert.equal(res.body.description, 'RPC nodes')
        assert.equal(res.body.rotation_strategy, 'weighted')
        assert.equal(res.body.enabled, true)
      })

      it('answers 500 "Failed to create pool" for a duplicate name', async () => {
        await createPool(t, 'dup')
        const res = await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'dup', category: 'x' } })
        assert.equal(res.status, 500)
        assert.deepEqual(res.body, { detail: "Failed to create pool: pool name 'dup' already exists" })
      })

      it('answers 422 in FastAPI 0.104 + pydantic 2.5 shape for missing fields, wrong types and unknown strategies', async () => {
        const res = await t.request({ method: 'POST', url: '/api/pools', payload: { category: 7, rotation_strategy: 'fastest' } })
        assert.equal(res.status, 422)
        const sent = { category: 7, rotation_strategy: 'fastest' }
        const expected = "'round_robin', 'weighted', 'priority', 'least_used', 'random', 'least_latency', 'least_outstanding' or 'consistent_hash'"
        assert.deepEqual(res.body.detail, [
          { type: 'missing', loc: ['body', 'name'], msg: 'Field required', input: sent, url: 'https://errors.pydantic.dev/2.5/v/missing' },
          { type: 'string_type', loc: ['body', 'category'], msg: 'Input should be a valid string', input: 7, url: 'https://errors.pydantic.dev/2.5/v/string_type' },
          // pydantic 2.5 checks an Enum with a custom error: no url.
          { type: 'enum', loc: ['body', 'rotation_strategy'], msg: `Input should be ${expected}`, input: 'fastest', ctx: { expected } }
        ])
        const list = await t.request({ method: 'GET', url: '/api/pools' })
        assert.equal(list.body.total, 0)
      })

      it('answers 422 for a missing body and for malformed JSON', async () => {
        const none = await t.request({ method: 'POST', url: '/api/pools' })
        assert.equal(none.status, 422)
        assert.deepEqual(none.body, { detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null, url: 'https://errors.pydantic.dev/2.5/v/missing' }] })
        const bad = await t.request({ method: 'POST', url: '/api/pools', headers: { 'content-type': 'application/json' }, payload: '{"name": ' })
        assert.equal(bad.status, 422)
        assert.deepEqual(bad.body, { detail: [{ type: 'json_invalid', loc: ['body', 9], msg: 'JSON decode error', input: {}, ctx: { error: 'Expecting value' } }] })
      })

      it('ignores unknown extra fields', async () => {
        const res = await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'x', category: 'y', colour: 'red' } })
        assert.equal(res.status, 200)
        assert.equal(res.body.colour, undefined)
      })

      it('answers 413 for a body over 1 MiB', async () => {
        const res = await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'big', category: 'x', description: 'a'.repeat(1024 * 1024) } })
        assert.equal(res.status, 413)
        assert.deepEqual(res.body, { detail: 'Request body is too large' })
      })
    })

    describe('GET /api/pools', () => {
      it('answers an empty list with total 0 and a timestamp', async () => {
        const res = await t.request({ method: 'GET', url: '/api/pools' })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body.pools, [])
        assert.equal(res.body.total, 0)
        assert.match(res.body.timestamp, ISO_UTC)
      })

      it('lists status records ordered by pool_id, each with its own members and history', async () => {
        const a = await createPool(t, 'a')
        const b = await createPool(t, 'b')
        const p1 = await createProvider(t, 'p1')
        const p2 = await createProvider(t, 'p2')
        await addMember(t, a, p1)
        await addMember(t, b, p2)
        await addMember(t, b, p1)
        await rotateTimes(t, b, 2)
        const res = await t.request({ method: 'GET', url: '/api/pools' })
        assert.equal(res.status, 200)
        assert.equal(res.body.total, 2)
        assert.deepEqual(res.body.pools.map((p: any) => p.pool_id), [a, b])
        assert.deepEqual(res.body.pools[0].members.map((m: any) => m.provider_id), [p1])
        assert.deepEqual(res.body.pools[1].members.map((m: any) => m.provider_id), [p2, p1])
        assert.equal(res.body.pools[0].recent_rotations.length, 0)
        assert.equal(res.body.pools[1].recent_rotations.length, 2)
        const one = await t.request({ method: 'GET', url: `/api/pools/${b}` })
        assert.deepEqual(res.body.pools[1], one.body)
      })
    })

    describe('GET /api/pools/:pool_id', () => {
      it('answers the full status record', async () => {
        const id = await createPool(t, 'status', { description: 'd' })
        const provider = await createProvider(t, 'alpha')
        const memberId = await addMember(t, id, provider, { priority: 3, weight: 2 })
        await rotateTimes(t, id, 1)
        const res = await t.request({ method: 'GET', url: `/api/pools/${id}` })
        assert.equal(res.status, 200)
        const body = res.body
        assert.deepEqual(Object.keys(body).sort(), [
          'cache', 'category', 'created_at', 'current_provider', 'description', 'enabled', 'last_rotation', 'members', 'name',
          'policy', 'pool_id', 'pool_name', 'recent_rotations', 'retries', 'rotation_strategy', 'streams', 'total_rotations', 'updated_at'
        ])
        assert.deepEqual(body.streams, { open: 0, subscriptions: 0, failovers: 0, messages_to_clients: 0, messages_to_upstreams: 0, upstreams: [] })
        assert.deepEqual(body.policy, {
          failure_threshold: 3,
          cooldown_seconds: 30,
          max_cooldown_seconds: 300,
          all_down: 'soonest',
          max_attempts: 3,
          retry_non_idempotent: false,
          forward_client_auth: false,
          forbidden_ttl_seconds: 3600,
          cache_ttl_seconds: 0,
          cache_stale_seconds: 0,
          max_wait_ms: 0,
          deadline_ms: 30_000,
          retry_budget_percent: 20,
          retry_backoff_ms: 0,
          hedge_after_ms: null,
          protocol: 'http',
          finality_depth: 64,
          cache_unfinalized_ms: 0,
          head_check_interval_s: 5,
          max_block_lag: 5,
          broadcast_writes: false,
          ...DOCUMENTED_STREAM_DEFAULTS
        })
        assert.deepEqual(body.cache, { ttl_seconds: 0, stale_seconds: 0, hits: 0, misses: 0, stale: 0, entries: 0, hit_ratio: 0 })
        assert.deepEqual(body.retries, { made: 0, hedges: 0, budget_exhausted: 0 })
        assert.equal(body.pool_id, id)
        assert.equal(body.name, 'status')
        assert.equal(body.pool_name, 'status')
        assert.deepEqual(body.current_provider, { id: provider, provider_id: provider, name: 'alpha', status: 'active' })
        assert.equal(body.total_rotations, 1)
        assert.match(body.last_rotation, ISO_UTC)
        assert.equal(body.members.length, 1)
        const member = body.members[0]
        assert.deepEqual({ ...member, last_used: undefined }, {
          member_id: memberId,
          provider_id: provider,
          provider_name: 'alpha',
          priority: 3,
          weight: 2,
          enabled: true,
          use_count: 1,
          success_count: 0,
          failure_count: 0,
          last_used: undefined,
          health: 'healthy',
          cooldown_until: null,
          cooldown_reason: null,
          consecutive_failures: 0,
          latency_ms: null,
          success_rate: 0,
          quota: null,
          rate_limit: null,
          last_check: null,
          eligible: true,
          ineligible_reason: null,
          eligible_again_at: null
        })
        assert.match(member.last_used, ISO_UTC)
        assert.equal(body.recent_rotations.length, 1)
        assert.equal(body.recent_rotations[0].to_provider, 'alpha')
      })

      it('shows whether each member may be chosen, and why not, as /next does', async () => {
        const id = await createPool(t, 'eligibility', { failure_threshold: 1, cooldown_seconds: 60 })
        const [on, off, cooling] = [await createProvider(t, 'on'), await createProvider(t, 'off'), await createProvider(t, 'cooling')]
        for (const provider of [on, off, cooling]) await addMember(t, id, provider)
        await t.request({ method: 'PUT', url: `/api/pools/${id}/members/${off}`, payload: { enabled: false } })
        const report = await t.request({ method: 'POST', url: `/api/pools/${id}/report`, payload: { provider_id: cooling, success: false } })
        assert.equal(report.status, 200)
        const res = await t.request({ method: 'GET', url: `/api/pools/${id}` })
        const shown = res.body.members.map((m: any) => [m.provider_id, m.eligible, m.ineligible_reason, m.eligible_again_at])
        const cooldownUntil = res.body.members[2].cooldown_until
        assert.match(cooldownUntil, ISO_UTC)
        assert.deepEqual(shown, [[on, true, null, null], [off, false, 'disabled', null], [cooling, false, 'cooling_down', cooldownUntil]])
        const next = await t.request({ method: 'GET', url: `/api/pools/${id}/next` })
        assert.deepEqual(next.body.members.map((m: any) => [m.provider_id, m.eligible, m.reason, m.until]), shown)
        const list = await t.request({ method: 'GET', url: '/api/pools' })
        assert.deepEqual(list.body.pools[0].members, res.body.members)
      })

      it('reads a cooling-down member as eligible again once its cooldown has run out, without any write', async () => {
        let clock = Date.parse('2026-01-01T00:00:00.000Z')
        await t.close()
        t = await buildTestApp(dialect, { now: () => new Date(clock) })
        const id = await createPool(t, 'later', { failure_threshold: 1, cooldown_seconds: 30 })
        const provider = await createProvider(t, 'p')
        await addMember(t, id, provider)
        await t.request({ method: 'POST', url: `/api/pools/${id}/report`, payload: { provider_id: provider, success: false } })
        const cooling = (await t.request({ method: 'GET', url: `/api/pools/${id}` })).body.members[0]
        assert.deepEqual([cooling.eligible, cooling.ineligible_reason, cooling.eligible_again_at], [false, 'cooling_down', '2026-01-01T00:00:30.000Z'])
        clock += 30_000
        const again = (await t.request({ method: 'GET', url: `/api/pools/${id}` })).body.members[0]
        assert.deepEqual([again.eligible, again.ineligible_reason, again.eligible_again_at, again.health], [true, null, null, 'probing'])
      })

      it('shows the cache counters the proxy wrote, with (hits + stale) / all as the hit ratio', async () => {
        const id = await createPool(t, 'cached', { cache_ttl_seconds: 60, cache_stale_seconds: 30 })
        await t.database.db.updateTable('pools')
          .set((eb) => ({ cache_hits: 3, cache_stale: 1, cache_misses: 2, cache_entries: 4, change_seq: eb('change_seq', '+', 1) }))
          .where('id', '=', id).execute()
        const res = await t.request({ method: 'GET', url: `/api/pools/${id}` })
        assert.deepEqual(res.body.cache, { ttl_seconds: 60, stale_seconds: 30, hits: 3, misses: 2, stale: 1, entries: 4, hit_ratio: 0.6667 })
        const list = await t.request({ method: 'GET', url: '/api/pools' })
        assert.deepEqual(list.body.pools[0].cache, res.body.cache)
        const summary = await t.request({ method: 'GET', url: '/api/pools?fields=summary' })
        assert.equal(summary.body.pools[0].cache, undefined)
      })

      it('carries at most the 10 newest history records', async () => {
        const id = await createPool(t, 'many')
        await addMember(t, id, await createProvider(t, 'x'))
        await addMember(t, id, await createProvider(t, 'y'))
        await rotateTimes(t, id, 12)
        const res = await t.request({ method: 'GET', url: `/api/pools/${id}` })
        assert.equal(res.body.recent_rotations.length, 10)
        const history = await t.request({ method: 'GET', url: `/api/pools/${id}/history?limit=10` })
        assert.deepEqual(res.body.recent_rotations, history.body.history)
      })

      it('answers a new pool with no current provider and no rotations', async () => {
        const id = await createPool(t, 'fresh')
        const res = await t.request({ method: 'GET', url: `/api/pools/${id}` })
        assert.equal(res.body.current_provider, null)
        assert.equal(res.body.last_rotation, null)
        assert.equal(res.body.total_rotations, 0)
        assert.deepEqual(res.body.members, [])
      })

      it('answers 404 "Pool <id> not found" for an unknown pool', async () => {
        const res = await t.request({ method: 'GET', url: '/api/pools/999' })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { detail: 'Pool 999 not found' })
      })

      it('answers 422 for a non-integer pool id', async () => {
        const res = await t.request({ method: 'GET', url: '/api/pools/abc' })
        assert.equal(res.status, 422)
        assert.deepEqual(res.body, {
          detail: [{ type: 'int_parsing', loc: ['path', 'pool_id'], msg: 'Input should be a valid integer, unable to parse string as an integer', input: 'abc', url: 'https://errors.pydantic.dev/2.5/v/int_parsing' }]
        })
      })
    })

    describe('PUT /api/pools/:pool_id', () => {
      it('changes only the fields sent and not null, and always refreshes updated_at', async () => {
        let clock = Date.parse('2026-01-01T00:00:00.000Z')
        await t.close()
        t = await buildTestApp(dialect, { now: () => new Date(clock) })
        const id = await createPool(t, 'upd', { description: 'first' })
        clock += 60_000
        const res = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { enabled: false, description: null } })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, {
          pool_id: id,
          name: 'upd',
          rotation_strategy: 'round_robin',
          enabled: false,
          updated_at: '2026-01-01T00:01:00.000Z',
          message: "Pool 'upd' updated successfully"
        })
        clock += 60_000
        const empty = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: {} })
        assert.equal(empty.body.updated_at, '2026-01-01T00:02:00.000Z')
        assert.equal(empty.body.enabled, false)
        const status = await t.request({ method: 'GET', url: `/api/pools/${id}` })
        assert.equal(status.body.description, 'first')
        assert.equal(status.body.created_at, '2026-01-01T00:00:00.000Z')
        assert.equal(status.body.updated_at, '2026-01-01T00:02:00.000Z')
      })

      it('changes strategy and description, and re-enables', async () => {
        const id = await createPool(t, 'upd2')
        await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { enabled: false } })
        const res = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { rotation_strategy: 'priority', description: 'new', enabled: true } })
        assert.equal(res.body.rotation_strategy, 'priority')
        assert.equal(res.body.enabled, true)
        const status = await t.request({ method: 'GET', url: `/api/pools/${id}` })
        assert.equal(status.body.description, 'new')
      })

      it('accepts a request with no body at all', async () => {
        const id = await createPool(t, 'nobody')
        const res = await t.request({ method: 'PUT', url: `/api/pools/${id}` })
        assert.equal(res.status, 200)
      })

      it('sets, changes and shows the cache and wait fields, and refuses them out of range with 422', async () => {
        const id = await createPool(t, 'cache', { cache_ttl_seconds: 86_400, cache_stale_seconds: 0, max_wait_ms: 30_000 })
        const policy = async () => {
          const { policy: p, cache } = (await t.request({ method: 'GET', url: `/api/pools/${id}` })).body
          return [p.cache_ttl_seconds, p.cache_stale_seconds, p.max_wait_ms, cache.ttl_seconds, cache.stale_seconds]
        }
        assert.deepEqual(await policy(), [86_400, 0, 30_000, 86_400, 0])
        const res = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { cache_ttl_seconds: 0, cache_stale_seconds: 86_400, max_wait_ms: 250 } })
        assert.equal(res.status, 200)
        assert.deepEqual(await policy(), [0, 86_400, 250, 0, 86_400])
        await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { cache_ttl_seconds: 30, cache_stale_seconds: null, max_wait_ms: null } })
        assert.deepEqual(await policy(), [30, 86_400, 250, 30, 86_400])
        const out = { cache_ttl_seconds: 86_401, cache_stale_seconds: -1, max_wait_ms: 30_001 }
        const errors = (body: any) => body.detail.map((d: any) => [d.loc.join('.'), d.type, d.input])
        const expected = [['body.cache_ttl_seconds', 'less_than_equal', 86_401], ['body.cache_stale_seconds', 'greater_than_equal', -1], ['body.max_wait_ms', 'less_than_equal', 30_001]]
        const badUpdate = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: out })
        assert.equal(badUpdate.status, 422)
        assert.deepEqual(errors(badUpdate.body), expected)
        const badCreate = await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'over', category: 'x', ...out } })
        assert.equal(badCreate.status, 422)
        assert.deepEqual(errors(badCreate.body), expected)
        const fraction = await t.request({ method: 'POST', url: '/api/pools', payload: { name: 'half', category: 'x', max_wait_ms: 1.5 } })
        assert.deepEqual(errors(fraction.body), [['body.max_wait_ms', 'int_from_float', 1.5]])
        assert.deepEqual(await policy(), [30, 86_400, 250, 30, 86_400])
        assert.equal((await t.request({ method: 'GET', url: '/api/pools' })).body.total, 1)
      })

      it('answers 404 for an unknown pool and 422 for a bad field', async () => {
        const missing = await t.request({ method: 'PUT', url: '/api/pools/404', payload: { enabled: true } })
        assert.equal(missing.status, 404)
        assert.deepEqual(missing.body, { detail: 'Pool 404 not found' })
        const id = await createPool(t, 'bad')
        const bad = await t.request({ method: 'PUT', url: `/api/pools/${id}`, payload: { enabled: 'yes please' } })
        assert.equal(bad.status, 422)
        assert.deepEqual(bad.body.detail, [{ type: 'bool_type', loc: ['body', 'enabled'], msg: 'Input should be a valid boolean', input: 'yes please', url: 'https://errors.pydantic.dev/2.5/v/bool_type' }])
      })
    })

    describe('DELETE /api/pools/:pool_id', () => {
      it('removes the pool, its members and its history, and names it in the message', async () => {
        const id = await createPool(t, 'gone')
        const provider = await createProvider(t, 'stays')
        await addMember(t, id, provider)
        await rotateTimes(t, id, 1)
        const res = await t.request({ method: 'DELETE', url: `/api/pools/${id}` })
        assert.equal(res.status, 200)
        assert.deepEqual(res.body, { message: "Pool 'gone' deleted successfully", pool_id: id })
        assert.equal((await t.request({ method: 'GET', url: `/api/pools/${id}` })).status, 404)
        const history = await t.request({ method: 'GET', url: `/api/pools/${id}/history` })
        assert.deepEqual(history.body, { pool_id: id, history: [], total: 0 })
        assert.equal((await t.request({ method: 'GET', url: `/api/providers/${provider}` })).status, 200)
      })

      it('answers 404 for an unknown pool', async () => {
        const res = await t.request({ method: 'DELETE', url: '/api/pools/77' })
        assert.equal(res.status, 404)
        assert.deepEqual(res.body, { detail: 'Pool 77 not found' })
      })
    })
  })
}
