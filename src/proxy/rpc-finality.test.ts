/**
 * An `evm` pool's heads and finality (issue 36 items 5 and 6), end to end with real
 * Ethereum nodes (ganache) and clients (viem), and a scripted node where a real one
 * cannot be made to say what the test needs (a head far from zero, no `finalized`
 * tag): a node more than `max_block_lag` behind never answers `latest` and still
 * serves older blocks; answers that cannot change (a receipt in a finalized block,
 * a block at or below the finalized one) are stored for good and served without an
 * upstream call, in the memory store and in Redis; answers that can change are
 * stored only for `cache_unfinalized_ms`; errors and nulls never.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { createPublicClient, createWalletClient, http, parseEther } from 'viem'
import { recorded, startNode, type Node } from '../../test/ganache.js'
import { poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, sqlite, type TestApp } from '../../test/helpers.js'
import { redisRunPrefix, redisSkip, redisUrl } from '../../test/redis.js'
import { upstream, type Upstream } from '../../test/upstreams.js'

const LIMIT = { timeout: 60_000 }
const runPrefix = redisRunPrefix('rpc-finality')

/** One JSON-RPC call through `url`: the answer's body and its x-sourcepool-cache and provider headers. */
async function call (url: string, method: string, params: unknown[] = [], id = 1): Promise<{ body: any, cache: string | null, provider: string | null }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) })
  assert.equal(res.status, 200)
  return { body: await res.json(), cache: res.headers.get('x-sourcepool-cache'), provider: res.headers.get('x-sourcepool-provider') }
}

