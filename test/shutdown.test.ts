import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import WebSocket from 'ws'
import { http, startServer } from './server-process.js'
import { echoUpstream } from './ws-upstreams.js'

describe('graceful shutdown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-shutdown-'))
  after(() => { rmSync(dir, { recursive: true, force: true }) })

  it('SIGTERM during a burst of rotations loses none that were acknowledged, and exits 0', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'pools.db')}` }
    const server = await startServer(env)
    const pool = (await http('POST', `${server.url}/api/pools`, { name: 'burst', category: 'rpc' })).body.pool_id
    for (const name of ['a', 'b']) {
      const provider = (await http('POST', `${server.url}/api/providers`, { name })).body.provider_id
      await http('POST', `${server.url}/api/pools/${pool}/members`, { provider_id: provider })
    }

    let acknowledged = 0
    let refused = 0
    let stopping = false
    const exited = new Promise<number | null>((resolve) => server.child.once('exit', (code) => resolve(code)))
    const worker = async () => {
      while (true) {
        try {
          const res = await http('POST', `${server.url}/api/pools/${pool}/rotate`)
          if (res.status === 200) acknowledged++
          else refused++
        } catch {
          refused++
          if (stopping) return
        }
        if (stopping && server.child.exitCode !== null) return
        if (acknowledged >= 150 && !stopping) {
          stopping = true
          server.child.kill('SIGTERM')
        }
      }
    }
    await Promise.all(Array.from({ length: 20 }, worker))
    assert.equal(await exited, 0)
    assert.ok(acknowledged >= 150)

    const again = await startServer(env)
    try {
      const status = (await http('GET', `${again.url}/api/pools/${pool}`)).body
      assert.equal(status.total_rotations, acknowledged, `acknowledged ${acknowledged}, refused ${refused}`)
    } finally {
      await again.stop()
    }
  })

  it('SIGTERM closes every stream with 1001 and exits 0', async () => {
    const echo = await echoUpstream()
    const server = await startServer({ DATABASE_URL: 'sqlite::memory:' })
    try {
      const pool = (await http('POST', `${server.url}/api/pools`, { name: 'streams', category: 'market' })).body.pool_id
      const provider = (await http('POST', `${server.url}/api/providers`, { name: 'echo', base_url: echo.url.replace('ws:', 'http:') })).body.provider_id
      await http('POST', `${server.url}/api/pools/${pool}/members`, { provider_id: provider })
      const clients = await Promise.all([1, 2, 3].map(async () => {
        const ws = new WebSocket(`${server.url.replace('http:', 'ws:')}/p/streams/`)
        const closed = new Promise<number>((resolve) => ws.once('close', resolve))
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
        return { closed }
      }))
      const exited = new Promise<number | null>((resolve) => server.child.once('exit', resolve))
      server.child.kill('SIGTERM')
      assert.deepEqual(await Promise.all(clients.map(async (c) => await c.closed)), [1001, 1001, 1001])
      assert.equal(await exited, 0)
    } finally {
      await server.stop()
      await echo.close()
    }
  })
})
