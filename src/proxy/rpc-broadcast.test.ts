/**
 * An `evm` pool's `broadcast_writes` (issue 36 item 4) end to end on real sockets, on
 * both databases: a transaction signed with viem (a local account of ganache's
 * deterministic mnemonic, funded alike on every node) sent through a pool with the
 * field on reaches every node and the client gets its hash once, from a single call
 * or a batch; beside a member refusing connections, the node's acceptance answers;
 * with the field off it reaches exactly one node. Scripted upstreams count the
 * copies: each member is sent the transaction once, a node's "already known" is an
 * acceptance that answers at once while a slow member is still out, a member
 * cooling down is left out, with no acceptance the client gets the first JSON-RPC
 * error, and reads still go to one member.
 */
import assert from 'node:assert/strict'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { keccak256, type Hex } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { startNode, type Node } from '../../test/ganache.js'
import { poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { refusingUrl, upstream, type Upstream } from '../../test/upstreams.js'

const LIMIT = { timeout: 60_000 }

/** ganache's deterministic wallet (`wallet.deterministic`): its accounts are funded alike on every node. */
const MNEMONIC = 'myth like bonus scare over problem client lizard pioneer submit female collect'

/** POSTs `body` as JSON to `url`, answering the status and parsed body. */
async function post (url: string, body: unknown): Promise<{ status: number, body: any }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, body: await res.json() }
}

const send = (raw: string) => ({ jsonrpc: '2.0', id: 7, method: 'eth_sendRawTransaction', params: [raw] })

/** An upstream answering eth_blockNumber (the head checks) with 0x1 and every other call with `answer`, after `delayMs`. */
async function scripted (answer: (id: unknown) => unknown, delayMs = 0): Promise<Upstream> {
  return await upstream((_req: IncomingMessage, res: ServerResponse, body: string) => {
    const { id, method } = JSON.parse(body) as { id: unknown, method: string }
    const reply = method === 'eth_blockNumber' ? { jsonrpc: '2.0', id, result: '0x1' } : answer(id)
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(reply))
    }, method === 'eth_blockNumber' ? 0 : delayMs)
  })
}

/** The calls of `method` an upstream saw from clients. */
const callsOf = (up: Upstream, method: string) => up.seen.filter((s) => (JSON.parse(s.body) as { method: string }).method === method).length

