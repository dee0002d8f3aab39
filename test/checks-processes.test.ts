/**
 * Active health checks with two real server processes on one database: each
 * provider is checked once per interval whichever number of processes share the
 * database (the lease in check.repository.ts), counted at the upstream.
 */
import assert from 'node:assert/strict'
import { after, it } from 'node:test'
import { describeOn, dialects, sharedDatabase, sleep, type TestDatabase } from './helpers.js'
import { http, startServer, type ServerProcess } from './server-process.js'
import { upstream, type Upstream } from './upstreams.js'

for (const dialect of dialects) {
  describeOn(dialect, 'active health checks across real processes', () => {
    let database: TestDatabase | undefined
    const servers: ServerProcess[] = []
    const upstreams: Upstream[] = []
    after(async () => {
      for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL')
      for (const up of upstreams) await up.close()
      await database?.drop()
    })

    it('checks each provider once per interval, not once per process', async () => {
      database = await sharedDatabase(dialect)
      const env = { DATABASE_URL: database.url }
      servers.push(await startServer(env))
      servers.push(await startServer(env))
      const hits: number[][] = [[], [], []]
      for (let i = 0; i < 3; i++) {
        const at = hits[i] as number[]
        upstreams.push(await upstream((_req, res) => { at.push(Date.now()); res.writeHead(200).end() }))
      }
      const [one, two] = servers as [ServerProcess, ServerProcess]
      const started = Date.now()
      for (let i = 0; i < 3; i++) {
        const created = await http('POST', `${(i % 2 === 0 ? one : two).url}/api/providers`, {
          name: `p${i}`, base_url: upstreams[i]?.url, health_check: { path: '/health', interval_s: 1, timeout_ms: 500 }
        })
        assert.equal(created.status, 200, JSON.stringify(created.body))
      }
      await sleep(4500)
      for (const server of servers) assert.equal(await server.stop(), 0)
      const elapsed = Date.now() - started
      for (const [i, times] of hits.entries()) {
        // Each claim moves the provider's next slot a whole interval on: at most one check per started second.
        assert.ok(times.length <= Math.floor(elapsed / 1000) + 1, `provider ${i}: ${times.length} checks in ${elapsed} ms`)
        assert.ok(times.length >= 3, `provider ${i}: only ${times.length} checks in ${elapsed} ms`)
        for (let k = 1; k < times.length; k++) {
          // Ticks are 250 ms apart: a check comes at most one tick (plus scheduling) early relative to the last one's lateness.
          assert.ok((times[k] as number) - (times[k - 1] as number) > 500, `provider ${i}: checks ${k - 1} and ${k} ${(times[k] as number) - (times[k - 1] as number)} ms apart`)
        }
      }
    })
  })
}
