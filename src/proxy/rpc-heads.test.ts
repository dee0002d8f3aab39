/**
 * The head tracker (rpc-heads.ts) on its own, with scripted nodes whose heads move
 * with the clock: its checks go on when reading a pool's members is slow (a check
 * ending during that read once stopped a node's checks for good), and nodes in step
 * on a fast chain are not taken for lagging while one stuck behind is.
 */
import assert from 'node:assert/strict'
import { after, describe, it } from 'node:test'
import { upstream, type Upstream } from '../../test/upstreams.js'
import { HeadTracker, type HeadMember } from './rpc-heads.js'

const POOL = { head_check_interval_s: 1, max_block_lag: 5, finality_depth: 64, cache_ttl_seconds: 0 }
const started = Date.now()

/** A node whose head is `head()` when asked, answering after `delayMs`. */
async function movingNode (head: () => number, delayMs = 0): Promise<Upstream> {
  return await upstream((_req, res, body) => {
    const call = JSON.parse(body) as { id: number }
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: `0x${head().toString(16)}` }))
    }, delayMs)
  })
}

const memberOf = (id: number, url: string): HeadMember => ({ provider_id: id, provider_name: `node-${id}`, enabled: 1, base_url: url, auth_headers: null, timeout_ms: null })
const sleep = async (ms: number): Promise<void> => { await new Promise((resolve) => setTimeout(resolve, ms)) }

describe('head tracker', () => {
  const closers: Array<() => Promise<void> | void> = []
  after(async () => { for (const close of closers) await close() })

  it('keeps checking a node while its pool\'s members are read slowly', { timeout: 30_000 }, async () => {
    // 10 blocks a second, answered 200 ms late; the members read in 100 ms.
    const node = await movingNode(() => 100 + Math.floor((Date.now() - started) / 100), 200)
    closers.push(node.close)
    const tracker = new HeadTracker({ membersOf: async () => { await sleep(100); return [memberOf(1, node.url)] } })
    closers.push(() => { tracker.close() })
    await tracker.use(1, POOL)
    const first = tracker.headOf(1) as bigint
    for (let i = 0; i < 4; i++) { await sleep(1000); tracker.use(1, POOL) }
    assert.ok(node.checks.length >= 4, `${node.checks.length} checks in 4 s at a 1 s interval`)
    assert.ok((tracker.headOf(1) as bigint) >= first + 25n, `head ${tracker.headOf(1)} after ${first}`)
  })

  it('takes nodes in step on a fast chain for current, and a node stuck behind for lagging', { timeout: 30_000 }, async () => {
    // 10 blocks a second: heads learned a fraction of a second apart differ by more than max_block_lag.
    const chain = (): number => 1000 + Math.floor((Date.now() - started) / 100)
    const [a, b, stuck] = await Promise.all([movingNode(chain), movingNode(chain, 150), movingNode(() => 1000)])
    closers.push(a.close, b.close, stuck.close)
    const tracker = new HeadTracker({ membersOf: async () => [memberOf(1, a.url), memberOf(2, b.url), memberOf(3, stuck.url)] })
    closers.push(() => { tracker.close() })
    await tracker.use(2, POOL)
    let wronglyLagging = 0
    for (let i = 0; i < 30; i++) {
      await sleep(100)
      tracker.use(2, POOL)
      const avoided = tracker.avoid(2, 'eth_getBalance', ['0x01', 'latest'])
      if (i >= 15) assert.ok(avoided?.has(3) === true, 'the stuck node is avoided once the pace is known')
      if (avoided?.has(1) === true || avoided?.has(2) === true) wronglyLagging++
    }
    assert.ok(wronglyLagging <= 2, `synced nodes taken for lagging in ${wronglyLagging} of 30 samples`)
  })
})
