/**
 * Streams through an `evm` pool (issue 37 items 2, 3, 4) against real ganache nodes
 * with one chain (test/ganache-twins.ts) and viem's webSocket transport: blocks and
 * contract events keep coming, each once and in order, on the same subscription,
 * when the node serving them is killed mid-stream; calls over the socket are
 * answered through the pool; 500 clients on `newHeads` share one upstream
 * subscription; an unsubscribe of the last client ends it upstream.
 */
import assert from 'node:assert/strict'
import { connect, createServer, type AddressInfo, type Socket } from 'node:net'
import { after, before, it } from 'node:test'
import { createPublicClient, webSocket } from 'viem'
import { poolOfUrls } from '../../test/fixtures.js'
import { EMITTER_ABI, startTwins, type Twins } from '../../test/ganache-twins.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { openClient, until } from '../../test/ws-clients.js'

const LIMIT = { timeout: 60_000 }

/** A TCP gate in front of a loopback port: connections are refused until `open()`, then passed through. */
async function tcpGate (port: string): Promise<{ url: string, open: () => void, close: () => Promise<void> }> {
  let open = false
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    if (!open) { socket.destroy(); return }
    const through = connect(Number(port), '127.0.0.1')
    for (const s of [socket, through]) { sockets.add(s); s.on('error', () => {}); s.once('close', () => sockets.delete(s)) }
    socket.pipe(through).pipe(socket)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open: () => { open = true },
    close: async () => { for (const s of sockets) s.destroy(); await new Promise((resolve) => server.close(resolve)) }
  }
}

