/**
 * WORKERS and the compiled start, with real processes. WORKERS=2 on both databases:
 * one port served by two worker processes (told apart by the pid on their request
 * log lines, which the primary names as it starts them), CONFIG_FILE applied once,
 * a provider's quota exact across the workers, the keep-alive connections opened as
 * soon as the port serves dealt round both workers (none serves before all are ready),
 * a worker that dies restarted, and SIGTERM ending it all with exit 0 and no worker
 * left. Bad WORKERS values and a worker that cannot start stop the start with their
 * exit code. And `npm run build` then `node dist/main.js` (what `npm start` runs)
 * answering /healthz.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, get as httpGet } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, it } from 'node:test'
import { fileURLToPath } from 'node:url'
import { DECLARED_FILE } from './fixtures.js'
import { describeOn, dialects, sharedDatabase, sleep, type TestDatabase } from './helpers.js'
import { alive, servedBy, spawnService, startService, workerPids, type Service } from './logged-service.js'
import { http, runMain } from './server-process.js'
import { json, upstream } from './upstreams.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const FLUSH_INTERVAL_MS = 100
const dir = mkdtempSync(join(tmpdir(), 'sourcepool-workers-'))
after(() => { rmSync(dir, { recursive: true, force: true }) })

/** The service with `env` (FLUSH_INTERVAL_MS short), once /healthz answers and, with workers, all of them serve. */
const start = async (env: Record<string, string>, args?: string[]) => await startService({ FLUSH_INTERVAL_MS: String(FLUSH_INTERVAL_MS), ...env }, args)

/**
 * A GET on a connection of `agent`; its request id. A 503 Starting (a start that took
 * longer than requests wait, on a machine busy with other tests) is asked again.
 */
async function getOn (agent: Agent, url: string): Promise<{ requestId: string }> {
  for (let attempt = 0; ; attempt++) {
    const answer = await new Promise<{ status: number, requestId: string }>((resolve, reject) => {
      const request = httpGet(url, { agent }, (res) => {
        res.resume()
        res.on('end', () => { resolve({ status: res.statusCode ?? 0, requestId: String(res.headers['x-request-id']) }) })
      })
      request.on('error', reject)
    })
    if (answer.status === 200 || attempt >= 5) {
      assert.equal(answer.status, 200)
      return answer
    }
  }
}

