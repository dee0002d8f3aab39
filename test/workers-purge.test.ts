/**
 * `DELETE /api/pools/{id}/cache` with WORKERS=2, with real processes: with the memory
 * cache each worker holds its own entries, and a purge taken by one worker empties
 * both (relayed by the cluster primary) and counts what both dropped; a worker that
 * does not answer in time is named in the primary's log and the purge still answers.
 * With Redis, one store for all, a purge is counted once. Which worker served a
 * request is read from its request log line (the pid), never from the answer.
 */
import assert from 'node:assert/strict'
import { after, it } from 'node:test'
import { describeOn, dialects, postgres, sharedDatabase, sqlite, type TestDialect } from './helpers.js'
import { alive, servedBy, startService, workerPids, type Service } from './logged-service.js'
import { redisRunPrefix, redisSkip, redisUrl } from './redis.js'
import { http } from './server-process.js'
import { upstream } from './upstreams.js'

const runPrefix = redisRunPrefix('workers-purge')
const LIMIT = { timeout: 120_000 }

const services: Service[] = []
const closers: Array<() => Promise<void>> = []
after(async () => {
  for (const service of services) {
    for (const pid of workerPids(service)) if (alive(pid)) process.kill(pid, 'SIGCONT')
    if (service.child.exitCode === null) service.child.kill('SIGKILL')
    for (const pid of workerPids(service)) if (alive(pid)) process.kill(pid, 'SIGKILL')
  }
  for (const close of closers) await close()
})

/** SIGTERM, and every worker closes cleanly (the relay holds nothing open). */
async function stop (service: Service): Promise<void> {
  service.child.kill('SIGTERM')
  assert.equal(await service.exited, 0, service.stderr())
}

/** One proxied GET on a connection of its own (the primary deals connections round the workers): who served it, and what. */
interface Served { pid: number, cache: string | null, body: string }

/** WORKERS=2 on a fresh database of `dialect`, with `env`, and a cached pool over an upstream answering `v1`, `v2`… */
async function cachedService (dialect: TestDialect, env: Record<string, string> = {}): Promise<{ service: Service, get: () => Promise<Served>, purge: (signal?: AbortSignal) => Promise<{ status: number, body: any }> }> {
  const database = await sharedDatabase(dialect)
  closers.push(database.drop)
  let version = 0
  const up = await upstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end(`v${++version}`)
  })
  closers.push(up.close)
  const service = await startService({ WORKERS: '2', DATABASE_URL: database.url, ...env })
  services.push(service)
  const pool = (await http('POST', `${service.url}/api/pools`, { name: 'cached', category: 'rpc', cache_ttl_seconds: 300 })).body.pool_id
  const provider = (await http('POST', `${service.url}/api/providers`, { name: 'cached-0', base_url: up.url })).body.provider_id
  assert.equal((await http('POST', `${service.url}/api/pools/${pool}/members`, { provider_id: provider })).status, 200)
  const get = async (): Promise<Served> => {
    const res = await fetch(`${service.url}/api/pools/${pool}/proxy/report`, { headers: { connection: 'close' } })
    const body = await res.text()
    assert.equal(res.status, 200, body)
    return { pid: await servedBy(service, String(res.headers.get('x-request-id'))), cache: res.headers.get('x-sourcepool-cache'), body }
  }
  const purge = async (signal?: AbortSignal) => {
    const res = await fetch(`${service.url}/api/pools/${pool}/cache`, { method: 'DELETE', headers: { connection: 'close' }, signal })
    return { status: res.status, body: await res.json() }
  }
  return { service, get, purge }
}

/** GETs until every worker of `service` has served one that `done` accepts; every answer, in order. */
async function untilEachWorker (service: Service, get: () => Promise<Served>, done: (served: Served) => boolean): Promise<Served[]> {
  const all: Served[] = []
  const pids = workerPids(service)
  while (!pids.every((pid) => all.some((one) => one.pid === pid && done(one)))) {
    assert.ok(all.length < 60, `both workers should have served by now: ${JSON.stringify(all)}`)
    all.push(await get())
  }
  return all
}

