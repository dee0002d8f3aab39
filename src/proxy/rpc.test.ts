/**
 * RPC pools (issue 36) end to end on real sockets, with real Ethereum nodes
 * (ganache) and real clients (viem, ethers) through the pool's URL: an `evm` pool
 * answers what its nodes answer; a body that is not JSON-RPC is answered -32700 or
 * -32600 without reaching a provider (an `http` pool passes it through as before);
 * a member refusing connections is passed over for a POST; a provider's JSON-RPC
 * error inside a 200 is judged by its body (a rate limit cools the member, an
 * unsupported method is refused by that member alone, missing state moves on with
 * no health failure, a reverted call is the caller's own answer); a batch is
 * answered call by call, in the client's order; an evm pool's identical reads in
 * flight share one upstream call, and its immutable answers are kept with its cache on.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { JsonRpcProvider } from 'ethers'
import { createPublicClient, http, keccak256 } from 'viem'
import { startNode, type Node } from '../../test/ganache.js'
import { poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { json, refusingUrl, upstream, type Upstream } from '../../test/upstreams.js'

const LIMIT = { timeout: 60_000 }

/** POSTs `body` to `url` as JSON, answering the status and parsed body. */
async function post (url: string, body: string): Promise<{ status: number, body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: res.status, body: await res.json() }
}