/** Waits until `done` holds, checking every 50 ms, for 10 s at most. */
async function until (done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 10_000
  while (!await done()) {
    assert.ok(Date.now() < end, `waited 10 s for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The methods of the calls an upstream saw (batches flattened). */
const methods = (seen: Upstream['seen']): string[] => seen.flatMap((one) => [JSON.parse(one.body)].flat().map((c: { method: string }) => c.method))

for (const dialect of dialects) {
  describeOn(dialect, 'evm pools: heads and finality', () => {
    let t: TestApp
    let base: string
    let ahead: Node
    let behind: Node

    before(async () => {
      ;[ahead, behind] = await Promise.all([startNode(), startNode()])
      t = await buildTestApp(dialect)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      await t?.close()
      await Promise.all([ahead?.close(), behind?.close()])
    })

    it('a node more than max_block_lag behind never answers latest, still serves older blocks, and is used again once caught up', LIMIT, async () => {
      for (let i = 0; i < 10; i++) await ahead.call('evm_mine')
      const { poolId } = await poolOfUrls(t, 'lagging', [ahead.url, behind.url], { protocol: 'evm', max_block_lag: 5, head_check_interval_s: 1 })
      const url = `${base}/api/pools/${poolId}/proxy/`
      const viem = createPublicClient({ transport: http(url, { retryCount: 0 }) })
      // The pool's first call waits for the first round of head checks: the lagging node is known before it can answer.
      for (let i = 0; i < 12; i++) assert.equal(await viem.getBlockNumber({ cacheTime: 0 }), 10n)
      const latest = await Promise.all(Array.from({ length: 12 }, async (_, i) => await call(url, 'eth_getBlockByNumber', ['latest', false], i)))
      assert.deepEqual(new Set(latest.map((one) => one.provider)), new Set(['lagging-0']))
      // An older block both nodes have: the lagging one takes its turn (round robin; other addresses, so nothing is shared).
      const old = await Promise.all(Array.from({ length: 6 }, async (_, i) => await call(url, 'eth_getBalance', [`0x${String(i + 1).padStart(40, '0')}`, '0x0'], i)))
      assert.deepEqual(new Set(old.map((one) => one.provider)), new Set(['lagging-0', 'lagging-1']))
      // Caught up: within a head check (1 s), latest goes to both again.
      for (let i = 0; i < 10; i++) await behind.call('evm_mine')
      await until(async () => (await call(url, 'eth_getBlockByNumber', ['latest', false])).provider === 'lagging-1', 'the node caught up to answer latest')
    })

    it('stores a receipt in a finalized block and a finalized block for good; latest only for cache_unfinalized_ms; a null never', LIMIT, async () => {
      const up = await recorded(ahead)
      try {
        const { poolId } = await poolOfUrls(t, 'final', [up.url], { protocol: 'evm', cache_ttl_seconds: 60, head_check_interval_s: 1 })
        const url = `${base}/api/pools/${poolId}/proxy/`
        const [from] = await ahead.call('eth_accounts') as string[]
        const wallet = createWalletClient({ transport: http(url, { retryCount: 0 }) })
        const hash = await wallet.sendTransaction({ account: from as `0x${string}`, to: '0x0000000000000000000000000000000000000002', value: parseEther('1'), chain: null })
        // ganache mines at once and tags its head `finalized`: wait for a head check to see that block.
        const checksBefore = up.checks.length
        await until(() => up.checks.length >= checksBefore + 4, 'a whole round of head checks after the transaction')
        const asked = up.seen.length
        const first = await call(url, 'eth_getTransactionReceipt', [hash], 1)
        assert.equal(first.cache, 'MISS')
        assert.equal(first.body.result.transactionHash, hash)
        const again = await call(url, 'eth_getTransactionReceipt', [hash], 'two' as unknown as number)
        assert.deepEqual([again.cache, again.body.id, again.body.result], ['HIT', 'two', first.body.result])
        assert.equal(up.seen.length, asked + 1, 'the stored receipt spent no upstream call')
        const block = first.body.result.blockNumber as string
        await call(url, 'eth_getBlockByNumber', [block, true])
        assert.equal((await call(url, 'eth_getBlockByNumber', [block, true])).cache, 'HIT')
        // latest may change: with cache_unfinalized_ms 0 it is shared while in flight, never stored.
        await call(url, 'eth_getBalance', [from, 'latest'])
        assert.equal((await call(url, 'eth_getBalance', [from, 'latest'])).cache, 'MISS')
        // Not found yet: never stored.
        assert.equal((await call(url, 'eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`])).body.result, null)
        assert.equal((await call(url, 'eth_getTransactionReceipt', [`0x${'ab'.repeat(32)}`])).cache, 'MISS')
        assert.deepEqual(methods(up.seen.slice(asked)), [
          'eth_getTransactionReceipt', 'eth_getBlockByNumber', 'eth_getBalance', 'eth_getBalance', 'eth_getTransactionReceipt', 'eth_getTransactionReceipt'
        ])
        // cache_unfinalized_ms: latest stored that long.
        const changed = await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { cache_unfinalized_ms: 60_000 } })
        assert.equal(changed.status, 200, JSON.stringify(changed.body))
        await call(url, 'eth_getBalance', [from, 'latest'])
        assert.equal((await call(url, 'eth_getBalance', [from, 'latest'])).cache, 'HIT')
      } finally {
        await up.close()
      }
    })

    it('a node killed mid-run: no client error, no call lost', LIMIT, async () => {
      const [first, second] = await Promise.all([startNode(), startNode()])
      // The first node answers 30 ms late, so that calls are in flight on it when it goes (its connections reset).
      const late = await upstream((_req, res, body) => {
        setTimeout(() => {
          fetch(first.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (answer) => {
            res.writeHead(answer.status, { 'content-type': 'application/json' })
            res.end(await answer.text())
          }, () => { res.destroy() })
        }, 30)
      })
      try {
        // A pool that puts every call's answer first: retries not bounded by a budget (a burst of resets would spend it).
        const { poolId } = await poolOfUrls(t, 'killed', [late.url, second.url], { protocol: 'evm', retry_budget_percent: 100 })
        const viem = createPublicClient({ transport: http(`${base}/api/pools/${poolId}/proxy/`, { retryCount: 0 }) })
        // Calls in flight from 8 clients at once (each asking its own address: nothing shared), while one node goes away under them.
        const client = async (n: number): Promise<bigint[]> => {
          const got: bigint[] = []
          for (let i = 0; i < 15; i++) got.push(await viem.getBalance({ address: `0x${String(1000 + n * 100 + i).padStart(40, '0')}`, blockNumber: 0n }))
          return got
        }
        const running = Array.from({ length: 8 }, async (_, n) => await client(n))
        await until(() => late.seen.length >= 12, 'calls on the node that goes')
        const before = late.seen.length
        // The node goes: its connections reset under the calls in flight, and new ones are refused.
        await late.close()
        const answers = (await Promise.all(running)).flat()
        assert.equal(answers.length, 120)
        assert.ok(answers.every((balance) => balance === 0n), String(answers))
        assert.ok(before < 120)
      } finally {
        await Promise.allSettled([late.close(), first.close(), second.close()])
      }
    })

    it('without a finalized tag, the finalized block is the highest head − finality_depth', LIMIT, async () => {
      const node = await upstream((_req, res, body) => {
        const { id, method, params } = JSON.parse(body) as { id: number, method: string, params: unknown[] }
        res.writeHead(200, { 'content-type': 'application/json' })
        if (method === 'eth_blockNumber') res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x100' }))
        else if (params[0] === 'finalized') res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32602, message: 'invalid block tag' } }))
        else res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { number: params[0], hash: '0x01' } }))
      })
      try {
        const { poolId } = await poolOfUrls(t, 'depth', [node.url], { protocol: 'evm', cache_ttl_seconds: 60, finality_depth: 64 })
        const url = `${base}/api/pools/${poolId}/proxy/`
        const twice = async (block: string) => { await call(url, 'eth_getBlockByNumber', [block, false]); return (await call(url, 'eth_getBlockByNumber', [block, false])).cache }
        // 0x100 − 64 = 0xc0: at or below it, stored; above it, not.
        assert.equal(await twice('0xc0'), 'HIT')
        assert.equal(await twice('0xc1'), 'MISS')
        assert.deepEqual(methods(node.checks).slice(0, 2), ['eth_blockNumber', 'eth_getBlockByNumber'])
        // The tag was refused once: the checks ask the head alone from then on.
        assert.ok(methods(node.checks).slice(2).every((method) => method === 'eth_blockNumber'))
      } finally {
        await node.close()
      }
    })
  })
}

