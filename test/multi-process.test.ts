import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { chunk } from './fixtures.js'
import { createPostgresSchema, type TestDatabase } from './helpers.js'
import { http, startServer, type ServerProcess } from './server-process.js'

const enabled = Boolean(process.env.TEST_DATABASE_URL)

describe('two server processes on one PostgreSQL database', { skip: enabled ? false : 'set TEST_DATABASE_URL to run' }, () => {
  let database: TestDatabase
  let servers: ServerProcess[] = []

  before(async () => {
    database = await createPostgresSchema()
    // Started one after the other so the second finds the schema migrated.
    servers.push(await startServer({ DATABASE_URL: database.url }))
    servers.push(await startServer({ DATABASE_URL: database.url }))
  })

  after(async () => {
    for (const server of servers) await server.stop()
    servers = []
    await database.drop()
  })

  it('splits 200 concurrent rotations across both and keeps round_robin exact', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess]
    const pool = (await http('POST', `${a.url}/api/pools`, { name: 'shared', category: 'rpc' })).body.pool_id
    const providers: number[] = []
    for (const name of ['n1', 'n2', 'n3', 'n4']) {
      const id = (await http('POST', `${b.url}/api/providers`, { name })).body.provider_id
      providers.push(id)
      await http('POST', `${a.url}/api/pools/${pool}/members`, { provider_id: id })
    }
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) =>
      http('POST', `${(i % 2 === 0 ? a : b).url}/api/pools/${pool}/rotate`)))
    assert.ok(results.every((r) => r.status === 200), JSON.stringify(results.find((r) => r.status !== 200)))
    const chosen = new Map<number, number>()
    for (const r of results) chosen.set(r.body.provider_id, (chosen.get(r.body.provider_id) ?? 0) + 1)
    for (const id of providers) assert.equal(chosen.get(id), 50)

    const status = (await http('GET', `${b.url}/api/pools/${pool}`)).body
    assert.equal(status.total_rotations, 200)
    assert.equal(status.members.reduce((sum: number, m: any) => sum + m.use_count, 0), 200)
    const history = (await http('GET', `${a.url}/api/pools/${pool}/history?limit=1000`)).body.history.reverse()
    assert.equal(history.length, 200)
    for (let i = 1; i < history.length; i++) assert.equal(history[i].from_provider, history[i - 1].to_provider)
  })

  it('keeps counts exact under 200 concurrent reports and rotations split across both', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess]
    const pool = (await http('POST', `${a.url}/api/pools`, { name: 'reported', category: 'rpc', failure_threshold: 1000 })).body.pool_id
    const providers: number[] = []
    for (const name of ['r1', 'r2', 'r3', 'r4']) {
      const id = (await http('POST', `${b.url}/api/providers`, { name })).body.provider_id
      providers.push(id)
      await http('POST', `${a.url}/api/pools/${pool}/members`, { provider_id: id })
    }
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => {
      const server = (i % 4 < 2 ? a : b).url
      return i % 2 === 0
        ? http('POST', `${server}/api/pools/${pool}/rotate`)
        : http('POST', `${server}/api/pools/${pool}/report`, { provider_id: providers[(i >> 1) % 4], success: i % 3 !== 0, latency_ms: 5 })
    }))
    assert.ok(results.every((r) => r.status === 200), JSON.stringify(results.find((r) => r.status !== 200)))
    const status = (await http('GET', `${b.url}/api/pools/${pool}`)).body
    const sum = (field: string) => status.members.reduce((total: number, m: any) => total + m[field], 0)
    assert.equal(sum('use_count'), 100)
    assert.ok(status.members.every((m: any) => m.use_count === 25))
    const expectedSuccesses = Array.from({ length: 200 }, (_, i) => i).filter((i) => i % 2 === 1 && i % 3 !== 0).length
    assert.equal(sum('success_count'), expectedSuccesses)
    assert.equal(sum('failure_count'), 100 - expectedSuccesses)
  })

  it('never hands out more than a provider\'s quota, whichever process asks', async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess]
    const provider = (await http('POST', `${a.url}/api/providers`, { name: 'metered', rate_limit: { requests: 50, per: 'day' } })).body.provider_id
    const pools: number[] = []
    for (const name of ['metered-1', 'metered-2']) {
      const pool = (await http('POST', `${b.url}/api/pools`, { name, category: 'rpc' })).body.pool_id
      await http('POST', `${a.url}/api/pools/${pool}/members`, { provider_id: provider })
      pools.push(pool)
    }
    const results = await Promise.all(Array.from({ length: 120 }, (_, i) =>
      http('POST', `${(i % 2 === 0 ? a : b).url}/api/pools/${pools[(i >> 1) % 2]}/rotate`)))
    assert.equal(results.filter((r) => r.status === 200).length, 50)
    assert.equal(results.filter((r) => r.status === 404).length, 70)
    const status = (await http('GET', `${a.url}/api/pools/${pools[0]}`)).body
    assert.deepEqual({ used: status.members[0].quota.used, limit: status.members[0].quota.limit }, { used: 50, limit: 50 })
  })

  it("answers a chunk search from the other process's writes at the next query", async () => {
    const [a, b] = servers as [ServerProcess, ServerProcess]
    const stored = Array.from({ length: 50 }, (_, i) => chunk(`p${i}`, { embedding: [Math.cos(i), Math.sin(i), 0.5] }))
    assert.equal((await http('POST', `${b.url}/api/chunks/batch`, { chunks: stored })).status, 200)
    const query = { embedding: [0, 0, 1], embedding_model: 'mini', top_k: 3 }
    // a loads its index from b's writes.
    const first = (await http('POST', `${a.url}/api/chunks/search`, query)).body.results
    assert.equal(first.length, 3)
    // b adds the exact match and deletes a's current second best.
    await http('POST', `${b.url}/api/chunks`, chunk('pole', { embedding: [0, 0, 7] }))
    await http('DELETE', `${b.url}/api/chunks/${first[1].chunk_id}`)
    const second = (await http('POST', `${a.url}/api/chunks/search`, query)).body.results
    assert.equal(second[0].chunk_id, 'pole')
    assert.ok(Math.abs(second[0].score - 1) < 1e-12)
    assert.ok(!second.some((r: any) => r.chunk_id === first[1].chunk_id), JSON.stringify(second))
    assert.equal(second[1].chunk_id, first[0].chunk_id)
  })
})
