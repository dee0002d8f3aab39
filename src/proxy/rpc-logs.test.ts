/**
 * An evm pool's large log ranges (issue 36 item 9) end to end on real sockets: a
 * contract deployed on a real node (ganache) emits an event in each of a dozen
 * blocks, and viem's and ethers' getLogs through a pool whose member says
 * `max_logs_range` 4 get every log, in block order, as the node answers it directly,
 * the node having been asked range by range (counted by a recording proxy in front
 * of it); `latest` is read from the pool's head; a pool without a limit sends the
 * call as it is. A scripted provider refusing ranges wider than 2 blocks ("query
 * returned more than 10000 results") has its ranges halved down until they pass; a
 * range's other error is the call's answer; a call needing more than 1,000 ranges is
 * refused without a provider asked; no range is sent once the client left; a batch's
 * eth_getLogs is split too.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { JsonRpcProvider } from 'ethers'
import { createPublicClient, createWalletClient, http, type Address, type Hex } from 'viem'
import { localhost } from 'viem/chains'
import { startNode, type Node } from '../../test/ganache.js'
import { poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { upstream, type Upstream } from '../../test/upstreams.js'

const LIMIT = { timeout: 120_000 }

/** The event's one topic. */
const TOPIC = `0x${'ab'.repeat(32)}` as Hex
/** Runtime code: LOG1(memory 0..0, TOPIC) on any call, then STOP. */
const RUNTIME = `7f${TOPIC.slice(2)}60006000a100`
/** Init code: copy the 39-byte runtime (at offset 12) to memory and return it. */
const DEPLOY = `0x6027600c60003960276000f3${RUNTIME}` as Hex

/** POSTs `body` to `url` as JSON, answering the parsed body. */
async function post (url: string, body: unknown): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  assert.equal(res.status, 200)
  return await res.json()
}

/** The calls an upstream saw, as [method, params]. */
const callsSeen = (up: Upstream): Array<[string, any]> => up.seen.map((s) => {
  const call = JSON.parse(s.body) as { method: string, params?: unknown }
  return [call.method, call.params]
})
/** The block ranges of the eth_getLogs calls an upstream saw, as numbers. */
const rangesSeen = (up: Upstream, from = 0): Array<[number, number]> => callsSeen(up).slice(from).filter(([method]) => method === 'eth_getLogs')
  .map(([, params]) => [Number(params[0].fromBlock), Number(params[0].toBlock)])

/** A scripted node: each eth_getLogs over `fromBlock`..`toBlock` answered by `answer` (one log per block unless it says otherwise). */
async function scripted (answer: (from: number, to: number) => { result: unknown } | { error: unknown }): Promise<Upstream> {
  return await upstream((_req, res, body) => {
    const call = JSON.parse(body) as { id: unknown, method: string, params: Array<{ fromBlock: string, toBlock: string }> }
    const reply = call.method === 'eth_getLogs'
      ? answer(Number(call.params[0]?.fromBlock), Number(call.params[0]?.toBlock))
      : call.method === 'eth_blockNumber' ? { result: '0x1f' } : { result: '0x539' }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, ...reply }))
  })
}
/** One log per block of from..to, as a node lists them. */
const logsOf = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ blockNumber: `0x${(from + i).toString(16)}`, logIndex: '0x0' }))

const TOO_MANY = { code: -32005, message: 'query returned more than 10000 results' }
const getLogs = (id: number | string, fromBlock: string, toBlock?: string) =>
  ({ jsonrpc: '2.0', id, method: 'eth_getLogs', params: [{ fromBlock, ...(toBlock === undefined ? {} : { toBlock }) }] })