for (const dialect of dialects) {
  describeOn(dialect, 'WORKERS=2', () => {
    const services: Service[] = []
    const closers: Array<() => Promise<void>> = []
    after(async () => {
      for (const service of services) {
        if (service.child.exitCode === null) service.child.kill('SIGKILL')
        for (const pid of workerPids(service)) if (alive(pid)) process.kill(pid, 'SIGKILL')
      }
      for (const close of closers) await close()
    })

    it('serves one port from two processes, applies CONFIG_FILE once, and stops on SIGTERM with exit 0 and no worker left', async () => {
      const database: TestDatabase = await sharedDatabase(dialect)
      closers.push(database.drop)
      const file = join(dir, `declared-${dialect.name}.yaml`)
      writeFileSync(file, DECLARED_FILE)
      const service = await start({ WORKERS: '2', DATABASE_URL: database.url, CONFIG_FILE: file, PORTAL_A_KEY: 'secret-a' })
      services.push(service)
      const pids = workerPids(service)
      assert.equal(pids.length, 2)
      assert.ok(!pids.includes(service.child.pid as number), 'the primary serves nothing itself')
      // Connections are dealt round the workers: forty at once reach both.
      const answers = await Promise.all(Array.from({ length: 40 }, async () => {
        const res = await fetch(`${service.url}/api/pools`, { headers: { connection: 'close' } })
        return [res.status, (await res.json() as { pools: Array<{ name: string }> }).pools.map((p) => p.name)]
      }))
      assert.ok(answers.every(([status, names]) => status === 200 && JSON.stringify(names) === '["spending"]'), JSON.stringify(answers[0]))
      // A worker's log line may reach us after its answer: wait a little for both workers' lines.
      const servedBy = () => new Set(service.lines.filter((line) => line.msg === 'request completed').map((line) => line.pid))
      for (const deadline = Date.now() + 5000; servedBy().size < 2 && Date.now() < deadline;) await sleep(20)
      assert.deepEqual([...servedBy()].sort(), [...pids].sort())
      assert.equal(service.lines.filter((line) => line.msg === 'CONFIG_FILE applied').length, 1)
      const audit = await http('GET', `${service.url}/api/audit`)
      assert.equal(audit.body.records.length, 5, JSON.stringify(audit.body.records.map((r: { action: string }) => r.action)))

      service.child.kill('SIGTERM')
      assert.equal(await service.exited, 0, service.stderr())
      for (const pid of pids) assert.equal(alive(pid), false, `worker ${pid} is gone`)
      const stopped = service.lines.filter((line) => line.msg === 'worker stopped')
      assert.deepEqual(stopped.map((line) => line.code), [0, 0])
    })

    it('keeps a provider\'s quota exact across the workers: all of it served, never more', async () => {
      const database: TestDatabase = await sharedDatabase(dialect)
      closers.push(database.drop)
      const up = await upstream(json(200, { ok: true }))
      closers.push(up.close)
      const service = await start({ WORKERS: '2', DATABASE_URL: database.url })
      services.push(service)
      const pool = (await http('POST', `${service.url}/api/pools`, { name: 'metered', category: 'rpc' })).body.pool_id
      const provider = (await http('POST', `${service.url}/api/providers`, { name: 'metered-0', base_url: up.url, rate_limit: { requests: 50, per: 'day' } })).body.provider_id
      assert.equal((await http('POST', `${service.url}/api/pools/${pool}/members`, { provider_id: provider })).status, 200)
      const burst = await Promise.all(Array.from({ length: 150 }, async () => {
        const res = await fetch(`${service.url}/api/pools/${pool}/proxy/x`)
        await res.arrayBuffer()
        return res.status
      }))
      assert.ok(burst.every((s) => s === 200 || s === 503), JSON.stringify(burst))
      assert.ok(up.seen.length <= 50, `${up.seen.length} requests reached the provider`)
      // What a worker leased and did not use goes back at its next flush: the rest is served.
      for (let round = 0; round < 30 && up.seen.length < 50; round++) {
        await sleep(FLUSH_INTERVAL_MS * 2)
        await Promise.all(Array.from({ length: 10 }, async () => await (await fetch(`${service.url}/api/pools/${pool}/proxy/x`, { headers: { connection: 'close' } })).arrayBuffer()))
      }
      assert.equal(up.seen.length, 50)
      const successes = burst.filter((s) => s === 200).length
      assert.ok(successes <= 50)
      const served = new Set(service.lines.filter((line) => String(line.req?.url).includes('/proxy/')).map((line) => line.pid))
      assert.equal(served.size, 2, 'both workers proxied')
      service.child.kill('SIGTERM')
      assert.equal(await service.exited, 0, service.stderr())
      const restarted = await start({ DATABASE_URL: database.url })
      services.push(restarted)
      try {
        const member = (await http('GET', `${restarted.url}/api/pools/${pool}`)).body.members[0]
        assert.deepEqual([member.quota.used, member.use_count, member.success_count], [50, 50, 50])
      } finally {
        restarted.child.kill('SIGTERM')
        assert.equal(await restarted.exited, 0)
      }
    })

    it('deals the keep-alive connections opened as soon as the port serves round both workers', async () => {
      const database: TestDatabase = await sharedDatabase(dialect)
      closers.push(database.drop)
      const service = await spawnService({ WORKERS: '2', DATABASE_URL: database.url })
      services.push(service)
      const deadline = Date.now() + 60_000
      while (!await fetch(`${service.url}/healthz`, { headers: { connection: 'close' } }).then(async (res) => { await res.arrayBuffer(); return res.status === 200 }, () => false)) {
        assert.ok(service.child.exitCode === null && Date.now() < deadline, `did not serve: ${service.stderr()}`)
        await sleep(5)
      }
      // An application's connection pool at start: 20 requests at once, on 20 keep-alive connections.
      const agent = new Agent({ keepAlive: true, maxSockets: 20 })
      try {
        const answers = await Promise.all(Array.from({ length: 20 }, async () => await getOn(agent, `${service.url}/api/pools`)))
        // Which worker served each: the pid on its request's log line (the logs say it, not the answer).
        const pids = await Promise.all(answers.map(async (a) => await servedBy(service, a.requestId)))
        assert.equal(new Set(pids).size, 2, `both workers hold some: ${JSON.stringify(pids)}`)
        assert.ok(pids.every((pid) => workerPids(service).includes(pid)), JSON.stringify(pids))
      } finally {
        agent.destroy()
      }
      service.child.kill('SIGTERM')
      assert.equal(await service.exited, 0, service.stderr())
    })

    it('restarts a worker that dies, and goes on serving on the port', async () => {
      const database: TestDatabase = await sharedDatabase(dialect)
      closers.push(database.drop)
      const service = await start({ WORKERS: '2', DATABASE_URL: database.url })
      services.push(service)
      const [first, second] = workerPids(service) as [number, number]
      process.kill(first, 'SIGKILL')
      const deadline = Date.now() + 30_000
      while (workerPids(service).length < 3 && Date.now() < deadline) await sleep(50)
      const died = service.lines.find((line) => line.msg === 'worker died; restarting it')
      assert.deepEqual([died?.workerPid, died?.signal, died?.restartInMs], [first, 'SIGKILL', 100])
      const pids = workerPids(service)
      assert.equal(pids.length, 3, 'a new worker listens')
      const replacement = pids[2] as number
      assert.ok(alive(replacement) && alive(second) && !alive(first))
      // Not /healthz: its 90 ms deadline is for probes, and a worker just started may miss it on a busy machine.
      const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await fetch(`${service.url}/api/pools`, { headers: { connection: 'close' } })).status))
      assert.ok(statuses.every((s) => s === 200), JSON.stringify(statuses))
      service.child.kill('SIGTERM')
      assert.equal(await service.exited, 0, service.stderr())
      assert.ok(!alive(replacement) && !alive(second))
    })
  })
}

