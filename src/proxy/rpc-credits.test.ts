/**
 * Quota in credits (issue 36 item 8) through an `evm` pool to a real Ethereum node
 * (ganache), on both databases: each call spends what its method costs at the
 * provider (eth_getLogs more than eth_blockNumber; any other call and a request that
 * is not a JSON-RPC call the default) and the status record shows the credits used,
 * exactly; a provider with too few credits left for a dear call is passed over for
 * it (another member serves it, or the pool's usual 503) and still serves cheap ones
 * to its last credit; and each call of a batch is charged its own cost. Exactness
 * across processes: test/runtime-processes.test.ts.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { startNode, type Node } from '../../test/ganache.js'
import { poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const LIMIT = { timeout: 60_000 }
const COSTS = { eth_getLogs: 75, eth_blockNumber: 10, '*': 3 }
const LOGS = { fromBlock: '0x0', toBlock: '0x0' }

for (const dialect of dialects) {
  describeOn(dialect, 'quota in credits through an evm pool', () => {
    let t: TestApp
    let base: string
    let node: Node

    before(async () => {
      node = await startNode()
      t = await buildTestApp(dialect, { healthCheckTimer: false })
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      await t?.close()
      await node?.close()
    })

    /** Sends one call (or a batch) to the pool; the answer and the provider that served it. */
    async function send (pool: string, body: unknown): Promise<{ status: number, body: any, provider: string | null }> {
      const res = await fetch(`${base}/p/${pool}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      return { status: res.status, body: await res.json(), provider: res.headers.get('x-sourcepool-provider') }
    }
    const call = async (pool: string, method: string, params: unknown[] = []) => await send(pool, { jsonrpc: '2.0', id: 1, method, params })
    /** The member's quota as its pool's status record shows it, after this process gave back what it leased and did not use. */
    async function quotaOf (poolId: number, providerId: number) {
      await t.app.runtime.flush()
      const record = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
      const member = record.members.find((m: { provider_id: number }) => m.provider_id === providerId)
      return { quota: member.quota, rate_limit: member.rate_limit, eligible: member.eligible }
    }

    it('spends what each call costs, eth_getLogs more than eth_blockNumber, and the status record shows the credits used exactly', LIMIT, async () => {
      const { poolId, providers } = await poolOfUrls(t, 'metered', [node.url], { protocol: 'evm' }, { rate_limit: { credits: 10_000, per: 'day' }, method_costs: COSTS })
      const id = providers[0] as number
      assert.equal((await call('metered', 'eth_blockNumber')).body.result, '0x0')
      assert.equal((await quotaOf(poolId, id)).quota.used, 10)
      assert.deepEqual((await call('metered', 'eth_getLogs', [LOGS])).body.result, [])
      assert.equal((await quotaOf(poolId, id)).quota.used, 85)
      assert.equal((await call('metered', 'eth_blockNumber')).body.result, '0x0')
      assert.equal((await call('metered', 'eth_chainId')).body.result, '0x539')
      // A request that is not a JSON-RPC call (a GET of the node) costs the default.
      await (await fetch(`${base}/p/metered/`)).arrayBuffer()
      const { quota, rate_limit: usage } = await quotaOf(poolId, id)
      assert.deepEqual({ ...quota, resets_at: '' }, { used: 10 + 75 + 10 + 3 + 3, limit: 10_000, unit: 'credits', resets_at: '' })
      assert.deepEqual([usage.usage, usage.limit, usage.status], [101, 10_000, 'ok'])
    })

    it('passes over a provider with too few credits left for a dear call, which still serves cheap ones to its last credit', LIMIT, async () => {
      // Priority: the metered provider first, an unmetered one behind it.
      const { poolId, providers } = await poolOfUrls(t, 'tight', [node.url, node.url], { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
      const [metered, spare] = providers as [number, number]
      await t.request({ method: 'PUT', url: `/api/providers/${metered}`, payload: { rate_limit: { credits: 100, per: 'day' }, method_costs: { eth_getLogs: 75, '*': 10 } } })
      for (let i = 0; i < 8; i++) assert.equal((await call('tight', 'eth_chainId')).provider, 'tight-0')
      // 20 credits left: an eth_getLogs (75) goes to the other member; eth_chainId (10) still to this one.
      const logs = await call('tight', 'eth_getLogs', [LOGS])
      assert.deepEqual([logs.body.result, logs.provider], [[], 'tight-1'])
      assert.equal((await call('tight', 'eth_chainId')).provider, 'tight-0')
      assert.deepEqual((await quotaOf(poolId, metered)).quota.used, 90)
      assert.equal((await quotaOf(poolId, spare)).quota, null)

      // With no one else, the dear call gets the pool's usual answer when no provider is available; the last 10 credits still serve.
      await poolOfUrls(t, 'alone', [], { protocol: 'evm' })
      const alone = (await t.request({ method: 'GET', url: '/api/pools' })).body.pools.find((p: { name: string }) => p.name === 'alone').pool_id
      await t.request({ method: 'POST', url: `/api/pools/${alone}/members`, payload: { provider_id: metered } })
      const refused = await call('alone', 'eth_getLogs', [LOGS])
      assert.deepEqual([refused.status, refused.body.detail], [503, `No available providers in pool ${alone}`])
      assert.equal((await call('alone', 'eth_chainId')).provider, 'tight-0')
      assert.equal((await call('alone', 'eth_chainId')).status, 503, 'used up')
      const spent = await quotaOf(poolId, metered)
      assert.deepEqual([spent.quota.used, spent.eligible], [100, false])
    })

    it('charges each call of a batch its own cost', LIMIT, async () => {
      const { poolId, providers } = await poolOfUrls(t, 'batched', [node.url], { protocol: 'evm' }, { rate_limit: { credits: 1000, per: 'day' }, method_costs: COSTS })
      const batch = ['eth_blockNumber', 'eth_getLogs', 'eth_chainId', 'net_version'].map((method, i) =>
        ({ jsonrpc: '2.0', id: i, method, params: method === 'eth_getLogs' ? [LOGS] : [] }))
      const answers = (await send('batched', batch)).body as Array<{ id: number, result?: unknown }>
      assert.deepEqual(answers.map((a) => [a.id, a.result]), [[0, '0x0'], [1, []], [2, '0x539'], [3, '1337']])
      assert.equal((await quotaOf(poolId, providers[0] as number)).quota.used, 10 + 75 + 3 + 3)
    })
  })
}
