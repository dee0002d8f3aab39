/**
 * The flush as values: the runtime's state drains an immutable batch (a new Pending
 * starts), the flusher writes a batch built by hand on a real database with no runtime
 * behind it and answers what it read, and the state applies that answer — or takes a
 * batch that could not be written back in front of what came since.
 */
import assert from 'node:assert/strict'
import { afterEach, describe, it } from 'node:test'
import { addMember, createPool, createProvider } from '../../test/fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from '../../test/helpers.js'
import type { WorkRunner } from '../db/work.js'
import { foldSample, type MinuteSample } from '../rules/activity.js'
import { healthChangeRecord } from '../rules/health.js'
import { historyKind } from '../rules/history-kind.js'
import { memberPendingOf, poolPendingOf, type FlushBatch } from './batch.js'
import { writeBatch } from './flusher.js'
import { unitOfWork } from '../db/unit-of-work.js'
import { createRuntimeState, type PoolState } from './runtime-state.js'

for (const dialect of dialects) {
  describeOn(dialect, 'flusher: a batch in, what it read out', () => {
    let t: TestApp
    afterEach(async () => { await t?.close() })

    it('writes a batch built by hand in one transaction, leaves it as it was and answers the change_seqs it read', async () => {
      // The app's own runtime stays out of the way: its timer never fires, and no request goes through its proxy.
      t = await buildTestApp(dialect, {}, { FLUSH_INTERVAL_MS: '60000' })
      const poolId = await createPool(t, 'flushed')
      const other = await createPool(t, 'other')
      const a = await createProvider(t, 'A', { rate_limit: { requests: 10, per: 'minute' } })
      const b = await createProvider(t, 'B')
      const memberA = await addMember(t, poolId, a)
      const memberB = await addMember(t, poolId, b)
      const window = '2026-03-01T10:00:00.000Z'
      await t.database.db.updateTable('providers').set({ quota_used: 5, quota_window_start: window }).where('id', '=', a).execute()
      const seqs = new Map((await t.database.db.selectFrom('pools').select(['id', 'change_seq']).execute()).map((r) => [r.id, r.change_seq]))
      const at = '2026-03-01T10:00:30.000Z'
      const cooldownUntil = '2026-03-01T10:01:00.000Z'
      const latencies = new Map<string, MinuteSample>()
      foldSample(latencies, memberA, at, 120)
      foldSample(latencies, memberA, at, 80)
      const cooldown = healthChangeRecord(b, 'healthy', { state: { cooldown_until: cooldownUntil }, cooldownStarted: 'consecutive_failures' }, 'HTTP 500')
      assert.ok(cooldown !== null)
      const batch: FlushBatch = {
        members: new Map([
          [memberA, { poolId, uses: 3, successes: 2, failures: 1, lastUsed: at, health: null }],
          [memberB, {
            poolId,
            uses: 0,
            successes: 0,
            failures: 1,
            lastUsed: null,
            health: { consecutive_failures: 1, cooldown_trips: 1, cooldown_until: cooldownUntil, cooldown_reason: 'consecutive_failures', latency_ms: null, last_error: 'HTTP 500' }
          }]
        ]),
        pools: new Map([[poolId, { rotations: 3, currentProviderId: a, lastRotation: at, cacheHits: 0, cacheMisses: 0, cacheStale: 0, cacheEntries: null, retries: 0, hedges: 0, budgetExhausted: 0 }]]),
        history: [
          { kind: 'health', poolId, record: cooldown, at },
          { kind: 'failover', poolId, failedProviderId: b, chosen: { providerId: a, degraded: false }, reason: 'proxy:http_500', at }
        ],
        refusals: [{ poolId, providerId: b, resource: '/secret', at, expiresAt: '2026-03-01T11:00:30.000Z', statusCode: 403 }],
        latencies,
        quotaReturns: [{ providerId: a, window, unused: 2 }],
        knownPools: [poolId, other, 999_999],
        at
      }
      const copy = structuredClone(batch)
      // Only the flusher's own transactions are counted (the app's health checks run beside it).
      let transactions = 0
      const told: number[] = []
      const runner = unitOfWork<WorkRunner>({
        transact: async (work, committed) => { transactions++; return await t.database.transact(work, committed) },
        read: async (work) => await t.database.read(work)
      }, { pool: (id) => { told.push(id) }, provider: () => {} })
      const result = await writeBatch(runner, batch, 100)
      assert.equal(transactions, 1)
      assert.deepEqual(told, [...batch.pools.keys()], 'the pools written are told once it has committed')
      assert.deepEqual(batch, copy, 'the batch is left as it was')
      // What it read, as a value: its own write moved the pool by one; the other pool as it was; the unknown id is missing.
      const mine = (seqs.get(poolId) as number) + 1
      assert.deepEqual(result, {
        changeSeqs: new Map([[poolId, mine], [other, seqs.get(other) as number]]),
        written: new Map([[poolId, mine]])
      })

      const members = await t.database.db.selectFrom('pool_members')
        .select(['id', 'use_count', 'success_count', 'failure_count', 'last_used', 'consecutive_failures', 'cooldown_until', 'last_error'])
        .where('pool_id', '=', poolId).orderBy('id').execute()
      assert.deepEqual(members, [
        { id: memberA, use_count: 3, success_count: 2, failure_count: 1, last_used: at, consecutive_failures: 0, cooldown_until: null, last_error: null },
        { id: memberB, use_count: 0, success_count: 0, failure_count: 1, last_used: null, consecutive_failures: 1, cooldown_until: cooldownUntil, last_error: 'HTTP 500' }
      ])
      const pool = await t.database.db.selectFrom('pools').select(['total_rotations', 'current_provider_id', 'last_rotation', 'change_seq'])
        .where('id', '=', poolId).executeTakeFirstOrThrow()
      assert.deepEqual(pool, { total_rotations: 3, current_provider_id: a, last_rotation: at, change_seq: mine })
      const history = await t.database.db.selectFrom('rotation_history')
        .select(['from_provider_id', 'to_provider_id', 'reason', 'success', 'notes', 'timestamp'])
        .where('pool_id', '=', poolId).orderBy('id').execute()
      assert.deepEqual(history.map((h) => [historyKind(h), h.from_provider_id, h.to_provider_id, h.reason, h.success, h.timestamp]), [
        ['refusal', b, null, 'refusal:/secret', 0, at],
        ['cooldown', b, null, 'cooldown:consecutive_failures', 0, at],
        ['failover', b, a, 'proxy:http_500', 1, at]
      ])
      const quota = await t.database.db.selectFrom('providers').select('quota_used').where('id', '=', a).executeTakeFirstOrThrow()
      assert.equal(quota.quota_used, 3)
      const refusals = await t.database.db.selectFrom('provider_refusals').select(['provider_id', 'resource', 'expires_at']).execute()
      assert.deepEqual(refusals, [{ provider_id: b, resource: '/secret', expires_at: '2026-03-01T11:00:30.000Z' }])
      const minutes = await t.database.db.selectFrom('member_minutes').select(['member_id', 'minute', 'samples', 'latency_sum']).execute()
      assert.deepEqual(minutes.map((m) => ({ ...m, latency_sum: Number(m.latency_sum) })), [{ member_id: memberA, minute: window, samples: 2, latency_sum: 200 }])
    })
  })
}

