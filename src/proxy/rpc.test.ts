/**
 * RPC pools (issue 36) end to end on real sockets, with real Ethereum nodes
 * (ganache) and real clients (viem, ethers) through the pool's URL: an `evm` pool
 * answers what its nodes answer; a body that is not JSON-RPC is answered -32700 or
 * -32600 without reaching a provider (an `http` pool passes it through as before);
 * a member refusing connections is passed over for a POST.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { JsonRpcProvider } from 'ethers'
import { createPublicClient, http } from 'viem'
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
      const { poolId } = await poolOfUrls(t, 'chain', [await refusingUrl(), node.url], { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
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
  })
}
