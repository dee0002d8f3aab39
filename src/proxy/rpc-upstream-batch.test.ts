/**
 * Upstream batches (issue 36 item 2), end to end on real sockets: two real Ethereum
 * nodes (ganache) behind recording fronts, and scripted JSON-RPC providers for what a
 * real node cannot be made to do (refuse a batch, rate-limit one call of it, answer
 * with a missing, foreign or repeated id, hold an answer). A client batch's calls that
 * reach the same member go to it as one upstream batch of at most its `max_batch_size`
 * calls; `max_batch_size` 1 sends them one by one; a provider refusing a batch gets
 * its calls one by one, then single calls only (its record says so) until it is
 * updated; each call of an upstream batch is judged on its own (one
 * rate-limited call moves on alone; a call without its own answer fails over, never
 * given another's); a cache HIT, a read repeated in the batch and a read shared with
 * another client's call in flight never reach a provider, and do not hold the others back.
 * And what a review found (each test failed before its fix): a flood of elements in
 * a list's answer is the list's bad answer; a failure of a list is one health failure;
 * a call that may not be repeated is never sent twice after an answer too big to hold;
 * a refusal is learned only when the calls alone are then taken, per path; a 413
 * halves the list; a batch keeps to 16 upstream requests open at once.
 */
import assert from 'node:assert/strict'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, it } from 'node:test'
import { createPublicClient, http } from 'viem'
import { recorded, startNode, type Node } from '../../test/ganache.js'
import { addMember, createPool, createProvider, poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import { upstream, type Upstream } from '../../test/upstreams.js'

const LIMIT = { timeout: 60_000 }

/** The i-th test address (never a funded account). */
const address = (i: number): `0x${string}` => `0x${(0xbeef00 + i).toString(16).padStart(40, '0')}`
/** The balance the scripted providers answer for the i-th address (ganache answers 0x0). */
const scriptedBalance = (i: number): string => `0x${(i + 1).toString(16)}`
const indexOf = (addr: string): number => parseInt(addr, 16) - 0xbeef00

interface Call { jsonrpc: '2.0', id?: unknown, method: string, params?: unknown[] }
const getBalance = (i: number, id: unknown = i): Call => ({ jsonrpc: '2.0', id, method: 'eth_getBalance', params: [address(i), 'latest'] })

/** What an upstream was sent: each request as its calls (a list) or as one call (an object). */
const sent = (up: Upstream): Array<Call | Call[]> => up.seen.map((one) => JSON.parse(one.body) as Call | Call[])
/** The addresses each request asked for: a list per upstream batch, a bare index for a single call. */
const asked = (up: Upstream): Array<number | number[]> => sent(up).map((one) => Array.isArray(one) ? one.map((c) => indexOf(c.params?.[0] as string)) : indexOf(one.params?.[0] as string))

/** POSTs `body` as JSON to `url`: the parsed answer. */
async function post (url: string, body: unknown): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  assert.equal(res.status, 200)
  return await res.json()
}

/** The nodes' head, which the scripted providers answer too (so that no one lags in an evm pool). */
let head = '0x0'

/** A scripted node's answer to one call (a scripted balance for eth_getBalance; the nodes' head for anything else). */
const answerOf = (call: Call): Record<string, unknown> => ({
  jsonrpc: '2.0', id: call.id ?? null, result: call.method === 'eth_getBalance' ? scriptedBalance(indexOf(call.params?.[0] as string)) : call.method === 'eth_chainId' ? '0x539' : head
})

/** A scripted JSON-RPC provider: single calls answered by answerOf; a list as `onList` says. */
async function scripted (onList: (calls: Call[], res: ServerResponse) => void): Promise<Upstream> {
  return await upstream((_req: IncomingMessage, res: ServerResponse, body: string) => {
    const parsed = JSON.parse(body) as Call | Call[]
    if (Array.isArray(parsed)) { onList(parsed, res); return }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify(answerOf(parsed)))
  })
}
const answer = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}