for (const dialect of dialects) {
  describeOn(dialect, 'streams through an evm pool', () => {
    let t: TestApp
    let base: string
    before(async () => {
      t = await buildTestApp(dialect)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      base = `ws://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
    })
    after(async () => { await t.close() })

    it('keeps viem\'s watchBlockNumber and watchContractEvent going, every block and event once and in order, when the serving node is killed and blocks pass before another takes over', LIMIT, async () => {
      const twins: Twins = await startTwins(2)
      // The second node's WebSocket through a gate the test opens: until then the stream cannot move, and blocks pass.
      const gate = await tcpGate(new URL(twins.nodes[1]?.wsUrl as string).port)
      try {
        const emitter = await twins.deployEmitter()
        const name = `evm-kill-${dialect.name}`
        const urls = twins.nodes.map((n) => n.url)
        const { poolId, providers } = await poolOfUrls(t, name, urls, { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
        assert.equal((await t.request({ method: 'PUT', url: `/api/providers/${providers[1] as number}`, payload: { ws_url: gate.url } })).status, 200)
        const client = createPublicClient({ transport: webSocket(`${base}/p/${name}/`, { reconnect: false }) })
        const socket = (await client.transport.getRpcClient()).socket as unknown as { addEventListener: (e: string, f: () => void) => void }
        let closed = false
        socket.addEventListener('close', () => { closed = true })
        const numbers: bigint[] = []
        const counts: bigint[] = []
        const unwatchBlocks = client.watchBlockNumber({ onBlockNumber: (n) => numbers.push(n) })
        const unwatchEvents = client.watchContractEvent({ address: emitter.address, abi: EMITTER_ABI, eventName: 'Ping', onLogs: (logs) => { for (const log of logs) counts.push(log.args.count ?? -1n) } })
        const upstreams = (provider: number) => t.app.streams.registry.counts(poolId).upstreams.get(providers[provider] as number) ?? 0
        try {
          assert.equal(await client.getChainId(), 1337, 'a call over the socket, answered through the pool')
          await until(() => upstreams(0) === 1 && t.app.streams.registry.counts(poolId).subscriptions === 2, 5_000, 'both subscriptions on the first node')
          for (let i = 0; i < 3; i++) { await emitter.emit(); await twins.mine() }
          await until(() => counts.length === 3 && numbers.length >= 6, 10_000, 'events and blocks from the first node')
          await twins.kill(0)
          // Missed while no node serves the stream: two events and four blocks.
          for (let i = 0; i < 2; i++) { await emitter.emit(); await twins.mine() }
          assert.equal(counts.length, 3)
          gate.open()
          await until(() => upstreams(1) === 1, 10_000, 'the stream on the second node')
          await emitter.emit()
          await twins.mine()
          await until(() => counts.length === 6 && numbers.length >= 12, 15_000, 'events and blocks after the failover').catch((e) => { console.log('NUMBERS', numbers.join(), 'COUNTS', counts.join(), JSON.stringify(t.app.streams.registry.counts(poolId), (k, v) => v instanceof Map ? [...v] : v)); throw e })
          const first = Number(numbers[0])
          assert.deepEqual(numbers.map(Number), Array.from({ length: numbers.length }, (_, i) => first + i), 'every block once, in order')
          assert.deepEqual(counts, [1n, 2n, 3n, 4n, 5n, 6n], 'every event once, in order')
          assert.equal(closed, false, 'the client\'s socket stayed open')
          await t.app.runtime.flush()
          const history = await t.request({ method: 'GET', url: `/api/pools/${poolId}/history` })
          assert.ok(history.body.history.some((r: { reason: string, from_provider: string }) => r.reason === 'stream_failover' && r.from_provider === `${name}-0`))
        } finally {
          unwatchBlocks()
          unwatchEvents()
          ;(await client.transport.getRpcClient()).close()
        }
      } finally {
        await gate.close()
        await twins.close()
      }
    })

    it('shares one upstream newHeads among 500 clients, each under its own id, and ends it upstream with the last one', LIMIT, async () => {
      const twins: Twins = await startTwins(1)
      try {
        const name = `evm-share-${dialect.name}`
        const { poolId, providers } = await poolOfUrls(t, name, twins.nodes.map((n) => n.url), { protocol: 'evm', ws_max_streams_per_client: 1000 })
        const clients = await Promise.all(Array.from({ length: 500 }, async () => await openClient(`${base}/p/${name}/`)))
        for (const [i, c] of clients.entries()) c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: ['newHeads'] }))
        await until(() => clients.every((c) => c.messages.length === 1), 20_000, 'every subscription answered')
        const ids = clients.map((c) => JSON.parse(c.messages[0] as string).result as string)
        assert.equal(new Set(ids).size, 500, 'an id each')
        assert.equal(t.app.streams.registry.counts(poolId).subscriptions, 1, 'one upstream subscription')
        assert.equal(t.app.streams.registry.counts(poolId).upstreams.get(providers[0] as number), 1, 'one upstream socket')
        await twins.mine()
        await until(() => clients.every((c) => c.messages.length === 2), 20_000, 'the head to every client')
        const heads = clients.map((c) => JSON.parse(c.messages[1] as string) as { params: { subscription: string, result: { hash: string } } })
        assert.ok(heads.every((h, i) => h.params.subscription === ids[i]), 'under its own id')
        assert.equal(new Set(heads.map((h) => h.params.result.hash)).size, 1, 'the same head')
        for (const [i, c] of clients.entries()) c.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1000 + i, method: 'eth_unsubscribe', params: [ids[i]] }))
        await until(() => clients.every((c) => c.messages.length === 3), 20_000, 'every unsubscribe answered')
        assert.ok(clients.every((c) => JSON.parse(c.messages[2] as string).result === true))
        await until(() => (t.app.streams.registry.counts(poolId).upstreams.get(providers[0] as number) ?? 0) === 0, 5_000, 'the upstream socket closed with the last subscription')
        assert.equal(t.app.streams.registry.counts(poolId).subscriptions, 0)
        for (const c of clients) c.ws.close()
        await Promise.all(clients.map(async (c) => await c.closed))
        assert.equal(t.app.streams.registry.counts(poolId).open, 0)
      } finally {
        await twins.close()
      }
    })

    it('speaks JSON-RPC over the socket: a parse error, a batch with a subscription inside, an unknown unsubscribe, a notification unanswered, and at most 100 subscriptions a stream', LIMIT, async () => {
      const twins: Twins = await startTwins(1)
      try {
        const name = `evm-rpc-${dialect.name}`
        const { poolId } = await poolOfUrls(t, name, twins.nodes.map((n) => n.url), { protocol: 'evm' })
        const client = await openClient(`${base}/p/${name}/`)
        const ask = async (text: string) => {
          const before = client.messages.length
          client.ws.send(text)
          await until(() => client.messages.length > before, 5_000, `an answer to ${text.slice(0, 60)}`)
          return JSON.parse(client.messages[before] as string)
        }
        assert.deepEqual(await ask('{"jsonrpc":'), { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
        const batch = await ask(JSON.stringify([
          { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
          { jsonrpc: '2.0', id: 2, method: 'eth_subscribe', params: ['newHeads'] },
          { jsonrpc: '2.0', method: 'eth_chainId', params: [] }
        ]))
        assert.deepEqual(batch.map((a: { id: number }) => a.id), [1, 2], 'the notification has no answer')
        assert.equal(batch[0].result, '0x539')
        assert.match(batch[1].result, /^0x[0-9a-f]{32}$/)
        assert.deepEqual(await ask(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'eth_unsubscribe', params: ['0x00'] })), { jsonrpc: '2.0', id: 3, result: false })
        for (let i = 0; i < 99; i++) client.ws.send(JSON.stringify({ jsonrpc: '2.0', id: 100 + i, method: 'eth_subscribe', params: ['logs', { topics: [`0x${i.toString(16).padStart(64, '0')}`] }] }))
        await until(() => client.messages.length === 3 + 99, 20_000, 'the 99 subscriptions answered')
        const refused = await ask(JSON.stringify({ jsonrpc: '2.0', id: 999, method: 'eth_subscribe', params: ['logs', {}] }))
        assert.deepEqual(refused, { jsonrpc: '2.0', id: 999, error: { code: -32005, message: 'a stream keeps at most 100 subscriptions' } })
        client.ws.close()
        await client.closed
        // An answer larger than ws_max_message_bytes: an error in its place, the stream open.
        assert.equal((await t.request({ method: 'PUT', url: `/api/pools/${poolId}`, payload: { ws_max_message_bytes: 1024 } })).status, 200)
        const small = await openClient(`${base}/p/${name}/`)
        // Three blocks (each with its 512-byte bloom) in answer to a request of under 200 bytes.
        small.ws.send(JSON.stringify(Array.from({ length: 3 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getBlockByNumber', params: ['0x0', false] }))))
        await until(() => small.messages.length === 1, 5_000, 'the batch\'s answer')
        assert.deepEqual(JSON.parse(small.messages[0] as string), { jsonrpc: '2.0', id: null, error: { code: -32603, message: 'the answer is larger than ws_max_message_bytes (1024)' } })
        assert.equal(small.ws.readyState, small.ws.OPEN)
        small.ws.close()
      } finally {
        await twins.close()
      }
    })
  })
}