for (const dialect of dialects) {
  describeOn(dialect, 'WORKERS=2: DELETE /api/pools/{id}/cache', () => {
    it('with the memory cache empties both workers and counts what both dropped: each worker\'s next GET is a MISS, no answer from before', LIMIT, async () => {
      const { service, get, purge } = await cachedService(dialect)
      // Each worker stores its own copy, then serves it: both hold one entry.
      const before = await untilEachWorker(service, get, (one) => one.cache === 'HIT')
      const stored = new Set(before.map((one) => one.body))

      const purged = await purge()
      assert.equal(purged.status, 200)
      assert.equal(purged.body.purged, 2, JSON.stringify(purged.body))
      assert.match(purged.body.message, /^Purged 2 cached answers of pool \d+$/)

      const afterwards = await untilEachWorker(service, get, () => true)
      for (const pid of workerPids(service)) assert.equal(afterwards.find((one) => one.pid === pid)?.cache, 'MISS', JSON.stringify(afterwards))
      assert.deepEqual(afterwards.filter((one) => stored.has(one.body)), [], 'no answer stored before the purge')
      assert.deepEqual(service.lines.filter((line) => /cache purge/.test(String(line.msg))), [])
      await stop(service)
    })

    it('with Redis counts a purge once: one shared entry, not one per worker', { ...LIMIT, skip: redisSkip }, async () => {
      const { service, get, purge } = await cachedService(dialect, { CACHE_URL: redisUrl as string, CACHE_KEY_PREFIX: `${runPrefix}${dialect.name}:` })
      const before = await untilEachWorker(service, get, (one) => one.cache === 'HIT')
      const purged = await purge()
      assert.deepEqual([purged.status, purged.body.purged], [200, 1], JSON.stringify(purged.body))
      const next = await get()
      assert.equal(next.cache, 'MISS')
      assert.ok(!before.some((one) => one.body === next.body))
      await stop(service)
    })
  })
}

// The relay runs between processes and never touches the database: one dialect shows it,
// PostgreSQL when there is one. The worker may be stopped inside a write-behind flush,
// holding its pool's row (the file's one write lock on SQLite), and the other worker's
// purge writes its own pending counters down first: on PostgreSQL the server ends the
// stopped session after 10 s (idle_in_transaction_session_timeout, src/db/create-db.ts;
// before it, this test failed in CI that way); SQLite's lock is held until the worker
// resumes (docs/operations.md).
const relayDialect = postgres.skip === undefined ? postgres : sqlite
describeOn(relayDialect, 'WORKERS=2: a purge while a worker does not answer', () => {
  it('names the worker in the primary\'s log and still answers, with what the other dropped', LIMIT, async () => {
    const { service, get, purge } = await cachedService(relayDialect)
    await untilEachWorker(service, get, (one) => one.cache === 'HIT')
    const [stopped, running] = workerPids(service) as [number, number]
    const stoppedAt = Date.now()
    process.kill(stopped, 'SIGSTOP')
    try {
      // The primary may hand the first connection to the stopped worker (and no more, until it takes it): asked again then.
      let purged: { status: number, body: any } | undefined
      const failed: string[] = []
      for (let attempt = 0; purged === undefined; attempt++) {
        assert.ok(attempt < 3, JSON.stringify({ failed, lines: service.lines.filter((line) => line.time >= stoppedAt) }))
        const started = Date.now()
        purged = await purge(AbortSignal.timeout(8000)).catch((error) => { failed.push(`${Date.now() - started} ms: ${String(error?.cause ?? error)}`); return undefined })
      }
      assert.deepEqual([purged.status, purged.body.purged], [200, 1], JSON.stringify(purged.body))
      const late = service.lines.filter((line) => line.msg === 'cache purge: workers did not answer in time; answered without them')
      assert.equal(late.length, 1, JSON.stringify(service.lines.filter((line) => line.level >= 40)))
      assert.deepEqual([late[0]?.role, late[0]?.workerPids], ['primary', [stopped]])
      assert.ok(alive(running))
    } finally {
      process.kill(stopped, 'SIGCONT')
    }
    await stop(service)
  })
})
