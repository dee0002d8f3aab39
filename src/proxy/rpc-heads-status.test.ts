/**
 * Each `evm` member's head and lag where operators read them (issue 36 item 6): the
 * pool's status record (one pool and the list) and `/next`'s explanation, with two
 * real Ethereum nodes (ganache), one mined ahead of the other. The record follows the
 * heads although no write moves the pool's change_seq; an http pool's members keep
 * the shape they always had.
 */
import assert from 'node:assert/strict'
import { after, before, it } from 'node:test'
import { startNode, type Node } from '../../test/ganache.js'
import { poolOfUrls } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'

const LIMIT = { timeout: 60_000 }
const HEAD_KEYS = ['head_block', 'block_lag', 'lagging']

/** Waits until `done` holds, checking every 50 ms, for 10 s at most. */
async function until (done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 10_000
  while (!await done()) {
    assert.ok(Date.now() < end, `waited 10 s for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A member's head fields, by provider id. */
const headsOf = (members: Array<Record<string, unknown>>, ids: readonly number[]) =>
  ids.map((id) => {
    const member = members.find((m) => m.provider_id === id) as Record<string, unknown>
    return { head_block: member.head_block, block_lag: member.block_lag, lagging: member.lagging }
  })

for (const dialect of dialects) {
  describeOn(dialect, 'evm pools: heads and lag in the status record and the explanation', () => {
    let t: TestApp
    let ahead: Node
    let behind: Node

    before(async () => {
      ;[ahead, behind] = await Promise.all([startNode(), startNode()])
      t = await buildTestApp(dialect)
    })
    after(async () => {
      await t?.close()
      await Promise.all([ahead?.close(), behind?.close()])
    })

    const status = async (poolId: number) => {
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}` })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      return res.body
    }
    const explain = async (poolId: number) => {
      const res = await t.request({ method: 'GET', url: `/api/pools/${poolId}/next` })
      assert.equal(res.status, 200, JSON.stringify(res.body))
      return res.body
    }

    it('shows each node\'s head, its lag and lagging for the one behind, and follows it when it catches up', LIMIT, async () => {
      for (let i = 0; i < 10; i++) await ahead.call('evm_mine')
      const { poolId, providers } = await poolOfUrls(t, 'heads', [ahead.url, behind.url], { protocol: 'evm', max_block_lag: 5, head_check_interval_s: 1 })
      // Not used yet, so not watched: the heads are unknown, the keys there.
      assert.deepEqual(headsOf((await status(poolId)).members, providers), [
        { head_block: null, block_lag: null, lagging: false }, { head_block: null, block_lag: null, lagging: false }
      ])
      // One call through the pool: watched from now on (the call waits for the first round of checks).
      const called = await t.request({ method: 'POST', url: `/api/pools/${poolId}/proxy/`, payload: { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] } })
      assert.equal(called.status, 200, JSON.stringify(called.body))
      assert.equal(called.body.result, '0xa')
      const lagging = [{ head_block: '10', block_lag: 0, lagging: false }, { head_block: '0', block_lag: 10, lagging: true }]
      await until(async () => (await status(poolId)).members.every((m: { head_block: unknown }) => m.head_block !== null), 'the record to show the heads')
      assert.deepEqual(headsOf((await status(poolId)).members, providers), lagging)
      // The list carries the same record.
      const list = await t.request({ method: 'GET', url: '/api/pools' })
      assert.equal(list.status, 200)
      assert.deepEqual(headsOf(list.body.pools.find((p: { pool_id: number }) => p.pool_id === poolId).members, providers), lagging)
      // The explanation: each member's head, and the lagging one named as left out of calls at the head.
      const explained = await explain(poolId)
      assert.deepEqual(headsOf(explained.members, providers), lagging)
      assert.match(explained.explanation, /Lagging more than 5 blocks .*: 'heads-1' \(head 0, 10 blocks behind\)\.$/)
      // Caught up: a head check sees it, the record follows with no write to the pool.
      for (let i = 0; i < 10; i++) await behind.call('evm_mine')
      await until(async () => (await status(poolId)).members.find((m: { provider_id: number }) => m.provider_id === providers[1]).block_lag === 0, 'the record to show the node caught up')
      const caughtUp = [{ head_block: '10', block_lag: 0, lagging: false }, { head_block: '10', block_lag: 0, lagging: false }]
      assert.deepEqual(headsOf((await status(poolId)).members, providers), caughtUp)
      const again = await explain(poolId)
      assert.deepEqual(headsOf(again.members, providers), caughtUp)
      assert.doesNotMatch(again.explanation, /Lagging/)
    })

    it('leaves an http pool\'s members as they were: none of the head keys, in the record, the list and the explanation', LIMIT, async () => {
      const { poolId } = await poolOfUrls(t, 'plain', [ahead.url])
      const record = await status(poolId)
      assert.equal(record.policy.protocol, 'http')
      for (const key of HEAD_KEYS) assert.ok(!(key in record.members[0]), `no ${key} in an http pool's member`)
      const list = await t.request({ method: 'GET', url: '/api/pools' })
      const listed = list.body.pools.find((p: { pool_id: number }) => p.pool_id === poolId)
      for (const key of HEAD_KEYS) assert.ok(!(key in listed.members[0]), `no ${key} in the list's record`)
      const explained = await explain(poolId)
      for (const key of HEAD_KEYS) assert.ok(!(key in explained.members[0]), `no ${key} in the explanation's member`)
    })
  })
}
