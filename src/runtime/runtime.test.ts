/**
 * The pool runtime in one process, through the proxy: choices in memory with
 * today's strategy sequences, counters written behind in one transaction per
 * flush, history for failovers and health changes only, quota leases exact,
 * and API changes honoured at once.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, it } from 'node:test'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

/** An upstream answering `status` with its own name, counting what it saw. */
async function upstream (name: string, status = 200): Promise<{ url: string, seen: () => number, setStatus: (s: number) => void, close: () => Promise<void> }> {
  let seen = 0
  let answer = status
  const server: Server = createServer((_req, res) => {
    seen++
    res.writeHead(answer, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ name }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: () => seen,
    setStatus: (s) => { answer = s },
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

for (const dialect of dialects) {
  describeOn(dialect, 'pool runtime (data plane)', () => {
    let t: TestApp
    let closers: Array<() => Promise<void>> = []
    let clock = Date.parse('2026-03-01T10:00:00.000Z')

    afterEach(async () => {
      for (const close of closers) await close()
      closers = []
      await t?.close()
    })

    /** A pool over one upstream per name (created in that order, so member ids follow it). */
    async function pool (names: string[], extra: Record<string, unknown> = {}, providerExtra: (i: number) => Record<string, unknown> = () => ({})) {
      const ups = []
      for (const name of names) {
        const u = await upstream(name)
        closers.push(u.close)
        ups.push(u)
      }
      const poolId = await createPool(t, `p-${names.join('')}`, extra)
      const providers: number[] = []
      for (const [i, u] of ups.entries()) {
        const id = await createProvider(t, names[i] as string, { base_url: u.url, ...providerExtra(i) })
        providers.push(id)
        await addMember(t, poolId, id, i === 0 ? { weight: extra.rotation_strategy === 'weighted' ? 5 : 1 } : {})
      }
      return { poolId, providers, ups }
    }

    const proxy = async (poolId: number) => await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/x` })

    it('chooses in memory by the same sequences as the API: weighted 5,1,1 gives A B A A C A A', async () => {
      t = await buildTestApp(dialect)
      const { poolId } = await pool(['A', 'B', 'C'], { rotation_strategy: 'weighted' })
      const served: string[] = []
      for (let i = 0; i < 7; i++) served.push(String((await proxy(poolId)).headers['x-sourcepool-provider']))
      assert.deepEqual(served, ['A', 'B', 'A', 'A', 'C', 'A', 'A'])
    })

    it('counts every proxied attempt in memory and writes them down in one transaction per flush, with no history row per step', async () => {
      // The timers stay out of the way: this test flushes by hand, and the health checks'
      // claim (a transaction every 250 ms) would be counted beside the flush's.
      t = await buildTestApp(dialect, { healthCheckTimer: false }, { FLUSH_INTERVAL_MS: '60000' })
      const { poolId } = await pool(['A', 'B'])
      const stored = async () => await t.database.db.selectFrom('pool_members').select(['use_count', 'success_count']).where('pool_id', '=', poolId).orderBy('id').execute()
      await t.app.runtime.flush()
      for (let i = 0; i < 10; i++) assert.equal((await proxy(poolId)).statusCode, 200)
      // Nothing written yet: the database still has the counts of before.
      assert.deepEqual((await stored()).map((m) => m.use_count), [0, 0])
      let transactions = 0
      const transact = t.database.transact
      t.database.transact = async (work, committed) => { transactions++; return await transact(work, committed) }
      await t.app.runtime.flush()
      t.database.transact = transact
      assert.equal(transactions, 1)
      assert.deepEqual(await stored(), [{ use_count: 5, success_count: 5 }, { use_count: 5, success_count: 5 }])
      const status = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
      assert.equal(status.total_rotations, 10)
      assert.equal(status.current_provider.name, 'B')
      assert.deepEqual((await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history, [])
    })

    it('records a cooldown started and a member recovered in the history, as health changes', async () => {
      t = await buildTestApp(dialect, { now: () => new Date(clock) })
      const { poolId, ups } = await pool(['A', 'B'], { rotation_strategy: 'priority', failure_threshold: 1, cooldown_seconds: 30 })
      ups[0]?.setStatus(500)
      assert.equal((await proxy(poolId)).headers['x-sourcepool-provider'], 'B')
      ups[0]?.setStatus(200)
      clock += 31_000
      // The cooldown is over: A is probed (round robin among equal priorities reaches it), answers, and is healthy again.
      for (let i = 0; i < 2; i++) await proxy(poolId)
      const history = (await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })).body.history.reverse()
      assert.deepEqual(history.map((h: any) => [h.from_provider, h.to_provider, h.reason, h.success]), [
        ['A', null, 'cooldown:consecutive_failures', false],
        ['A', 'B', 'proxy:http_500', true],
        [null, 'A', 'recovered', true]
      ])
      const member = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members[0]
      assert.deepEqual([member.health, member.cooldown_until], ['healthy', null])
    })

    it('never hands out more than the quota, and gives back what it leased and did not use', async () => {
      t = await buildTestApp(dialect, { now: () => new Date(clock) })
      const { poolId, ups } = await pool(['Q'], {}, () => ({ rate_limit: { requests: 5, per: 'minute' } }))
      const statuses: number[] = []
      for (let i = 0; i < 8; i++) statuses.push((await proxy(poolId)).statusCode)
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 503, 503, 503])
      assert.equal(ups[0]?.seen(), 5)
      await t.app.runtime.flush()
      const stored = await t.database.db.selectFrom('providers').select('quota_used').executeTakeFirstOrThrow()
      assert.equal(stored.quota_used, 5)
      // A new window: the quota is there again.
      clock += 60_000
      assert.equal((await proxy(poolId)).statusCode, 200)
      await t.app.runtime.flush()
      const member = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.members[0]
      assert.equal(member.quota.used, 1)
    })

    it('keeps flushing when another process deleted a pool whose proxied traffic is pending', async () => {
      t = await buildTestApp(dialect, {}, { FLUSH_INTERVAL_MS: '60000' })
      const doomed = await pool(['A', 'B'], { failure_threshold: 1 })
      const kept = await pool(['C'])
      doomed.ups[0]?.setStatus(500)
      assert.equal((await proxy(doomed.poolId)).headers['x-sourcepool-provider'], 'B')
      assert.equal((await proxy(kept.poolId)).statusCode, 200)
      // Deleted behind this process's back, with a failover and a cooldown of it pending here.
      await t.database.db.deleteFrom('pools').where('id', '=', doomed.poolId).execute()
      await t.app.runtime.flush()
      const stored = await t.database.db.selectFrom('pool_members').select('use_count').where('pool_id', '=', kept.poolId).executeTakeFirstOrThrow()
      assert.equal(stored.use_count, 1)
      assert.equal((await proxy(doomed.poolId)).statusCode, 404)
    })

    it('honours an API change at once: a member disabled, a failure reported', async () => {
      t = await buildTestApp(dialect)
      const { poolId, providers, ups } = await pool(['A', 'B'], { failure_threshold: 1 })
      await proxy(poolId)
      const disabled = await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers[1]}`, payload: { enabled: false } })
      assert.equal(disabled.status, 200)
      for (let i = 0; i < 3; i++) assert.equal((await proxy(poolId)).headers['x-sourcepool-provider'], 'A')
      await t.request({ method: 'PUT', url: `/api/pools/${poolId}/members/${providers[1]}`, payload: { enabled: true } })
      const reported = await t.request({ method: 'POST', url: `/api/pools/${poolId}/report`, payload: { provider_id: providers[0], success: false } })
      assert.equal(reported.body.health, 'cooling_down')
      const before = ups[0]?.seen()
      for (let i = 0; i < 3; i++) assert.equal((await proxy(poolId)).headers['x-sourcepool-provider'], 'B')
      assert.equal(ups[0]?.seen(), before)
    })

    it('least_outstanding moves traffic away from a member holding a slow request, and back once it is answered', async () => {
      t = await buildTestApp(dialect)
      let hold = true
      let heldAtSlow: () => void = () => {}
      const reachedSlow = new Promise<void>((resolve) => { heldAtSlow = resolve })
      const waiting: Array<() => void> = []
      const slow: Server = createServer((_req, res) => {
        heldAtSlow()
        const answer = () => { res.writeHead(200); res.end('slow') }
        if (hold) waiting.push(answer)
        else answer()
      })
      await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve))
      closers.push(async () => { slow.closeAllConnections(); await new Promise((resolve) => slow.close(resolve)) })
      const fast = await upstream('F')
      closers.push(fast.close)
      const poolId = await createPool(t, 'lo', { rotation_strategy: 'least_outstanding' })
      for (const [name, url] of [['S', `http://127.0.0.1:${(slow.address() as AddressInfo).port}`], ['F', fast.url]] as Array<[string, string]>) {
        await addMember(t, poolId, await createProvider(t, name, { base_url: url }))
      }
      // Nothing in flight, no use yet: the tie goes to the lower member id, the slow one, which holds it.
      const held = proxy(poolId)
      await reachedSlow
      const served: string[] = []
      for (let i = 0; i < 5; i++) served.push(String((await proxy(poolId)).headers['x-sourcepool-provider']))
      assert.deepEqual(served, ['F', 'F', 'F', 'F', 'F'])
      hold = false
      for (const answer of waiting.splice(0)) answer()
      assert.equal((await held).headers['x-sourcepool-provider'], 'S')
      // Nothing in flight again: the tie goes to the less used member.
      assert.equal((await proxy(poolId)).headers['x-sourcepool-provider'], 'S')
      // Through the API nothing is in flight: least_used.
      const next = await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/next` })
      assert.equal(JSON.parse(next.body).provider_name, 'S')
    })

    it('consistent_hash keeps a key (x-sourcepool-key) on its member through the proxy, and the header stays here', async () => {
      t = await buildTestApp(dialect)
      const { poolId } = await pool(['A', 'B', 'C'], { rotation_strategy: 'consistent_hash' })
      const viaKey = async (key: string) => (await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}/proxy/x`, headers: { 'x-sourcepool-key': key } }))
      const placed = new Map<string, string>()
      for (let i = 0; i < 12; i++) placed.set(`k${i}`, String((await viaKey(`k${i}`)).headers['x-sourcepool-provider']))
      for (const [key, provider] of placed) assert.equal((await viaKey(key)).headers['x-sourcepool-provider'], provider, key)
      assert.ok(new Set(placed.values()).size >= 2)
      assert.equal((await viaKey('k'.repeat(257))).statusCode, 400)
    })

    it('writes pending proxied traffic down before an /api call, never before /healthz, /metrics or the docs', async () => {
      t = await buildTestApp(dialect, {}, { FLUSH_INTERVAL_MS: '60000' })
      const { poolId } = await pool(['A'])
      await proxy(poolId)
      assert.equal(t.app.runtime.unsettled(), true)
      for (const url of ['/healthz', '/metrics', '/openapi.json']) {
        assert.equal((await t.app.inject({ method: 'GET', url })).statusCode, 200, url)
        assert.equal(t.app.runtime.unsettled(), true, `${url} waited for a flush`)
      }
      // Many API calls at once share the flushes they wait for.
      const answers = await Promise.all(Array.from({ length: 20 }, async () => await t.app.inject({ method: 'GET', url: `/api/pools/${poolId}` })))
      assert.ok(answers.every((a) => a.statusCode === 200 && JSON.parse(a.body).members[0].use_count === 1))
      assert.equal(t.app.runtime.unsettled(), false)
    })
  })
}