for (const dialect of dialects) {
  describeOn(dialect, 'broadcast_writes: an evm pool\'s transactions sent to every member', () => {
    let t: TestApp
    let base: string
    let nodes: Node[]

    before(async () => {
      nodes = await Promise.all([startNode(5), startNode(5), startNode(5)])
      t = await buildTestApp(dialect)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      await t?.close()
      for (const node of nodes ?? []) await node.close()
    })

    /** A transfer signed by the deterministic account `index` (each test its own, so that nonces never collide), its nonce read from the first node. */
    async function signed (index: number): Promise<Hex> {
      const account = mnemonicToAccount(MNEMONIC, { addressIndex: index })
      const first = nodes[0] as Node
      assert.equal(((await first.call('eth_accounts')) as string[])[index]?.toLowerCase(), account.address.toLowerCase(), 'the node funds this account')
      const nonce = Number(await first.call('eth_getTransactionCount', [account.address, 'latest']))
      return await account.signTransaction({ chainId: 1337, type: 'legacy', nonce, gas: 21_000n, gasPrice: 20_000_000_000n, to: '0x000000000000000000000000000000000000dEaD', value: 1n })
    }

    /** How many of the nodes have the transaction. */
    async function holding (hash: string): Promise<number> {
      const found = await Promise.all(nodes.map(async (node) => await node.call('eth_getTransactionByHash', [hash])))
      return found.filter((tx) => tx !== null).length
    }

    it('sends a transaction to every node and answers its hash once', LIMIT, async () => {
      const { poolId } = await poolOfUrls(t, 'everywhere', nodes.map((n) => n.url), { protocol: 'evm', broadcast_writes: true })
      assert.equal((await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body.policy.broadcast_writes, true)
      const raw = await signed(0)
      const answer = await post(`${base}/p/everywhere/`, send(raw))
      assert.deepEqual(answer, { status: 200, body: { jsonrpc: '2.0', id: 7, result: keccak256(raw) } })
      assert.equal(await holding(keccak256(raw)), 3, 'every node has it')
    })

    it('sends each transaction of a batch to every node, the batch\'s other calls to one', LIMIT, async () => {
      await poolOfUrls(t, 'batched', nodes.map((n) => n.url), { protocol: 'evm', broadcast_writes: true })
      const raw = await signed(1)
      const answer = await post(`${base}/p/batched/`, [send(raw), { jsonrpc: '2.0', id: 8, method: 'eth_chainId' }])
      assert.deepEqual(answer, { status: 200, body: [{ jsonrpc: '2.0', id: 7, result: keccak256(raw) }, { jsonrpc: '2.0', id: 8, result: '0x539' }] })
      assert.equal(await holding(keccak256(raw)), 3)
    })

    it('beside a member refusing connections, the node\'s acceptance answers', LIMIT, async () => {
      await poolOfUrls(t, 'half', [await refusingUrl(), (nodes[1] as Node).url], { protocol: 'evm', broadcast_writes: true })
      const raw = await signed(2)
      const answer = await post(`${base}/p/half/`, send(raw))
      assert.deepEqual(answer, { status: 200, body: { jsonrpc: '2.0', id: 7, result: keccak256(raw) } })
      assert.notEqual(await (nodes[1] as Node).call('eth_getTransactionByHash', [keccak256(raw)]), null)
    })

    it('with the field off, a transaction reaches exactly one node', LIMIT, async () => {
      await poolOfUrls(t, 'once', nodes.map((n) => n.url), { protocol: 'evm' })
      const raw = await signed(3)
      const answer = await post(`${base}/p/once/`, send(raw))
      assert.deepEqual(answer.body, { jsonrpc: '2.0', id: 7, result: keccak256(raw) })
      assert.equal(await holding(keccak256(raw)), 1)
    })

    it('sends each member the transaction once; "already known" answers at once, while a slow member is still out', LIMIT, async () => {
      const known = await scripted((id) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: 'already known' } }))
      const slow = await scripted((id) => ({ jsonrpc: '2.0', id, result: '0x' + 'ab'.repeat(32) }), 1500)
      try {
        await poolOfUrls(t, 'known', [slow.url, known.url], { protocol: 'evm', broadcast_writes: true })
        const raw = await signed(4)
        const started = performance.now()
        const answer = await post(`${base}/p/known/`, send(raw))
        assert.deepEqual(answer.body, { jsonrpc: '2.0', id: 7, result: keccak256(raw) }, 'the hash, from the node that has it')
        assert.ok(performance.now() - started < 1400, 'not held for the slow member')
        await new Promise((resolve) => setTimeout(resolve, 1700))
        assert.deepEqual([callsOf(known, 'eth_sendRawTransaction'), callsOf(slow, 'eth_sendRawTransaction')], [1, 1])
      } finally {
        await known.close()
        await slow.close()
      }
    })

    it('leaves out a member cooling down: the transaction goes to the others, the cooling one is not tried', LIMIT, async () => {
      const accepting = await Promise.all([0, 1].map(async () => await scripted((id) => ({ jsonrpc: '2.0', id, result: '0x' + 'cd'.repeat(32) }))))
      try {
        const { poolId, providers } = await poolOfUrls(t, 'cooling', [await refusingUrl(), ...accepting.map((u) => u.url)], { protocol: 'evm', broadcast_writes: true, failure_threshold: 1 })
        const failures = async () => {
          await t.app.runtime.flush()
          const record = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
          return record.members.find((m: { provider_id: number }) => m.provider_id === providers[0]) as { health: string, failure_count: number }
        }
        for (let i = 0; i < 2; i++) {
          // Past a second: the choice alone would hand the member out as a probe (probe-gates.ts); a broadcast leaves it out.
          if (i > 0) await new Promise((resolve) => setTimeout(resolve, 1200))
          assert.equal((await post(`${base}/p/cooling/`, send('0x02'))).body.result, '0x' + 'cd'.repeat(32))
        }
        const refused = await failures()
        assert.deepEqual([refused.health, refused.failure_count], ['cooling_down', 1], 'tried by the first broadcast alone')
        assert.deepEqual(accepting.map((u) => callsOf(u, 'eth_sendRawTransaction')), [2, 2])
      } finally {
        for (const u of accepting) await u.close()
      }
    })

    it('with no acceptance answers the first JSON-RPC error, each member asked once; a read goes to one member', LIMIT, async () => {
      const low = await scripted((id) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: 'nonce too low' } }))
      // A 500 to a transaction, 0x1 to anything else (its head the others', so that none lags).
      const broken = await upstream((_req, res, body) => {
        const { id, method } = JSON.parse(body) as { id: unknown, method: string }
        res.writeHead(method === 'eth_sendRawTransaction' ? 500 : 200, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' }))
      })
      const late = await scripted((id) => ({ jsonrpc: '2.0', id, error: { code: -32000, message: 'insufficient funds' } }), 300)
      try {
        await poolOfUrls(t, 'refusing', [broken.url, late.url, low.url], { protocol: 'evm', broadcast_writes: true, failure_threshold: 10 })
        const answer = await post(`${base}/p/refusing/`, send('0x02'))
        assert.deepEqual(answer, { status: 200, body: { jsonrpc: '2.0', id: 7, error: { code: -32000, message: 'nonce too low' } } })
        assert.deepEqual([low, late].map((up) => callsOf(up, 'eth_sendRawTransaction')), [1, 1])
        assert.equal(callsOf(broken, 'eth_sendRawTransaction'), 1)
        const before = low.seen.length + late.seen.length + broken.seen.length
        await post(`${base}/p/refusing/`, { jsonrpc: '2.0', id: 9, method: 'eth_chainId' })
        assert.equal(low.seen.length + late.seen.length + broken.seen.length, before + 1, 'a read is not broadcast')
      } finally {
        await low.close()
        await broken.close()
        await late.close()
      }
    })
  })
}
