import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { http, startServer } from './server-process.js'

describe('restart on the same SQLite file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-restart-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('keeps everything, and a round_robin pool continues where it left off', async () => {
    // A nested, not yet existing directory: it is created on demand.
    const env = { DATABASE_URL: `sqlite:${join(dir, 'nested', 'pools.db')}` }
    const first = await startServer(env)
    const pool = (await http('POST', `${first.url}/api/pools`, { name: 'durable', category: 'rpc' })).body.pool_id
    const ids: number[] = []
    for (const name of ['a', 'b', 'c']) {
      const provider = (await http('POST', `${first.url}/api/providers`, { name })).body.provider_id
      ids.push(provider)
      assert.equal((await http('POST', `${first.url}/api/pools/${pool}/members`, { provider_id: provider })).status, 200)
    }
    const firstPicks = []
    for (let i = 0; i < 2; i++) firstPicks.push((await http('POST', `${first.url}/api/pools/${pool}/rotate`)).body.provider_id)
    assert.deepEqual(firstPicks, [ids[0], ids[1]])
    const before = (await http('GET', `${first.url}/api/pools/${pool}`)).body
    assert.equal(await first.stop(), 0)

    const second = await startServer(env)
    try {
      const afterRestart = (await http('GET', `${second.url}/api/pools/${pool}`)).body
      assert.deepEqual(afterRestart, before)
      const next = []
      for (let i = 0; i < 2; i++) next.push((await http('POST', `${second.url}/api/pools/${pool}/rotate`)).body.provider_id)
      assert.deepEqual(next, [ids[2], ids[0]])
      const history = (await http('GET', `${second.url}/api/pools/${pool}/history`)).body
      assert.equal(history.total, 4)
      assert.equal((await http('GET', `${second.url}/api/providers`)).body.length, 3)
    } finally {
      assert.equal(await second.stop(), 0)
    }
  })
})