for (const dialect of dialects) {
  describeOn(dialect, 'RPC pools with real nodes and clients', () => {
    let t: TestApp
    let base: string
    let node: Node
    let counting: Upstream

    before(async () => {
      node = await startNode()
      counting = await upstream(json(200, { jsonrpc: '2.0', id: 1, result: '0x1' }))
      t = await buildTestApp(dialect)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      await t?.close()
      await counting?.close()
      await node?.close()
    })

    it('an evm pool serves viem and ethers from its node, passing over a member that refuses connections', LIMIT, async () => {
      // failure_threshold 1: the refusing member cools at its first refusal (retries past it spend the budget, as in any pool).
      const { poolId } = await poolOfUrls(t, 'chain', [await refusingUrl(), node.url], { protocol: 'evm', rotation_strategy: 'priority', failure_threshold: 1 }, {}, true)
      const url = `${base}/api/pools/${poolId}/proxy/`
      await node.call('evm_mine')
      const viem = createPublicClient({ transport: http(url, { retryCount: 0 }) })
      assert.equal(await viem.getChainId(), 1337)
      assert.equal(await viem.getBlockNumber(), 1n)
      const ethers = new JsonRpcProvider(url, undefined, { staticNetwork: true })
      try {
        assert.equal(await ethers.getBlockNumber(), 1)
      } finally {
        ethers.destroy()
      }
    })

    it('a body that is not JSON-RPC is answered -32700 or -32600 without reaching a provider; an http pool passes it on', LIMIT, async () => {
      const { poolId: rpc } = await poolOfUrls(t, 'rpc-only', [counting.url], { protocol: 'jsonrpc' })
      const before = counting.seen.length
      const parse = await post(`${base}/p/rpc-only/`, '{not json')
      assert.deepEqual(parse, { status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } })
      for (const invalid of ['{"jsonrpc":"2.0","id":1}', '[]', '{"jsonrpc":"1.0","id":1,"method":"a"}']) {
        const res = await post(`${base}/api/pools/${rpc}/proxy/`, invalid)
        assert.deepEqual(res, { status: 200, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } } }, invalid)
      }
      assert.equal(counting.seen.length, before, 'no provider was asked')
      const call = await post(`${base}/api/pools/${rpc}/proxy/`, '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}')
      assert.deepEqual(call.body, { jsonrpc: '2.0', id: 1, result: '0x1' })
      assert.equal(counting.seen.length, before + 1)
      await poolOfUrls(t, 'plain-http', [counting.url])
      await post(`${base}/p/plain-http/`, '{not json').catch(() => undefined)
      assert.equal(counting.seen.length, before + 2, 'an http pool passes any body on')
    })

    /** A scripted JSON-RPC provider answering every call with `error` inside a 200, counting calls by method. */
    async function erring (error: { code: number, message: string }): Promise<Upstream> {
      return await upstream((_req, res, body) => {
        const { id } = JSON.parse(body) as { id: number }
        res.writeHead(200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ jsonrpc: '2.0', id, error }))
      })
    }
    const call = async (url: string, method: string, params: unknown[] = []) =>
      (await post(url, JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }))).body
    const memberOf = async (poolId: number, providerId: number) => {
      await t.app.runtime.flush()
      const record = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
      return record.members.find((m: { provider_id: number }) => m.provider_id === providerId)
    }
    const methodsSeen = (up: Upstream) => up.seen.map((s) => (JSON.parse(s.body) as { method: string }).method)

    it('a rate limit in a 200 body (-32005) cools the member as rate_limited; the calls are served by the node', LIMIT, async () => {
      const limited = await erring({ code: -32005, message: 'limit exceeded' })
      try {
        const { poolId, providers } = await poolOfUrls(t, 'limited', [limited.url, node.url], { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
        const url = `${base}/p/limited/`
        for (let i = 0; i < 4; i++) assert.equal((await call(url, 'eth_chainId')).result, '0x539')
        assert.equal(limited.seen.length, 1, 'the cooled member is not asked again')
        const member = await memberOf(poolId, providers[0] as number)
        assert.deepEqual([member.health, member.cooldown_reason, member.failure_count], ['cooling_down', 'rate_limited', 1])
      } finally {
        await limited.close()
      }
    })

    it('-32601 refuses that method on that member alone; other methods still go to it', LIMIT, async () => {
      const partial = await erring({ code: -32601, message: 'the method does not exist/is not available' })
      try {
        const { poolId, providers } = await poolOfUrls(t, 'partial', [partial.url, node.url], { protocol: 'jsonrpc', rotation_strategy: 'priority' }, {}, true)
        const url = `${base}/api/pools/${poolId}/proxy/`
        assert.equal((await call(url, 'eth_chainId')).result, '0x539')
        assert.equal((await call(url, 'eth_chainId')).result, '0x539')
        assert.equal((await call(url, 'net_version')).result, '1337')
        assert.deepEqual(methodsSeen(partial), ['eth_chainId', 'net_version'], 'a refused method is not sent to it again; another method is')
        const refusals = (await t.request({ method: 'GET', url: `/api/providers/${providers[0] as number}/refusals` })).body
        assert.deepEqual(refusals.refusals.map((r: { resource: string }) => r.resource).sort(), ['/eth_chainId', '/net_version'])
        const member = await memberOf(poolId, providers[0] as number)
        assert.deepEqual([member.health, member.failure_count], ['healthy', 0])
        // Refused by every member: the client reads -32601 as from a node, not the proxy's 502.
        await poolOfUrls(t, 'partial-only', [partial.url], { protocol: 'jsonrpc' })
        for (let i = 0; i < 2; i++) {
          const res = await post(`${base}/p/partial-only/`, JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'debug_traceBlock', params: [] }))
          assert.equal(res.status, 200, JSON.stringify(res.body))
          assert.deepEqual([res.body.id, res.body.error.code], ['x', -32601], JSON.stringify(res.body))
        }
        assert.equal(methodsSeen(partial).filter((m) => m === 'debug_traceBlock').length, 1, 'refused once, then known')
      } finally {
        await partial.close()
      }
    })

    it('missing state moves the call on with no health failure; a reverted call is the caller\'s own answer, not retried', LIMIT, async () => {
      const pruned = await erring({ code: -32000, message: 'missing trie node abc (path )' })
      // A revert whose reason reads like a rate limit is still the caller's own answer.
      const reverting = await erring({ code: 3, message: 'execution reverted: Max mint limit exceeded' })
      try {
        const first = await poolOfUrls(t, 'pruned', [pruned.url, node.url], { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
        assert.equal((await call(`${base}/p/pruned/`, 'eth_getBalance', ['0x0000000000000000000000000000000000000000', '0x0'])).result, '0x0')
        const member = await memberOf(first.poolId, first.providers[0] as number)
        assert.deepEqual([member.health, member.failure_count, member.success_count], ['healthy', 0, 0])
        const second = await poolOfUrls(t, 'reverting', [reverting.url, node.url], { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
        const answer = await call(`${base}/p/reverting/`, 'eth_call', [{ to: '0x0000000000000000000000000000000000000000' }, 'latest'])
        assert.deepEqual(answer.error, { code: 3, message: 'execution reverted: Max mint limit exceeded' })
        assert.equal(reverting.seen.length, 1)
        const reverted = await memberOf(second.poolId, second.providers[0] as number)
        assert.deepEqual([reverted.health, reverted.failure_count], ['healthy', 0])
      } finally {
        await pruned.close()
        await reverting.close()
      }
    })

    it('splits a batch: viem\'s 50-call HTTP batch answered in order, each call on its own (a rate-limited member passed over by each call)', LIMIT, async () => {
      const limited = await erring({ code: -32005, message: 'daily request count exceeded' })
      try {
        await poolOfUrls(t, 'batched', [limited.url, node.url], { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
        const viem = createPublicClient({ transport: http(`${base}/p/batched/`, { batch: true, retryCount: 0 }) })
        const accounts = await node.call('eth_accounts') as `0x${string}`[]
        const asked = Array.from({ length: 50 }, (_, i) => i % 2 === 0
          ? viem.getBalance({ address: accounts[i % accounts.length] as `0x${string}` })
          : viem.getChainId())
        const answers = await Promise.all(asked)
        for (const [i, answer] of answers.entries()) assert.equal(answer, i % 2 === 0 ? 1000n * 10n ** 18n : 1337, `call ${i}`)
        // Its one rate-limit object for the upstream batch is each call's own: the member cools, each call moves on.
        assert.equal(limited.seen.length, 1, 'the rate-limited member is asked once')
        assert.ok(limited.seen[0]?.body.startsWith('['), 'with the calls it was chosen for, as one upstream batch')
      } finally {
        await limited.close()
      }
    })

    it('answers a batch call by call: the provider\'s errors in place, notifications unanswered, no member left an error of its own', LIMIT, async () => {
      const { poolId } = await poolOfUrls(t, 'mixed', [node.url], { protocol: 'jsonrpc' })
      const batch = [
        { jsonrpc: '2.0', id: 'a', method: 'eth_chainId' },
        { jsonrpc: '2.0', method: 'eth_chainId' },
        { jsonrpc: '2.0', id: 2, method: 'no_such_method' },
        { jsonrpc: '2.0', id: 3, method: 'net_version' }
      ]
      const res = await post(`${base}/api/pools/${poolId}/proxy/`, JSON.stringify(batch))
      assert.equal(res.status, 200)
      assert.deepEqual(res.body.map((a: { id: unknown }) => a.id), ['a', 2, 3])
      assert.deepEqual([res.body[0].result, res.body[2].result], ['0x539', '1337'])
      assert.equal(typeof res.body[1].error.message, 'string', 'the unknown method\'s error in its place')
      const { poolId: empty } = await poolOfUrls(t, 'refusing-rpc', [await refusingUrl()], { protocol: 'jsonrpc' })
      const none = await post(`${base}/api/pools/${empty}/proxy/`, JSON.stringify([batch[0], batch[3]]))
      assert.deepEqual(none.body.map((a: { id: unknown, error: { code: number } }) => [a.id, a.error.code]), [['a', -32603], [3, -32603]])
      // Notifications alone: nothing to answer (no empty list).
      const quiet = await fetch(`${base}/api/pools/${poolId}/proxy/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([batch[1], batch[1]]) })
      assert.deepEqual([quiet.status, await quiet.text()], [204, ''])
    })

    it('1,000 identical eth_chainId calls from a batch and 50 clients make one upstream call; kept for good with the cache on', LIMIT, async () => {
      const slowChain = await upstream((_req, res, body) => {
        const { id } = JSON.parse(body) as { id: number }
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x539' }))
        }, 200)
      })
      try {
        const { poolId: coalesced } = await poolOfUrls(t, 'coalesced', [slowChain.url], { protocol: 'evm', cache_ttl_seconds: 60 })
        await poolOfUrls(t, 'uncached', [slowChain.url], { protocol: 'evm' })
        const chainIdOf = (id: number) => ({ jsonrpc: '2.0', id, method: 'eth_chainId' })
        const round = async (name: string) => {
          const singles = Array.from({ length: 50 }, async (_, i) => await call(`${base}/p/${name}/`, 'eth_chainId').then((a) => [a.id, a.result]))
          const batch = post(`${base}/p/${name}/`, JSON.stringify(Array.from({ length: 1000 }, (_, i) => chainIdOf(i))))
          const [answers, listed] = await Promise.all([Promise.all(singles), batch])
          for (const answer of answers) assert.deepEqual(answer, [7, '0x539'])
          assert.deepEqual(listed.body.map((a: { id: number, result: string }) => [a.id, a.result]), Array.from({ length: 1000 }, (_, i) => [i, '0x539']))
        }
        await round('coalesced')
        assert.equal(slowChain.seen.length, 1, 'one upstream call for 1,050 identical calls')
        await round('coalesced')
        assert.equal(slowChain.seen.length, 1, 'kept for good: no call the second time')
        const purged = await t.request({ method: 'DELETE', url: `/api/pools/${coalesced}/cache` })
        assert.equal(purged.status, 200)
        await round('coalesced')
        assert.equal(slowChain.seen.length, 2, 'a purge drops what was kept')
        await round('uncached')
        await round('uncached')
        assert.equal(slowChain.seen.length, 4, 'without a cache, coalesced while in flight, not kept')
      } finally {
        await slowChain.close()
      }
    })

    it('a transaction the node says it has already is answered with its hash, sent once', LIMIT, async () => {
      const known = await erring({ code: -32000, message: 'already known' })
      try {
        await poolOfUrls(t, 'known', [known.url, node.url], { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
        const raw = '0x02f86c8205398084773594008504a817c80082520894000000000000000000000000000000000000000080c0'
        const answer = await call(`${base}/p/known/`, 'eth_sendRawTransaction', [raw])
        assert.deepEqual(answer, { jsonrpc: '2.0', id: 7, result: keccak256(raw) })
        assert.equal(known.seen.length, 1, 'sent once, not moved on')
      } finally {
        await known.close()
      }
    })

    it('a transaction\'s error is its sender\'s: no refusal of the method, no failure, not moved on; an unknown method is not repeated', LIMIT, async () => {
      const refusing = await erring({ code: -32000, message: 'transaction type not supported' })
      const failing = await upstream(json(503, { error: 'down' }))
      const counting2 = await upstream(json(200, { jsonrpc: '2.0', id: 7, result: 'sig' }))
      try {
        const { poolId, providers } = await poolOfUrls(t, 'txs', [refusing.url, node.url], { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
        for (let i = 0; i < 2; i++) {
          const answer = await call(`${base}/p/txs/`, 'eth_sendRawTransaction', ['0x02'])
          assert.equal(answer.error.message, 'transaction type not supported')
        }
        assert.equal(refusing.seen.length, 2, 'each sent once, to the same member: not refused')
        const refusals = (await t.request({ method: 'GET', url: `/api/providers/${providers[0] as number}/refusals` })).body
        assert.deepEqual(refusals.refusals, [])
        const member = await memberOf(poolId, providers[0] as number)
        assert.deepEqual([member.health, member.failure_count], ['healthy', 0])
        // A jsonrpc pool's methods are unknown to the service: a failed call is not sent to another member.
        await poolOfUrls(t, 'solana', [failing.url, counting2.url], { protocol: 'jsonrpc', rotation_strategy: 'priority', hedge_after_ms: 0 }, {}, true)
        const sent = await post(`${base}/p/solana/`, JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'sendTransaction', params: ['x'] }))
        assert.equal(sent.status, 502)
        assert.equal(counting2.seen.length, 0)
      } finally {
        await refusing.close()
        await failing.close()
        await counting2.close()
      }
    })

    it('shares a read only with calls to the same path', LIMIT, async () => {
      const slowChain = await upstream((_req, res, body) => {
        const { id } = JSON.parse(body) as { id: number }
        setTimeout(() => { json(200, { jsonrpc: '2.0', id, result: '0x1' })(_req, res) }, 150)
      })
      try {
        await poolOfUrls(t, 'paths', [slowChain.url], { protocol: 'evm' })
        await Promise.all([call(`${base}/p/paths/`, 'eth_blockNumber'), call(`${base}/p/paths/`, 'eth_blockNumber'), call(`${base}/p/paths/other`, 'eth_blockNumber')])
        assert.deepEqual(slowChain.seen.map((s) => s.url).sort(), ['/', '/other'])
      } finally {
        await slowChain.close()
      }
    })
  })
}
