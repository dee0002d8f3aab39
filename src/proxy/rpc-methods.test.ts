/**
 * Method routing in RPC pools (issue 36 item 7) end to end on real sockets, with a
 * real Ethereum node (ganache), viem through the pool's URL and scripted upstreams
 * that count what they are sent: a member is chosen only for the methods its
 * provider's `methods` allows; a call no member allows is answered -32601 with its
 * id and no upstream call, in a batch in its place; a member that allows a method
 * but is cooling down is not "no member allows"; a provider's own -32601 is still
 * its refusal of the method; an update takes effect on the next call; an `http`
 * pool pays no heed; and the API's 422s for rules that do not check out.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { createPublicClient, http } from 'viem'
import { startNode, type Node } from '../../test/ganache.js'
import { createProvider, poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { json, upstream, type Upstream } from '../../test/upstreams.js'

const LIMIT = { timeout: 60_000 }

/** POSTs `body` to `url` as JSON, answering the status and parsed body. */
async function post (url: string, body: unknown): Promise<{ status: number, body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, body: await res.json() }
}

/** A scripted JSON-RPC provider: eth_chainId is 1337, anything else `result`; it counts what it is sent. */
async function scripted (result = '0x1'): Promise<Upstream> {
  return await upstream((_req, res, body) => {
    const { id, method } = JSON.parse(body) as { id: number, method: string }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ jsonrpc: '2.0', id, result: method === 'eth_chainId' ? '0x539' : result }))
  })
}

const methodsSeen = (up: Upstream) => up.seen.map((s) => (JSON.parse(s.body) as { method: string }).method)
const call = (method: string, id: number | string = 7, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params })