for (const dialect of dialects) {
  describeOn(dialect, 'evm pools split large eth_getLogs ranges', () => {
    let t: TestApp
    let base: string
    let node: Node
    /** A recording proxy in front of the node: what the pool asked it. */
    let recording: Upstream
    let contract: Address
    let lastBlock: bigint

    before(async () => {
      node = await startNode()
      recording = await upstream((_req, res, body) => {
        fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(async (answer) => {
          res.writeHead(answer.status, { 'content-type': 'application/json' })
          res.end(await answer.text())
        }, () => { res.destroy() })
      })
      // The contract from ganache's first unlocked account, then a dozen blocks each with its event (one block per transaction).
      const [account] = await node.call('eth_accounts') as Address[]
      const wallet = createWalletClient({ account: account as Address, chain: localhost, transport: http(node.url) })
      const direct = createPublicClient({ chain: localhost, transport: http(node.url) })
      const deployed = await direct.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ data: DEPLOY }) })
      contract = deployed.contractAddress as Address
      for (let i = 0; i < 12; i++) await direct.waitForTransactionReceipt({ hash: await wallet.sendTransaction({ to: contract }) })
      lastBlock = await direct.getBlockNumber()
      t = await buildTestApp(dialect)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      await t?.close()
      await recording?.close()
      await node?.close()
    })

    it('viem\'s and ethers\' getLogs over a dozen blocks get every log in block order, the node asked 4 blocks at a time', LIMIT, async () => {
      await poolOfUrls(t, 'chain', [recording.url], { protocol: 'evm' }, { max_logs_range: 4 })
      const direct = createPublicClient({ chain: localhost, transport: http(node.url) })
      const pooled = createPublicClient({ chain: localhost, transport: http(`${base}/p/chain/`, { retryCount: 0 }) })
      const asked = { address: contract, fromBlock: 1n, toBlock: lastBlock }
      const expected = await direct.getLogs(asked)
      assert.equal(expected.length, 12, 'the node has a log in each of 12 blocks')
      assert.ok(expected.every((log) => log.topics[0] === TOPIC))
      const seen = recording.seen.length
      const logs = await pooled.getLogs(asked)
      assert.deepEqual(logs, expected)
      assert.deepEqual(logs.map((log) => log.blockNumber), [...logs.map((log) => log.blockNumber)].sort((a, b) => Number(a - b)), 'in block order')
      const last = Number(lastBlock)
      const ranges = Array.from({ length: Math.ceil(last / 4) }, (_, i): [number, number] => [1 + 4 * i, Math.min(last, 4 * i + 4)])
      assert.deepEqual(rangesSeen(recording, seen), ranges, 'each range of 4 blocks asked once')

      const ethers = new JsonRpcProvider(`${base}/p/chain/`, undefined, { staticNetwork: true })
      try {
        const got = await ethers.getLogs({ address: contract, fromBlock: 1, toBlock: last })
        assert.deepEqual(got.map((log) => [log.blockNumber, log.transactionHash, log.topics[0]]), expected.map((log) => [Number(log.blockNumber), log.transactionHash, TOPIC]))
      } finally {
        ethers.destroy()
      }
    })

    it('reads latest (and a missing toBlock) as the head tracker knows it, finalized from its block; a pool without a limit sends the call as it is', LIMIT, async () => {
      await poolOfUrls(t, 'head', [recording.url], { protocol: 'evm' }, { max_logs_range: 4 })
      const expected = await node.call('eth_getLogs', [{ address: contract, fromBlock: '0x1', toBlock: 'latest' }])
      for (const toBlock of ['latest', undefined, 'finalized']) {
        const seen = recording.seen.length
        const answer = await post(`${base}/p/head/`, { ...getLogs('h', '0x1', toBlock), params: [{ address: contract, fromBlock: '0x1', ...(toBlock === undefined ? {} : { toBlock }) }] })
        assert.deepEqual(answer, { jsonrpc: '2.0', id: 'h', result: expected })
        const methods = callsSeen(recording).slice(seen).map(([method]) => method)
        // latest: the pool's head checks know it (rpc-heads.ts), no call of its own; finalized: its block asked first.
        const head = toBlock === 'finalized' ? ['eth_getBlockByNumber'] : []
        assert.deepEqual(methods, [...head, ...rangesSeen(recording, seen).map(() => 'eth_getLogs')], 'the head first when asked, then the ranges')
        assert.equal(rangesSeen(recording, seen).length, Math.ceil(Number(lastBlock) / 4))
      }

      await poolOfUrls(t, 'unlimited', [recording.url], { protocol: 'evm' })
      const seen = recording.seen.length
      const whole = await post(`${base}/p/unlimited/`, { ...getLogs(3, '0x1', 'latest'), params: [{ address: contract, fromBlock: '0x1', toBlock: 'latest' }] })
      assert.deepEqual(whole.result, expected)
      assert.deepEqual(callsSeen(recording).slice(seen), [['eth_getLogs', [{ address: contract, fromBlock: '0x1', toBlock: 'latest' }]]], 'sent once, as it came')
    })

    it('halves a range refused as "query returned more than 10000 results" until it passes, the logs merged in block order', LIMIT, async () => {
      const refusing = await scripted((from, to) => to - from + 1 > 2 ? { error: TOO_MANY } : { result: logsOf(from, to) })
      try {
        await poolOfUrls(t, 'halving', [refusing.url], { protocol: 'evm' }, { max_logs_range: 8 })
        const answer = await post(`${base}/p/halving/`, getLogs(9, '0x0', '0xf'))
        assert.deepEqual(answer, { jsonrpc: '2.0', id: 9, result: logsOf(0, 15) })
        const asked = rangesSeen(refusing)
        assert.deepEqual(asked.filter(([from]) => from < 8), [[0, 7], [0, 3], [0, 1], [2, 3], [4, 7], [4, 5], [6, 7]], 'halved, the lower half first')
        assert.equal(asked.length, 14)

        // Refused down to one block: that refusal is the call's answer.
        const always = await scripted(() => ({ error: TOO_MANY }))
        try {
          await poolOfUrls(t, 'refused', [always.url], { protocol: 'evm' }, { max_logs_range: 2 })
          assert.deepEqual(await post(`${base}/p/refused/`, getLogs('r', '0x0', '0x3')), { jsonrpc: '2.0', id: 'r', error: TOO_MANY })
          const tried = rangesSeen(always)
          assert.ok(tried.every(([from, to]) => to - from + 1 <= 2) && tried.some(([from, to]) => from === to), `halved down to one block: ${JSON.stringify(tried)}`)
        } finally {
          await always.close()
        }
      } finally {
        await refusing.close()
      }
    })

    it('answers a range\'s other error as the call\'s own, and refuses a call needing more than 1,000 ranges without asking a provider', LIMIT, async () => {
      const invalid = { code: -32602, message: 'invalid argument 0: topic list too long' }
      const erring = await scripted((from) => from >= 4 ? { error: invalid } : { result: logsOf(from, from + 3) })
      try {
        await poolOfUrls(t, 'erring', [erring.url], { protocol: 'evm' }, { max_logs_range: 4 })
        assert.deepEqual(await post(`${base}/p/erring/`, getLogs(5, '0x0', '0xb')), { jsonrpc: '2.0', id: 5, error: invalid })
        assert.ok(rangesSeen(erring).every(([from, to]) => to - from + 1 === 4), 'not halved')

        await poolOfUrls(t, 'narrow', [erring.url], { protocol: 'evm' }, { max_logs_range: 1 })
        const seen = erring.seen.length
        const wide = await post(`${base}/p/narrow/`, getLogs(6, '0x0', '0x3e8'))
        assert.equal(wide.id, 6)
        assert.equal(wide.error.code, -32602)
        assert.match(wide.error.message, /1001 blocks: .* at most 1000 ranges of 1 blocks/)
        assert.equal(erring.seen.length, seen, 'no provider asked')
      } finally {
        await erring.close()
      }
    })

    it('sends no more ranges once the client has left', LIMIT, async () => {
      const slow = await upstream((_req, res, body) => {
        const { id } = JSON.parse(body) as { id: unknown }
        setTimeout(() => {
          res.writeHead(200, { 'content-type': 'application/json' })
          res.end(JSON.stringify({ jsonrpc: '2.0', id, result: [] }))
        }, 300)
      })
      try {
        await poolOfUrls(t, 'leaving', [slow.url], { protocol: 'evm' }, { max_logs_range: 1 })
        const leaving = new AbortController()
        const asked = fetch(`${base}/p/leaving/`, {
          method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(getLogs(1, '0x0', '0x13')), signal: leaving.signal
        }).catch(() => undefined)
        for (let waited = 0; slow.seen.length < 4 && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10))
        assert.equal(slow.seen.length, 4, 'the first 4 of 20 ranges in flight at once')
        leaving.abort()
        await asked
        await new Promise((resolve) => setTimeout(resolve, 1000))
        assert.equal(slow.seen.length, 4, 'no range sent after the client left')
      } finally {
        await slow.close()
      }
    })

    it('splits a batch\'s eth_getLogs call too, each answer in its place', LIMIT, async () => {
      const logging = await scripted((from, to) => ({ result: logsOf(from, to) }))
      try {
        await poolOfUrls(t, 'batch-logs', [logging.url], { protocol: 'evm' }, { max_logs_range: 3 })
        const answers = await post(`${base}/p/batch-logs/`, [
          { jsonrpc: '2.0', id: 1, method: 'eth_chainId' },
          getLogs(2, '0x5', '0xa'),
          getLogs(3, 'earliest', '0x4'),
          getLogs(4, '0xb', '0xc')
        ])
        assert.deepEqual(answers, [
          { jsonrpc: '2.0', id: 1, result: '0x539' },
          { jsonrpc: '2.0', id: 2, result: logsOf(5, 10) },
          { jsonrpc: '2.0', id: 3, result: logsOf(0, 4) },
          { jsonrpc: '2.0', id: 4, result: logsOf(11, 12) }
        ])
        assert.deepEqual(rangesSeen(logging).sort((a, b) => a[0] - b[0]), [[0, 2], [3, 4], [5, 7], [8, 10], [11, 12]], 'the wide calls in ranges of 3 (earliest as 0), the narrow one as it came')
      } finally {
        await logging.close()
      }
    })
  })
}
