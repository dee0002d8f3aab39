/**
 * An `evm` pool's heads at their edges (issue 36 items 5, 6 and 9, from a review's
 * reproductions), with scripted nodes that say exactly the heads the test needs: a
 * node avoided for being behind still answers when no one else can (a current node
 * that denies the method, or is rate limited); a node below a range's end is not
 * asked its logs, and an empty list from a node that may not have the blocks is
 * never stored for good; a receipt is not asked of a node behind; a batch's log
 * splits share one budget of upstream calls; a poll's `latest` is read from the
 * head tracker, not asked upstream.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { upstream, type Upstream } from '../../test/upstreams.js'

const LIMIT = { timeout: 60_000 }

interface Posted { status: number, body: any, provider: string | null, cache: string | null }

async function post (url: string, body: unknown): Promise<Posted> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: res.status, body: await res.json(), provider: res.headers.get('x-sourcepool-provider'), cache: res.headers.get('x-sourcepool-cache') }
}

const hex = (n: number): string => `0x${n.toString(16)}`

/** A scripted node at `head` (its finalized tag `fin`), answering eth_getLogs with `logs`; `limited` answers clients' calls 429. */
async function nodeAt (head: number, options: { fin?: number, logs?: () => unknown[], limited?: boolean, receipt?: unknown } = {}): Promise<Upstream> {
  return await upstream((req, res, body) => {
    const call = JSON.parse(body) as { id: number, method: string, params: unknown[] }
    const send = (answer: unknown, status = 200): void => { res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer)) }
    const result = (value: unknown): void => { send({ jsonrpc: '2.0', id: call.id, result: value }) }
    if (options.limited === true && req.headers['user-agent'] !== 'sourcepool-head-check') return send({ jsonrpc: '2.0', id: call.id, error: { code: -32005, message: 'rate limited' } }, 429)
    if (call.method === 'eth_blockNumber') return result(hex(head))
    if (call.method === 'eth_getBlockByNumber' && call.params[0] === 'finalized') return result({ number: hex(options.fin ?? head - 64) })
    if (call.method === 'eth_getLogs') return result(options.logs?.() ?? [])
    if (call.method === 'eth_getTransactionReceipt') return result(options.receipt ?? null)
    result('0x1')
  })
}

const methodsOf = (up: Upstream): string[] => up.seen.map((one) => (JSON.parse(one.body) as { method: string }).method)

for (const dialect of dialects) {
  describeOn(dialect, 'evm pools: heads at their edges', () => {
    let t: TestApp
    let base: string
    const nodes: Upstream[] = []
    const node = async (...args: Parameters<typeof nodeAt>): Promise<Upstream> => { const up = await nodeAt(...args); nodes.push(up); return up }

    before(async () => {
      t = await buildTestApp(dialect)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      await t?.close()
      for (const up of nodes) await up.close()
    })

    it('a node behind still answers when the current one denies the method or is rate limited', LIMIT, async () => {
      const [current, behind] = [await node(0x100), await node(0xf0)]
      const { providers } = await poolOfUrls(t, 'deny-current', [current.url, behind.url], { protocol: 'evm' })
      assert.equal((await t.request({ method: 'PUT', url: `/api/providers/${providers[0] as number}`, payload: { methods: { deny: ['eth_call'] } } })).status, 200)
      const called = await post(`${base}/p/deny-current/`, { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: `0x${'11'.repeat(20)}` }, 'latest'] })
      assert.deepEqual([called.status, called.body.result, called.provider], [200, '0x1', 'deny-current-1'])

      const [limited, late] = [await node(0x100, { limited: true }), await node(0xf0)]
      await poolOfUrls(t, 'limited-current', [limited.url, late.url], { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
      const balance = await post(`${base}/p/limited-current/`, { jsonrpc: '2.0', id: 2, method: 'eth_getBalance', params: [`0x${'11'.repeat(20)}`, 'latest'] })
      assert.deepEqual([balance.status, balance.body.result, balance.provider], [200, '0x1', 'limited-current-1'])
      assert.equal(limited.seen.length, 1)
    })

    it('asks logs only of a node that has the range\'s end, and never stores an empty list from one that may not', LIMIT, async () => {
      const log = { address: `0x${'22'.repeat(20)}`, blockNumber: '0xfd', logIndex: '0x0' }
      // Within max_block_lag (4 behind), but below the range's end: it would answer [] for blocks it does not have.
      const [current, short] = [await node(0x100, { fin: 0xfe, logs: () => [log] }), await node(0xfc, { fin: 0xf0 })]
      await poolOfUrls(t, 'logs-end', [current.url, short.url], { protocol: 'evm', cache_ttl_seconds: 60 })
      for (let i = 0; i < 4; i++) {
        const params = [{ fromBlock: '0xfd', toBlock: '0xfe', address: `0x${String(i % 2).padStart(40, '0')}` }]
        const got = await post(`${base}/p/logs-end/`, { jsonrpc: '2.0', id: i, method: 'eth_getLogs', params })
        assert.deepEqual(got.body.result, [log], `call ${i}: ${JSON.stringify(got)}`)
      }
      assert.deepEqual(methodsOf(short), [], 'the node below the range\'s end was not asked')
    })

    it('asks a receipt of the current node, not of one behind that has not seen it', LIMIT, async () => {
      const receipt = { transactionHash: `0x${'ab'.repeat(32)}`, blockNumber: '0xff', status: '0x1' }
      const [current, behind] = [await node(0x100, { receipt }), await node(0xf0)]
      await poolOfUrls(t, 'receipts', [current.url, behind.url], { protocol: 'evm' })
      for (let i = 0; i < 4; i++) {
        const got = await post(`${base}/p/receipts/`, { jsonrpc: '2.0', id: i, method: 'eth_getTransactionReceipt', params: [receipt.transactionHash] })
        assert.deepEqual(got.body.result, receipt)
      }
      assert.deepEqual(methodsOf(behind), [])
    })

    it('gives a batch\'s log splits one budget of upstream calls; a poll\'s latest comes from the head tracker', LIMIT, async () => {
      const wide = await node(0x100000)
      // The scripted node takes single calls only (max_batch_size 1): what is counted is range calls, one request each.
      await poolOfUrls(t, 'budget', [wide.url], { protocol: 'evm' }, { max_logs_range: 1, max_batch_size: 1 })
      const batch = Array.from({ length: 3 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getLogs', params: [{ fromBlock: '0x1', toBlock: '0x3e8', address: `0x${String(i).padStart(40, '0')}` }] }))
      const got = await post(`${base}/p/budget/`, batch)
      assert.equal(got.status, 200)
      assert.ok(wide.seen.length <= 2000, `${wide.seen.length} upstream calls for one request`)
      assert.ok((got.body as Array<{ error?: { message: string } }>).some((answer) => /range calls for one request/.test(answer.error?.message ?? '')), JSON.stringify(got.body).slice(0, 300))

      const polled = await node(0x1000)
      await poolOfUrls(t, 'poll', [polled.url], { protocol: 'evm' }, { max_logs_range: 1000 })
      for (let i = 0; i < 3; i++) await post(`${base}/p/poll/`, { jsonrpc: '2.0', id: i, method: 'eth_getLogs', params: [{ fromBlock: '0xff0', toBlock: 'latest' }] })
      assert.deepEqual(methodsOf(polled), ['eth_getLogs', 'eth_getLogs', 'eth_getLogs'])
    })
  })
}