describe('WORKERS at start', () => {
  it('refuses a bad value: exit code 2 and one line naming the variable', async () => {
    for (const value of ['0', '65', 'many', '1.5']) {
      const { code, stderr } = await runMain({ WORKERS: value, DATABASE_URL: 'sqlite::memory:' })
      assert.equal(code, 2, value)
      assert.equal(stderr.trim().split('\n').length, 1, stderr)
      assert.match(stderr, new RegExp(`invalid configuration: WORKERS: '${value.replace('.', '\\.')}' is not a whole number from 1 to 64, or auto`))
    }
  })

  it('stops the start with the first worker\'s exit code when it cannot start (a CONFIG_FILE that does not check out: 2)', async () => {
    const missing = join(dir, 'absent.yaml')
    const { code, stderr } = await runMain({ WORKERS: '2', CONFIG_FILE: missing, DATABASE_URL: `sqlite:${join(dir, 'never.db')}` })
    assert.equal(code, 2, stderr)
    assert.match(stderr, /CONFIG_FILE does not check out/)
  })
})

describe('the compiled start', () => {
  it('npm start builds (prestart) and runs dist/main.js with no TypeScript loader', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    assert.equal(scripts.start, 'exec node dist/main.js')
    assert.equal(scripts.prestart, 'npm run build')
    assert.match(scripts.build ?? '', /^tsc -b tsconfig\.build\.json$/)
    assert.match(readFileSync(join(ROOT, '.gitignore'), 'utf8'), /^dist\/$/m)
  })

  it('npm run build, then node dist/main.js answers /healthz and stops on SIGTERM with exit 0', { timeout: 300_000 }, async () => {
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 240_000 })
    assert.equal(build.status, 0, build.stdout + build.stderr)
    const service = await start({ DATABASE_URL: 'sqlite::memory:' }, ['dist/main.js'])
    try {
      // The page's own files and the vendored libraries are found from dist/ too.
      const page = await fetch(`${service.url}/ui/assets/app.js`)
      assert.equal(page.status, 200)
      const docs = await fetch(`${service.url}/openapi.json`)
      assert.equal(docs.status, 200)
      assert.match(JSON.stringify(await docs.json()), /"\/api\/pools"/)
    } finally {
      service.child.kill('SIGTERM')
    }
    assert.equal(await service.exited, 0, service.stderr())
  })
})