describe('runtime state: drain, apply, put back', () => {
  const at = new Date('2026-03-01T10:00:00.000Z')
  /** A pool kept in memory at `changeSeq` (only what a flush reads of it). */
  const kept = (changeSeq: number) => ({ pool: { change_seq: changeSeq }, members: [], cursor: {}, refusals: new Map(), stale: false }) as unknown as PoolState

  it('drains what is pending into a batch and starts afresh; a batch not written goes back in front of what came since', () => {
    const memory = createRuntimeState()
    assert.equal(memory.drain(at), undefined, 'nothing to write nor read')
    const first = memory.pending()
    memberPendingOf(first, 1, 10).uses += 2
    poolPendingOf(first, 1).rotations += 2
    const failover = (reason: string) => ({ kind: 'failover' as const, poolId: 1, failedProviderId: 5, chosen: null, reason, at: at.toISOString() })
    first.history.push(failover('first'))
    const batch = memory.drain(at)
    assert.ok(batch !== undefined)
    assert.deepEqual([batch.members.get(10)?.uses, batch.pools.get(1)?.rotations, batch.at], [2, 2, at.toISOString()])
    assert.notEqual(memory.pending(), first)
    assert.deepEqual([memory.hasPending(), memory.unsettled()], [false, true], 'being written')
    // More traffic while the batch is written, then the write fails.
    memberPendingOf(memory.pending(), 1, 10).uses += 1
    memory.pending().history.push(failover('later'))
    memory.putBack(batch)
    assert.equal(memory.pending().members.get(10)?.uses, 3)
    assert.deepEqual(memory.pending().history.map((r) => r.kind === 'failover' && r.reason), ['first', 'later'])
    assert.equal(batch.members.get(10)?.uses, 2, 'the batch itself is unchanged')
    assert.deepEqual(memory.unwritten(), [memory.pending()])
  })

  it('applies what a flush read: a pool moved only by its own write stays current, one another writer moved is stale, one gone is dropped', () => {
    const memory = createRuntimeState()
    memory.pools.set(1, kept(4))
    memory.pools.set(2, kept(7))
    memory.pools.set(3, kept(1))
    poolPendingOf(memory.pending(), 1).rotations++
    poolPendingOf(memory.pending(), 2).rotations++
    const batch = memory.drain(at)
    assert.ok(batch !== undefined)
    assert.deepEqual(batch.knownPools, [1, 2, 3])
    memory.apply(batch, { changeSeqs: new Map([[1, 5], [2, 9]]), written: new Map([[1, 5], [2, 8]]) })
    assert.deepEqual([memory.pools.get(1)?.pool.change_seq, memory.pools.get(1)?.stale], [5, false])
    assert.deepEqual([memory.pools.get(2)?.pool.change_seq, memory.pools.get(2)?.stale], [7, true])
    assert.equal(memory.pools.has(3), false)
    assert.equal(memory.unsettled(), false)
  })
})
