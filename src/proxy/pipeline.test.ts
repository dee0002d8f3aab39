/**
 * A pool's pipeline holds the stages its settings turn on (issue 35): a pool
 * without a cache never reaches the cache stage, one with a cache always does, a
 * change of the pool (its change_seq) compiles it again, and an unknown pool goes
 * to the attempts (which answer its 404). The stages are stand-ins that count
 * their calls: what is tested is the choice of stages, not what they do.
 */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import type { ServedAnswer } from './cached-proxy.js'
import type { ProxyRequest } from './forward.js'
import { RpcCoalescing } from './rpc-coalesce.js'
import { createPipelines } from './pipeline.js'

const ANSWER: ServedAnswer = { kind: 'unavailable', retryAfterS: null }
const REQUEST = { method: 'GET', url: '/api/pools/1/proxy/x', headers: {} } as unknown as ProxyRequest

function rig () {
  const rows = new Map<number, { id: number, change_seq: number, enabled: number, cache_ttl_seconds: number, cache_stale_seconds: number, deadline_ms: number, max_wait_ms: number, forward_client_auth: number }>()
  const calls = { cache: 0, attempts: 0, now: 0, ttlSeen: [] as number[] }
  const pipelines = createPipelines({
    runtime: { pool: async (id: number) => rows.get(id) as never, poolNow: (id: number) => rows.get(id) as never, methodUnservedNow: () => false, methodUnserved: async () => false },
    cache: {
      cached: async (pool) => { calls.cache++; calls.ttlSeen.push(pool.cache_ttl_seconds); return ANSWER },
      hitNow: () => { calls.now++; return ANSWER },
      rpc: new RpcCoalescing()
    },
    attempts: { forward: async () => { calls.attempts++; return ANSWER as never } }
  })
  const set = (id: number, changeSeq: number, ttl: number, enabled = 1) => {
    rows.set(id, { id, change_seq: changeSeq, enabled, cache_ttl_seconds: ttl, cache_stale_seconds: 0, deadline_ms: 30_000, max_wait_ms: 0, forward_client_auth: 0 })
  }
  return { rows, calls, pipelines, set }
}

describe('pool pipelines', () => {
  it('runs the cache stage only for a pool whose cache is on, and compiles again when the pool changes', async () => {
    const { calls, pipelines, set } = rig()
    set(1, 1, 0)
    await pipelines.forward(1, REQUEST)
    await pipelines.forward(1, REQUEST)
    assert.deepEqual([calls.cache, calls.attempts], [0, 2])
    set(1, 2, 60)
    await pipelines.forward(1, REQUEST)
    assert.deepEqual([calls.cache, calls.attempts, calls.ttlSeen], [1, 2, [60]])
    // The same change_seq keeps what was compiled; a new one reads the new settings.
    set(1, 3, 30)
    await pipelines.forward(1, REQUEST)
    assert.deepEqual(calls.ttlSeen, [60, 30])
    // A pool switched off has no cache stage (the attempts answer its 503).
    set(1, 4, 30, 0)
    await pipelines.forward(1, REQUEST)
    assert.deepEqual([calls.cache, calls.attempts], [2, 3])
  })

  it('answers at once only through a pool whose cache is on (a fresh HIT needs no await)', () => {
    const { calls, pipelines, set } = rig()
    set(1, 1, 0)
    assert.equal(pipelines.now(1, REQUEST), undefined)
    assert.equal(calls.now, 0)
    set(1, 2, 60)
    assert.equal(pipelines.now(1, REQUEST), ANSWER)
    assert.equal(calls.now, 1)
    assert.equal(pipelines.now(7, REQUEST), undefined, 'a pool not held current is read first (forward)')
  })

  it('sends a pool the runtime does not know to the attempts (its 404)', async () => {
    const { calls, pipelines } = rig()
    await pipelines.forward(42, REQUEST)
    assert.deepEqual([calls.cache, calls.attempts], [0, 1])
  })
})
