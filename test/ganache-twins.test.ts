/**
 * The twins (ganache-twins.ts) keep their promise: the same work makes the same blocks
 * and logs, hash for hash, on every node; a viem client over WebSocket gets block
 * numbers and the emitter's events from one node; a killed node's WebSocket closes
 * without a close frame (1006) and its port refuses, while the other node still answers.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import WebSocket from 'ws'
import { createPublicClient, webSocket, type Hex } from 'viem'
import { EMITTER_ABI, startTwins, type Twins } from './ganache-twins.js'

const LIMIT = { timeout: 30_000 }

interface Block { number: Hex, hash: Hex, parentHash: Hex, timestamp: Hex }
interface Log { blockHash: Hex, transactionHash: Hex, topics: Hex[], data: Hex }

/** Repeats `act` every 50 ms until `done` holds (a subscription starts some time after it is asked for). */
async function until (done: () => boolean, act: () => Promise<unknown>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!done()) {
    if (Date.now() > end) throw new Error(`not done within ${ms} ms`)
    await act()
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('startTwins: nodes with one chain', () => {
  let twins: Twins | undefined
  afterEach(async () => { await twins?.close() })

  it('makes the same blocks and logs on every node from the same work', LIMIT, async () => {
    twins = await startTwins(2)
    await twins.mine(3)
    const emitter = await twins.deployEmitter()
    await emitter.emit()
    await emitter.emit()
    const chains = await Promise.all(twins.nodes.map(async (node) => await Promise.all(
      Array.from({ length: 7 }, async (_, n) => await node.call('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]) as Block))))
    const [first, second] = chains as [Block[], Block[]]
    assert.deepEqual(second.map((b) => b.hash), first.map((b) => b.hash))
    assert.deepEqual(first.map((b) => Number(b.number)), [0, 1, 2, 3, 4, 5, 6], 'genesis, 3 mined, the deployment, 2 calls')
    assert.deepEqual(first.slice(1).map((b, i) => b.parentHash === first[i]?.hash), Array(6).fill(true), 'one chain')
    assert.deepEqual(first.slice(1).map((b, i) => Number(b.timestamp) - Number(first[i]?.timestamp)), Array(6).fill(12))
    assert.equal(await twins.nodes[0]?.call('eth_getBlockByNumber', ['0x7', false]), null, 'nothing more was mined')

    const logs = await Promise.all(twins.nodes.map(async (node) => await node.call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest', address: emitter.address }]) as Log[]))
    assert.deepEqual(logs[1], logs[0])
    assert.deepEqual(logs[0]?.map((log) => [log.blockHash, BigInt(log.data)]), [[first[5]?.hash, 1n], [first[6]?.hash, 2n]], 'a Ping a call, counting')
  })

  it('serves a viem WebSocket client block numbers and the emitter\'s events', LIMIT, async () => {
    twins = await startTwins(2)
    const emitter = await twins.deployEmitter()
    const client = createPublicClient({ transport: webSocket(twins.nodes[1]?.wsUrl, { reconnect: false }) })
    const numbers: bigint[] = []
    const counts: bigint[] = []
    const unwatchBlocks = client.watchBlockNumber({ onBlockNumber: (n) => numbers.push(n) })
    const unwatchEvents = client.watchContractEvent({ address: emitter.address, abi: EMITTER_ABI, eventName: 'Ping', onLogs: (logs) => { for (const log of logs) counts.push(log.args.count ?? -1n) } })
    try {
      await until(() => numbers.length > 0, async () => { await twins?.mine() })
      let emitted = 0n
      await until(() => counts.length > 0, async () => { await emitter.emit(); emitted++ })
      assert.ok(numbers[0] !== undefined && numbers[0] > 1n, 'a block mined after the deployment')
      const first = counts[0] ?? 0n
      assert.ok(first >= 1n && counts.every((count, i) => count === first + BigInt(i) && count <= emitted), `the calls, counted in order: ${counts.join()}`)
    } finally {
      unwatchBlocks()
      unwatchEvents()
      ;(await client.transport.getRpcClient()).close()
    }
  })

  it('kills a node as a crash: its WebSocket drops without a close frame and its port refuses', LIMIT, async () => {
    twins = await startTwins(2)
    const [dying, living] = twins.nodes as [Twins['nodes'][0], Twins['nodes'][0]]
    const socket = new WebSocket(dying.wsUrl)
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    const closed = new Promise<number>((resolve) => socket.once('close', resolve))
    socket.on('error', () => {}) // ECONNRESET: the crash itself
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }))
    await new Promise((resolve) => socket.once('message', resolve))

    await twins.kill(0)
    assert.equal(await closed, 1006)
    assert.equal(dying.alive, false)
    await assert.rejects(fetch(dying.url, { method: 'POST', body: '{}' }), (error: Error & { cause?: { code?: string } }) => error.cause?.code === 'ECONNREFUSED')
    await twins.mine(2)
    assert.equal(await living.call('eth_blockNumber'), '0x2', 'the living node still mines and answers')
  })
})
