/**
 * The data plane's promises with real server processes on one database: what a
 * SIGKILL under proxy load can lose (at most the last flush interval of proxy
 * counters, never more than was handed out), a quota never exceeded by two
 * processes proxying against it (in requests, and in credits with calls of
 * different costs), all of it served, and a cooldown learned in one process
 * honoured by the other within the flush interval.
 */
import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, it } from 'node:test'
import { describeOn, dialects, sharedDatabase, sleep, type TestDatabase } from './helpers.js'
import { http, startServer, type ServerProcess } from './server-process.js'

const FLUSH_INTERVAL_MS = 100

/** An upstream answering 200 (or what `status()` says) with `{"ok":true}` (or what `answer` makes of the request's body), counting requests. */
async function upstream (status: () => number = () => 200, answer: (body: string) => string = () => '{"ok":true}'): Promise<{ url: string, seen: () => number, close: () => Promise<void> }> {
  let seen = 0
  const server: Server = createServer((req, res) => {
    seen++
    const parts: Buffer[] = []
    req.on('data', (part: Buffer) => parts.push(part))
    req.on('end', () => {
      res.writeHead(status(), { 'content-type': 'application/json' })
      res.end(answer(Buffer.concat(parts).toString()))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen: () => seen,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}

for (const dialect of dialects) {
  describeOn(dialect, 'the data plane across real processes', () => {
    let database: TestDatabase | undefined
    const servers: ServerProcess[] = []
    const closers: Array<() => Promise<void>> = []

    after(async () => {
      for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL')
      for (const close of closers) await close()
      await database?.drop()
    })

    async function start (): Promise<ServerProcess> {
      const server = await startServer({ DATABASE_URL: (database as TestDatabase).url, FLUSH_INTERVAL_MS: String(FLUSH_INTERVAL_MS) })
      servers.push(server)
      return server
    }

    async function poolOf (server: ServerProcess, name: string, urls: string[], pool: Record<string, unknown> = {}, provider: Record<string, unknown> = {}) {
      const poolId = (await http('POST', `${server.url}/api/pools`, { name, category: 'rpc', ...pool })).body.pool_id
      const providers: number[] = []
      for (const [i, url] of urls.entries()) {
        const id = (await http('POST', `${server.url}/api/providers`, { name: `${name}-${i}`, base_url: url, ...provider })).body.provider_id
        await http('POST', `${server.url}/api/pools/${poolId}/members`, { provider_id: id, priority: urls.length - i })
        providers.push(id)
      }
      return { poolId, providers }
    }

    it('loses at most the last flush interval of proxy counters to a SIGKILL, and never counts more than was handed out', async (t) => {
      database = await sharedDatabase(dialect)
      const up = await upstream()
      closers.push(up.close)
      const server = await start()
      const { poolId } = await poolOf(server, 'killed', [up.url, up.url, up.url])
      // When each acknowledged (200) answer arrived.
      const acknowledged: number[] = []
      const load = { stop: false }
      // Ten clients proxying as fast as they can until the server dies under them.
      const clients = Array.from({ length: 10 }, async () => {
        while (!load.stop) {
          const res = await fetch(`${server.url}/api/pools/${poolId}/proxy/x`).catch(() => undefined)
          if (res === undefined) return
          await res.arrayBuffer().catch(() => {})
          if (res.status === 200) acknowledged.push(performance.now())
        }
      })
      await sleep(1500)
      server.child.kill('SIGKILL')
      const killedAt = performance.now()
      load.stop = true
      await Promise.all(clients)
      const handedOut = up.seen()
      const restarted = await start()
      const status = (await http('GET', `${restarted.url}/api/pools/${poolId}`)).body
      const sum = (field: string) => status.members.reduce((total: number, m: any) => total + m[field], 0)
      // Counters are written in order, so what was lost is the newest acknowledgements:
      // the oldest of them tells how long before the kill the loss window opened.
      const kept = sum('success_count')
      const lost = acknowledged.length - kept
      const windowMs = lost <= 0 ? 0 : killedAt - (acknowledged[kept] as number)
      t.diagnostic(`acknowledged ${acknowledged.length}, kept ${kept}, lost ${lost}: those of the last ${Math.round(windowMs)} ms; counted ${sum('use_count')} uses of ${handedOut} handed out`)
      assert.ok(acknowledged.length > 20, `only ${acknowledged.length} requests were acknowledged`)
      // One interval, plus the flush's own time and the timer's slack on a loaded machine.
      assert.ok(windowMs <= 2 * FLUSH_INTERVAL_MS + 100, `lost the last ${Math.round(windowMs)} ms of acknowledged requests`)
      assert.ok(sum('use_count') <= handedOut, `${sum('use_count')} uses counted, ${handedOut} handed out`)
      assert.ok(status.total_rotations <= handedOut)
      assert.equal(sum('use_count'), status.total_rotations)
    })

    it('never exceeds a quota that two processes proxy against, and serves all of it', async () => {
      database ??= await sharedDatabase(dialect)
      const up = await upstream()
      closers.push(up.close)
      const a = await start()
      const b = await start()
      const { poolId } = await poolOf(a, 'metered', [up.url], {}, { rate_limit: { requests: 50, per: 'day' } })
      const burst = await Promise.all(Array.from({ length: 120 }, async (_, i) =>
        (await fetch(`${(i % 2 === 0 ? a : b).url}/api/pools/${poolId}/proxy/x`)).status))
      assert.ok(burst.every((s) => s === 200 || s === 503), JSON.stringify(burst))
      assert.ok(up.seen() <= 50, `${up.seen()} requests reached the provider`)
      // What one process leased and did not use goes back at its next flush: the rest is served.
      for (let round = 0; round < 20 && up.seen() < 50; round++) {
        await sleep(FLUSH_INTERVAL_MS * 2)
        await Promise.all(Array.from({ length: 10 }, async (_, i) => await (await fetch(`${(i % 2 === 0 ? a : b).url}/api/pools/${poolId}/proxy/x`)).arrayBuffer()))
      }
      assert.equal(up.seen(), 50)
      for (const server of [a, b]) assert.equal(await server.stop(), 0)
      const restarted = await start()
      const member = (await http('GET', `${restarted.url}/api/pools/${poolId}`)).body.members[0]
      assert.deepEqual([member.quota.used, member.use_count], [50, 50])
    })

    it('never spends more credits than a quota two processes proxy against, each call what it costs, and serves all of them', async () => {
      database ??= await sharedDatabase(dialect)
      const costs: Record<string, number> = { eth_getLogs: 7, eth_call: 2, '*': 1 }
      // What reached the provider, in credits: what its calls cost.
      const reached = { credits: 0 }
      const spent = () => reached.credits
      const up = await upstream(() => 200, (body) => {
        const { id, method } = JSON.parse(body) as { id: number, method: string }
        reached.credits += costs[method] ?? 1
        return JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' })
      })
      closers.push(up.close)
      const a = await start()
      const b = await start()
      const { poolId } = await poolOf(a, 'credits', [up.url], { protocol: 'jsonrpc' }, { rate_limit: { credits: 200, per: 'day' }, method_costs: costs })
      const call = async (server: ServerProcess, method: string): Promise<number> => {
        const res = await fetch(`${server.url}/api/pools/${poolId}/proxy/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) })
        await res.arrayBuffer()
        return res.status
      }
      // 40 calls of 7 and 80 of 2: 440 credits asked of 200.
      const burst = await Promise.all(Array.from({ length: 120 }, async (_, i) => await call(i % 2 === 0 ? a : b, i % 3 === 0 ? 'eth_getLogs' : 'eth_call')))
      assert.ok(burst.every((s) => s === 200 || s === 503), JSON.stringify(burst))
      assert.ok(spent() <= 200, `${spent()} credits spent`)
      // What one process leased and did not use goes back at its next flush: the rest is served, to the last credit.
      for (let round = 0; round < 30 && spent() < 200; round++) {
        await sleep(FLUSH_INTERVAL_MS * 2)
        await Promise.all(Array.from({ length: 10 }, async (_, i) => await call(i % 2 === 0 ? a : b, 'eth_chainId')))
      }
      assert.equal(spent(), 200)
      for (const server of [a, b]) assert.equal(await server.stop(), 0)
      const restarted = await start()
      const { quota } = (await http('GET', `${restarted.url}/api/pools/${poolId}`)).body.members[0]
      assert.deepEqual([quota.used, quota.limit, quota.unit], [200, 200, 'credits'])
    })

    it('honours in one process a cooldown another learned, within the flush interval', async () => {
      database ??= await sharedDatabase(dialect)
      let failing = false
      const flaky = await upstream(() => failing ? 500 : 200)
      const steady = await upstream()
      closers.push(flaky.close, steady.close)
      const a = await start()
      const b = await start()
      // Priority: the flaky provider first, whenever it is eligible.
      const { poolId } = await poolOf(a, 'shared-health', [flaky.url, steady.url], { rotation_strategy: 'priority', failure_threshold: 1, cooldown_seconds: 60 })
      // b has the pool in memory, with the flaky provider healthy.
      assert.equal((await fetch(`${b.url}/api/pools/${poolId}/proxy/x`)).headers.get('x-sourcepool-provider'), 'shared-health-0')
      failing = true
      const failedOver = await fetch(`${a.url}/api/pools/${poolId}/proxy/x`)
      assert.equal(failedOver.headers.get('x-sourcepool-provider'), 'shared-health-1')
      const seen = flaky.seen()
      // a writes the cooldown at its next flush, b reads it at its next one.
      await sleep(FLUSH_INTERVAL_MS * 2 + 50)
      for (let i = 0; i < 5; i++) {
        const res = await fetch(`${b.url}/api/pools/${poolId}/proxy/x`)
        assert.deepEqual([res.status, res.headers.get('x-sourcepool-provider'), res.headers.get('x-sourcepool-attempts')], [200, 'shared-health-1', '1'])
      }
      assert.equal(flaky.seen(), seen)
    })
  })
}