for (const dialect of dialects) {
  describeOn(dialect, 'RPC method routing', () => {
    let t: TestApp
    let base: string
    let node: Node
    const ups: Upstream[] = []
    const up = async (result?: string) => { const made = await scripted(result); ups.push(made); return made }

    before(async () => {
      node = await startNode()
      t = await buildTestApp(dialect)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      await t?.close()
      for (const u of ups) await u.close()
      await node?.close()
    })

    const setMethods = async (providerId: number, methods: unknown) =>
      await t.request({ method: 'PUT', url: `/api/providers/${providerId}`, payload: { methods } as Record<string, unknown> })

    it('a member denying debug_* never receives debug_traceTransaction, which the node serves; it still gets its share of the rest', LIMIT, async () => {
      const denying = await up()
      const { providers } = await poolOfUrls(t, 'tracing', [denying.url, node.url], { protocol: 'evm' })
      assert.equal((await setMethods(providers[0] as number, { deny: ['debug_*', 'trace_*'] })).status, 200)
      const accounts = await node.call('eth_accounts') as string[]
      const hash = await node.call('eth_sendTransaction', [{ from: accounts[0], to: accounts[1], value: '0x1' }]) as string
      for (let i = 0; i < 4; i++) {
        const traced = await post(`${base}/p/tracing/`, call('debug_traceTransaction', i, [hash]))
        assert.equal(traced.status, 200)
        assert.equal(traced.body.id, i)
        assert.ok(Array.isArray(traced.body.result.structLogs), JSON.stringify(traced.body))
      }
      for (let i = 0; i < 4; i++) assert.equal((await post(`${base}/p/tracing/`, call('net_version', i))).status, 200)
      assert.deepEqual(methodsSeen(denying), ['net_version', 'net_version'], 'round robin on the rest; no debug_ call')
    })

    it('a member allowing only eth_* gets eth_ calls only (viem through the pool)', LIMIT, async () => {
      const ethOnly = await up()
      const { providers } = await poolOfUrls(t, 'eth-only', [ethOnly.url, node.url], { protocol: 'evm' }, { methods: { allow: ['eth_*'] } })
      assert.deepEqual((await t.request({ method: 'GET', url: `/api/providers/${providers[0] as number}` })).body.methods, { allow: ['eth_*'] })
      const viem = createPublicClient({ transport: http(`${base}/p/eth-only/`, { retryCount: 0 }) })
      // The node's own provider allows eth_* too: only net_version is the node's alone.
      await setMethods(providers[1] as number, {})
      for (let i = 0; i < 4; i++) assert.equal(await viem.getChainId(), 1337)
      for (let i = 0; i < 4; i++) assert.equal((await viem.request({ method: 'net_version' } as never)), '1337')
      const seen = methodsSeen(ethOnly)
      assert.ok(seen.length > 0 && seen.every((m) => m.startsWith('eth_')), JSON.stringify(seen))
    })

    it('a call no member allows is answered -32601 with its id and no upstream call; in a batch, in its place', LIMIT, async () => {
      const a = await up()
      const b = await up()
      await poolOfUrls(t, 'narrow', [a.url, b.url], { protocol: 'jsonrpc' }, { methods: { allow: ['eth_*', 'net_*'], deny: ['debug_*'] } })
      const single = await post(`${base}/p/narrow/`, call('debug_traceTransaction', 'x', ['0x00']))
      assert.equal(single.status, 200)
      assert.deepEqual({ ...single.body, error: { code: single.body.error.code } }, { jsonrpc: '2.0', id: 'x', error: { code: -32601 } })
      assert.equal(typeof single.body.error.message, 'string')
      assert.equal(a.seen.length + b.seen.length, 0, 'no upstream call')

      const batch = await post(`${base}/p/narrow/`, [
        call('eth_chainId', 1),
        call('debug_traceTransaction', 2),
        { jsonrpc: '2.0', method: 'web3_clientVersion' },
        call('web3_clientVersion', 3),
        call('net_version', 4)
      ])
      assert.equal(batch.status, 200)
      assert.deepEqual(batch.body.map((r: { id: unknown, result?: unknown, error?: { code: number } }) => [r.id, r.result ?? r.error?.code]),
        [[1, '0x539'], [2, -32601], [3, -32601], [4, '0x1']], 'answered in order, the disallowed calls\' errors in place, the notification unanswered')
      assert.deepEqual([...methodsSeen(a), ...methodsSeen(b)].sort(), ['eth_chainId', 'net_version'], 'only the allowed calls went upstream')
    })

    it('a member that allows the method but is cooling down is not "no member allows": the usual 503 (all_down fail)', LIMIT, async () => {
      const down = await upstream(json(503, { error: 'down' }))
      ups.push(down)
      const other = await up()
      const { providers } = await poolOfUrls(t, 'cooling', [down.url, other.url], { protocol: 'jsonrpc', rotation_strategy: 'priority', failure_threshold: 1, cooldown_seconds: 300, all_down: 'fail' }, {}, true)
      await setMethods(providers[0] as number, { allow: ['eth_*'] })
      await setMethods(providers[1] as number, { deny: ['eth_*'] })
      const first = await post(`${base}/p/cooling/`, call('eth_blockNumber'))
      assert.equal(first.status, 502, 'its one member failed (a jsonrpc pool does not send a POST twice)')
      const cooled = await fetch(`${base}/p/cooling/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call('eth_blockNumber')) })
      assert.equal(cooled.status, 503, await cooled.text())
      assert.equal(down.seen.length, 1)
      assert.equal(other.seen.length, 0, 'the member denying eth_* is never tried')
    })

    it('a provider answering -32601 itself is still refused for that method (the routing keeps it)', LIMIT, async () => {
      const refusing = await upstream((_req, res, body) => {
        const { id } = JSON.parse(body) as { id: number }
        json(200, { jsonrpc: '2.0', id, error: { code: -32601, message: 'the method eth_getProof does not exist/is not available' } })(_req, res)
      })
      ups.push(refusing)
      const { providers } = await poolOfUrls(t, 'self-refusing', [refusing.url, node.url], { protocol: 'evm', rotation_strategy: 'priority' }, { methods: { deny: ['debug_*'] } }, true)
      for (let i = 0; i < 2; i++) assert.equal((await post(`${base}/p/self-refusing/`, call('eth_chainId'))).body.result, '0x539')
      assert.equal(refusing.seen.length, 1, 'refused after its own -32601: not asked again')
      const refusals = (await t.request({ method: 'GET', url: `/api/providers/${providers[0] as number}/refusals` })).body
      assert.deepEqual(refusals.refusals.map((r: { resource: string }) => r.resource), ['/eth_chainId'])
    })

    it('an update of methods takes effect on the next call; {} lifts them, null leaves them', LIMIT, async () => {
      const only = await up()
      const { providers } = await poolOfUrls(t, 'changing', [only.url], { protocol: 'jsonrpc' })
      const id = providers[0] as number
      assert.equal((await post(`${base}/p/changing/`, call('net_version'))).body.result, '0x1')
      const updated = await setMethods(id, { deny: ['net_*'] })
      assert.deepEqual([updated.status, updated.body.methods], [200, { deny: ['net_*'] }])
      assert.equal((await post(`${base}/p/changing/`, call('net_version'))).body.error.code, -32601)
      assert.equal(only.seen.length, 1)
      const kept = await setMethods(id, null)
      assert.deepEqual(kept.body.methods, { deny: ['net_*'] }, 'null changes nothing, as for the other fields')
      const renamed = await t.request({ method: 'PUT', url: `/api/providers/${id}`, payload: { description: 'x' } })
      assert.deepEqual(renamed.body.methods, { deny: ['net_*'] }, 'absent changes nothing')
      const lifted = await setMethods(id, {})
      assert.equal(lifted.body.methods, null)
      assert.equal((await post(`${base}/p/changing/`, call('net_version'))).body.result, '0x1')
      assert.equal(only.seen.length, 2)
    })

    it('an http pool pays no heed to methods: the body goes on as it is', LIMIT, async () => {
      const plain = await up()
      await poolOfUrls(t, 'plain', [plain.url], {}, { methods: { allow: ['eth_*'] } })
      const res = await post(`${base}/p/plain/`, call('debug_traceTransaction'))
      assert.deepEqual([res.status, res.body.result], [200, '0x1'])
      assert.equal(plain.seen.length, 1)
    })

    it('refuses bad rules with 422: a bad pattern, too many, an empty allow list, an unknown key', LIMIT, async () => {
      const cases: Array<[unknown, string]> = [
        [{ allow: ['eth call'] }, 'body.methods.allow.0'],
        [{ deny: [''] }, 'body.methods.deny.0'],
        [{ allow: ['x'.repeat(129)] }, 'body.methods.allow.0'],
        [{ allow: Array.from({ length: 65 }, (_, i) => `m${i}`) }, 'body.methods.allow'],
        [{ allow: [] }, 'body.methods.allow'],
        [{ allow: ['eth_*'], alow: ['debug_*'] }, 'body.methods.alow.[key]'],
        [['eth_*'], 'body.methods']
      ]
      const id = await createProvider(t, 'checked')
      for (const [methods, loc] of cases) {
        for (const res of [
          await t.request({ method: 'POST', url: '/api/providers', payload: { name: 'bad', methods } as Record<string, unknown> }),
          await setMethods(id, methods)
        ]) {
          assert.equal(res.status, 422, JSON.stringify(methods))
          const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'))
          assert.ok(locs.includes(loc), `${JSON.stringify(methods)}: ${loc} in ${JSON.stringify(res.body.detail)}`)
        }
      }
      const ok = await t.request({ method: 'POST', url: '/api/providers', payload: { name: 'edge', methods: { allow: ['x'.repeat(128), '*', 'a.b:c-d_*'], deny: [] } } })
      assert.deepEqual([ok.status, ok.body.methods], [200, { allow: ['x'.repeat(128), '*', 'a.b:c-d_*'], deny: [] }])
    })
  })
}