describeOn(sqlite, 'evm pools: final answers in Redis', () => {
  it('a final answer stored in Redis is served without an upstream call, and purged with the pool\'s cache', { ...LIMIT, skip: redisSkip }, async () => {
    const node = await startNode()
    const up = await recorded(node)
    const t = await buildTestApp(sqlite, {}, { CACHE_URL: redisUrl as string, CACHE_KEY_PREFIX: `${runPrefix}redis:` })
    try {
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/p/shared-final/`
      const { poolId } = await poolOfUrls(t, 'shared-final', [up.url], { protocol: 'evm', cache_ttl_seconds: 60 })
      const genesis = await call(url, 'eth_getBlockByNumber', ['0x0', false])
      assert.equal(genesis.cache, 'MISS')
      // A Redis command past its 250 ms is a miss (a loaded machine): asked again until the stored answer serves.
      let again = await call(url, 'eth_getBlockByNumber', ['0x0', false], 2)
      for (let i = 0; again.cache !== 'HIT' && i < 10; i++) again = await call(url, 'eth_getBlockByNumber', ['0x0', false], 2)
      assert.deepEqual([again.cache, again.body.result], ['HIT', genesis.body.result])
      const calls = methods(up.seen).length
      for (let i = 0; i < 3; i++) await call(url, 'eth_getBlockByNumber', ['0x0', false], 3)
      assert.ok(methods(up.seen).length - calls <= 1, 'served from Redis, not upstream')
      assert.equal((await t.request({ method: 'DELETE', url: `/api/pools/${poolId}/cache` })).status, 200)
      assert.equal((await call(url, 'eth_getBlockByNumber', ['0x0', false])).cache, 'MISS')
    } finally {
      await t.close()
      await up.close()
      await node.close()
    }
  })
})