/** A JSON-RPC call of a method no table knows (so neither a read that may be repeated nor a transaction). */
const filterChanges = (id: unknown): Call => ({ jsonrpc: '2.0', id, method: 'eth_getFilterChanges', params: ['0x1'] })

/** How many calls each request an upstream was sent held: a list's length, 0 for a call alone. */
const sizes = (up: Upstream): number[] => sent(up).map((one) => Array.isArray(one) ? one.length : 0)

for (const dialect of dialects) {
  describeOn(dialect, 'RPC pools: upstream batches', () => {
    let t: TestApp
    let base: string
    let nodes: Node[]
    let fronts: Upstream[]

    before(async () => {
      nodes = await Promise.all([startNode(), startNode()])
      fronts = await Promise.all(nodes.map(recorded))
      // Each address i holds i + 1 wei on both nodes: the same answer whichever node is asked.
      for (const node of nodes) for (let i = 0; i < 50; i++) await node.call('evm_setAccountBalance', [address(i), scriptedBalance(i)])
      head = await nodes[0]?.call('eth_blockNumber') as string
      t = await buildTestApp(dialect)
      await t.app.listen({ port: 0, host: '127.0.0.1' })
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
    })
    after(async () => {
      await t?.close()
      await Promise.all([...(fronts ?? []).map(async (f) => { await f.close() }), ...(nodes ?? []).map(async (n) => { await n.close() })])
    })

    const forget = () => { for (const front of fronts) front.seen.length = 0 }
    /** The pool's member for the provider, as its status record shows it once the runtime has written its counts. */
    const memberOf = async (poolId: number, providerId: number) => {
      await t.app.runtime.flush()
      const record = (await t.request({ method: 'GET', url: `/api/pools/${poolId}` })).body
      return record.members.find((m: { provider_id: number }) => m.provider_id === providerId)
    }
    const batchesOf = async (providerId: number) => (await t.request({ method: 'GET', url: `/api/providers/${providerId}` })).body.batches

    it('sends viem\'s 50-call batch to two nodes as upstream batches of at most max_batch_size calls, each call once, answered in order', LIMIT, async () => {
      forget()
      await poolOfUrls(t, 'two-nodes', fronts.map((f) => f.url), { protocol: 'evm' })
      const viem = createPublicClient({ transport: http(`${base}/p/two-nodes/`, { batch: true, retryCount: 0 }) })
      const balances = await Promise.all(Array.from({ length: 50 }, async (_, i) => await viem.getBalance({ address: address(i) })))
      assert.deepEqual(balances, Array.from({ length: 50 }, (_, i) => BigInt(i + 1)))
      const perNode = fronts.map(asked)
      // Round robin: 25 calls to each node, as lists of 10, 10 and 5 (max_batch_size 10 by default).
      for (const requests of perNode) {
        assert.ok(requests.every(Array.isArray), `only upstream batches: ${JSON.stringify(requests)}`)
        assert.deepEqual(requests.map((r) => (r as number[]).length).sort((a, b) => b - a), [10, 10, 5], JSON.stringify(requests))
      }
      assert.deepEqual(perNode.flat(2).sort((a, b) => (a as number) - (b as number)), Array.from({ length: 50 }, (_, i) => i), 'every call sent once')
    })

    it('sends every call alone to a provider whose max_batch_size is 1, beside one taking batches', LIMIT, async () => {
      forget()
      const pool = await createPool(t, 'single-calls', { protocol: 'evm', rotation_strategy: 'round_robin' })
      await addMember(t, pool, await createProvider(t, 'one-by-one', { base_url: fronts[0]?.url, max_batch_size: 1 }))
      await addMember(t, pool, await createProvider(t, 'batches-of-ten', { base_url: fronts[1]?.url }))
      const answers = await post(`${base}/p/single-calls/`, Array.from({ length: 20 }, (_, i) => getBalance(i)))
      assert.deepEqual(answers.map((a: { id: number, result: string }) => [a.id, a.result]), Array.from({ length: 20 }, (_, i) => [i, scriptedBalance(i)]))
      const [alone, batched] = fronts.map(asked) as [Array<number | number[]>, Array<number | number[]>]
      assert.equal(alone.length, 10)
      assert.ok(alone.every((r) => typeof r === 'number'), `no upstream batch: ${JSON.stringify(alone)}`)
      assert.deepEqual(batched.map((r) => (r as number[]).length), [10], 'the other member got its ten calls as one upstream batch')
      assert.deepEqual([...alone, ...batched.flat()].sort((a, b) => (a as number) - (b as number)), Array.from({ length: 20 }, (_, i) => i))
    })

    for (const [n, refusal, onList] of [
      [1, 'an HTTP 400', (_calls: Call[], res: ServerResponse) => { answer(res, 400, { error: 'batch requests are not supported' }) }],
      [2, 'one error object', (_calls: Call[], res: ServerResponse) => { answer(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'batch requests are not supported on this plan' } }) }]
    ] as const) {
      it(`a provider refusing an upstream batch with ${refusal} answers each call alone, and gets single calls from then on until it is updated`, LIMIT, async () => {
        const refusing = await scripted(onList)
        try {
          const name = `refusing-${n}`
          const { providers } = await poolOfUrls(t, name, [refusing.url], { protocol: 'jsonrpc' })
          const provider = providers[0] as number
          const batch = Array.from({ length: 4 }, (_, i) => getBalance(i, `c${i}`))
          const expected = Array.from({ length: 4 }, (_, i) => [`c${i}`, scriptedBalance(i)])
          const ask = async () => (await post(`${base}/p/${name}/`, batch)).map((a: { id: string, result: string }) => [a.id, a.result])
          assert.deepEqual(await ask(), expected, 'no call fails because of the refusal')
          assert.deepEqual(asked(refusing).slice(0, 1), [[0, 1, 2, 3]])
          assert.deepEqual(asked(refusing).slice(1).sort(), [0, 1, 2, 3], 'then each call alone')
          const record = async () => (await t.request({ method: 'GET', url: `/api/providers/${provider}` })).body
          assert.equal((await record()).batches, 'refused')
          assert.deepEqual(await ask(), expected)
          assert.deepEqual(asked(refusing).slice(5).sort(), [0, 1, 2, 3], 'single calls from then on')
          // An update of the provider (its max_batch_size sent again, unchanged) forgets the refusal: the next batch is tried again.
          assert.equal((await t.request({ method: 'PUT', url: `/api/providers/${provider}`, payload: { max_batch_size: 10 } })).status, 200)
          assert.equal((await record()).batches, null)
          assert.deepEqual(await ask(), expected)
          assert.deepEqual(asked(refusing)[9], [0, 1, 2, 3])
        } finally {
          await refusing.close()
        }
      })
    }

    it('moves on only the call rate limited inside an upstream batch; the others are answered from it', LIMIT, async () => {
      forget()
      const limiting = await scripted((calls, res) => {
        answer(res, 200, calls.map((c) => indexOf(c.params?.[0] as string) === 2 ? { jsonrpc: '2.0', id: c.id, error: { code: -32005, message: 'limit exceeded' } } : answerOf(c)))
      })
      try {
        await poolOfUrls(t, 'one-limited', [limiting.url, fronts[0]?.url as string], { protocol: 'jsonrpc', rotation_strategy: 'priority' }, {}, true)
        const answers = await post(`${base}/p/one-limited/`, Array.from({ length: 5 }, (_, i) => getBalance(i)))
        assert.deepEqual(answers.map((a: { id: number, result: string }) => [a.id, a.result]), [[0, '0x1'], [1, '0x2'], [2, '0x3'], [3, '0x4'], [4, '0x5']])
        assert.deepEqual(asked(limiting), [[0, 1, 2, 3, 4]])
        assert.deepEqual(asked(fronts[0] as Upstream), [2], 'the rate-limited call alone went to the node')
      } finally {
        await limiting.close()
      }
    })

    it('fails over a call whose id is missing, foreign or repeated in the upstream batch\'s answer, never giving it another call\'s answer', LIMIT, async () => {
      forget()
      // Call 1 unanswered, call 2 answered under a foreign id, call 3 answered twice; 0 and 4 as asked.
      const muddled = await scripted((calls, res) => {
        answer(res, 200, calls.flatMap((c) => {
          const i = indexOf(c.params?.[0] as string)
          if (i === 1) return []
          if (i === 2) return [{ ...answerOf(c), id: 'foreign', result: '0xbad' }]
          if (i === 3) return [answerOf(c), { ...answerOf(c), result: '0xbad' }]
          return [answerOf(c)]
        }))
      })
      try {
        // An evm pool: eth_getBalance is a read, which may be sent again (a jsonrpc pool's calls are not: who knows what they do).
        await poolOfUrls(t, 'muddled', [muddled.url, fronts[1]?.url as string], { protocol: 'evm', rotation_strategy: 'priority' }, {}, true)
        const answers = await post(`${base}/p/muddled/`, Array.from({ length: 5 }, (_, i) => getBalance(i, i + 100)))
        // All balances are i + 1, scripted or from the node: the node's answer shows only in who was asked.
        assert.deepEqual(answers.map((a: { id: number, result: string }) => [a.id, a.result]), [[100, '0x1'], [101, '0x2'], [102, '0x3'], [103, '0x4'], [104, '0x5']])
        assert.deepEqual(asked(muddled), [[0, 1, 2, 3, 4]])
        assert.deepEqual((asked(fronts[1] as Upstream) as number[]).sort(), [1, 2, 3], 'those three failed over to the node')
      } finally {
        await muddled.close()
      }
    })

    it('a cache HIT, a read repeated in the batch and one shared with another client\'s call in flight never reach a provider, nor hold the others back', LIMIT, async () => {
      const node = nodes[0] as Node
      // In front of the node: the answer to address 0 is held until the provider has been asked for address 1.
      let release: (() => void) | undefined
      const released = new Promise<void>((resolve) => { release = resolve })
      const gated = await upstream((_req, res, body) => {
        const calls = [JSON.parse(body) as Call | Call[]].flat()
        if (calls.some((c) => c.method === 'eth_getBalance' && indexOf(c.params?.[0] as string) === 1)) release?.()
        const held = calls.some((c) => c.method === 'eth_getBalance' && indexOf(c.params?.[0] as string) === 0) ? released : Promise.resolve()
        held.then(async () => await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).then(async (answered) => {
          res.writeHead(answered.status, { 'content-type': 'application/json' })
          res.end(await answered.text())
        }, () => { res.destroy() })
      })
      try {
        await poolOfUrls(t, 'shared', [gated.url], { protocol: 'evm', cache_ttl_seconds: 60 })
        const url = `${base}/p/shared/`
        assert.equal((await post(url, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' })).result, '0x539')
        const before = gated.seen.length
        // Another client's call for address 0, held upstream until address 1 is asked.
        const other = post(url, getBalance(0, 'other'))
        while (gated.seen.length === before) await new Promise((resolve) => setTimeout(resolve, 10))
        const answers = await post(url, [{ jsonrpc: '2.0', id: 'chain', method: 'eth_chainId' }, getBalance(0, 'zero'), getBalance(1, 'one'), getBalance(2, 'two'), getBalance(2, 'two-again')])
        assert.deepEqual(answers.map((a: { id: string, result: string }) => [a.id, a.result]), [['chain', '0x539'], ['zero', '0x1'], ['one', '0x2'], ['two', '0x3'], ['two-again', '0x3']])
        assert.equal((await other).result, '0x1')
        assert.deepEqual(asked({ ...gated, seen: gated.seen.slice(before) }), [0, [1, 2]], 'the other client\'s call, then one upstream batch of the two calls left')
      } finally {
        await gated.close()
      }
    })

    it('takes a list answered with more elements than calls as the list\'s bad answer: each read moves on, and the member\'s health hears of it once', LIMIT, async () => {
      forget()
      // 200,000 empty objects for a list of 3 calls: cut by scanning, they would cost a copy per element.
      const flood = `[${Array(200_000).fill('{}').join(',')}]`
      const flooding = await scripted((_calls, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(flood) })
      try {
        const { poolId, providers } = await poolOfUrls(t, 'flooded', [flooding.url, fronts[1]?.url as string], { protocol: 'evm', rotation_strategy: 'priority', failure_threshold: 3 }, {}, true)
        const answers = await post(`${base}/p/flooded/`, Array.from({ length: 3 }, (_, i) => getBalance(i)))
        assert.deepEqual(answers.map((a: { id: number, result: string }) => [a.id, a.result]), [[0, '0x1'], [1, '0x2'], [2, '0x3']])
        assert.deepEqual(asked(flooding), [[0, 1, 2]])
        assert.deepEqual((asked(fronts[1] as Upstream) as number[]).sort(), [0, 1, 2], 'each call moved on to the node')
        const member = await memberOf(poolId, providers[0] as number)
        assert.deepEqual([member.health, member.consecutive_failures], ['healthy', 1])
      } finally {
        await flooding.close()
      }
    })

    it('counts one upstream failure of a list once: a 502 to a 4-call list leaves a member with failure_threshold 3 in rotation', LIMIT, async () => {
      const failing = await scripted((_calls, res) => { answer(res, 502, { error: 'bad gateway' }) })
      try {
        const { poolId, providers } = await poolOfUrls(t, 'one-blip', [failing.url], { protocol: 'jsonrpc', failure_threshold: 3 })
        const answers = await post(`${base}/p/one-blip/`, Array.from({ length: 4 }, (_, i) => getBalance(i)))
        // A jsonrpc pool's calls may not be repeated: each gets the failure as its answer.
        assert.deepEqual(answers.map((a: { id: number, error?: { code: number } }) => [a.id, a.error?.code]), [[0, -32603], [1, -32603], [2, -32603], [3, -32603]])
        assert.deepEqual(sizes(failing), [4])
        const member = await memberOf(poolId, providers[0] as number)
        assert.deepEqual([member.health, member.failure_count, member.consecutive_failures], ['healthy', 1, 1])
      } finally {
        await failing.close()
      }
    })

    it('does not send again a call that may not be repeated when its list\'s answer is too big to hold; a read is sent again alone', LIMIT, async () => {
      // The list's answer: over 32 MiB (the bound a list's answer is held to), after the provider ran every call.
      const huge = Buffer.from(`[{"jsonrpc":"2.0","id":"pad","result":"0x${'0'.repeat(33 * 1024 * 1024)}"}]`)
      const big = await scripted((_calls, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(huge) })
      try {
        await poolOfUrls(t, 'too-big', [big.url], { protocol: 'evm' })
        const answers = await post(`${base}/p/too-big/`, [getBalance(0, 'read'), filterChanges('filter')])
        assert.deepEqual(answers[0], { jsonrpc: '2.0', id: 'read', result: '0x1' })
        assert.equal(answers[1].id, 'filter')
        assert.equal(answers[1].error?.code, -32603)
        assert.match(answers[1].error?.message, /may not be repeated, so it was not sent again/)
        const methods = sent(big).map((one) => Array.isArray(one) ? one.map((c) => c.method) : one.method)
        assert.deepEqual(methods, [['eth_getBalance', 'eth_getFilterChanges'], 'eth_getBalance'], 'the filter\'s call reached the provider once, in the list')
      } finally {
        await big.close()
      }
    })

    it('learns a refusal of lists only when the same calls are then taken one by one, and on that path only', LIMIT, async () => {
      // `/`: lists taken; `/single-only`: lists refused (400), single calls taken; any other path: 404.
      const paths = await upstream((req, res, body) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname
        const parsed = JSON.parse(body) as Call | Call[]
        if (path !== '/' && path !== '/single-only') { answer(res, 404, { error: 'not found' }); return }
        if (Array.isArray(parsed) && path === '/single-only') { answer(res, 400, { error: 'batch requests are not supported here' }); return }
        answer(res, 200, Array.isArray(parsed) ? parsed.map(answerOf) : answerOf(parsed))
      })
      try {
        const { providers } = await poolOfUrls(t, 'paths', [paths.url], { protocol: 'jsonrpc' })
        const provider = providers[0] as number
        const batch = Array.from({ length: 4 }, (_, i) => getBalance(i))
        // A client's batch to a path the provider does not serve: no call is answered, and nothing is learned.
        const typo = await post(`${base}/p/paths/typo`, batch.slice(0, 2))
        assert.deepEqual(typo.map((a: { id: number, result?: string }) => [a.id, a.result]), [[0, undefined], [1, undefined]])
        assert.deepEqual(sizes(paths), [2, 0, 0], 'the list, then its calls one by one')
        assert.equal(await batchesOf(provider), null, 'a 404 for the calls too says nothing about lists')
        paths.seen.length = 0
        await post(`${base}/p/paths/`, batch)
        assert.deepEqual(sizes(paths), [4], 'another client\'s batch still goes as one list')
        // Lists refused where single calls are taken: learned, for that path.
        paths.seen.length = 0
        const balances = async (path: string) => (await post(`${base}/p/paths${path}`, batch)).map((a: { result: string }) => a.result)
        assert.deepEqual(await balances('/single-only'), ['0x1', '0x2', '0x3', '0x4'])
        assert.deepEqual(sizes(paths), [4, 0, 0, 0, 0])
        assert.equal(await batchesOf(provider), 'refused')
        paths.seen.length = 0
        assert.deepEqual(await balances('/single-only'), ['0x1', '0x2', '0x3', '0x4'])
        assert.deepEqual(sizes(paths), [0, 0, 0, 0], 'single calls from then on, on that path')
        paths.seen.length = 0
        assert.deepEqual(await balances('/'), ['0x1', '0x2', '0x3', '0x4'])
        assert.deepEqual(sizes(paths), [4], 'lists still on the path that takes them')
      } finally {
        await paths.close()
      }
    })

    it('halves a list answered 413 until the provider takes it, and learns no refusal', LIMIT, async () => {
      const small = await scripted((calls, res) => {
        if (calls.length > 2) { answer(res, 413, { error: 'request entity too large' }); return }
        answer(res, 200, calls.map(answerOf))
      })
      try {
        const { providers } = await poolOfUrls(t, 'halving', [small.url], { protocol: 'jsonrpc' })
        const answers = await post(`${base}/p/halving/`, Array.from({ length: 8 }, (_, i) => getBalance(i)))
        assert.deepEqual(answers.map((a: { id: number, result: string }) => [a.id, a.result]), Array.from({ length: 8 }, (_, i) => [i, scriptedBalance(i)]))
        assert.deepEqual(sizes(small).sort((a, b) => b - a), [8, 4, 4, 2, 2, 2, 2])
        assert.equal(await batchesOf(providers[0] as number), null)
      } finally {
        await small.close()
      }
    })

    for (const [kind, call] of [['notifications', () => ({ jsonrpc: '2.0', method: 'note' })], ['calls with a null id', () => ({ jsonrpc: '2.0', id: null, method: 'x' })]] as const) {
      it(`keeps a batch of 400 ${kind}, which never go in a list, to 16 upstream requests open at once`, LIMIT, async () => {
        let open = 0
        let most = 0
        // The provider takes its time (50 ms a call), so that the calls a batch sends at once are open together.
        const slow = await upstream((_req, res, body) => {
          most = Math.max(most, ++open)
          const parsed = JSON.parse(body) as { id?: unknown }
          setTimeout(() => { open--; answer(res, 200, { jsonrpc: '2.0', id: parsed.id ?? null, result: '0x0' }) }, 50)
        })
        try {
          const name = `fan-${kind.length}`
          await poolOfUrls(t, name, [slow.url], { protocol: 'jsonrpc' })
          const res = await fetch(`${base}/p/${name}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(Array.from({ length: 400 }, call)) })
          assert.equal(res.status, kind === 'notifications' ? 204 : 200)
          if (kind !== 'notifications') assert.equal((await res.json()).length, 400)
          assert.equal(slow.seen.length, 400, 'every call sent, each alone')
          assert.ok(most <= 16, `at most 16 open at once, not ${most}`)
        } finally {
          await slow.close()
        }
      })
    }
  })
}
