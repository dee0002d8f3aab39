/**
 * `BENCH_ONLY=event-loop` (issue #26): the largest event-loop delay of the
 * service (perf_hooks.monitorEventLoopDelay inside its process, max and p99)
 * while (a) one apply creates 8,000 pools of 10 members over 1,000 providers
 * (refused today: over the 1 MiB body limit), and one updates those 8,000
 * pools, one field each, (b) 20 clients resume
 * the event stream from `0-0` and leave at once, (c) the largest chunk batch the
 * API accepts is stored, (d) the full pool list at 10,000 pools of 10 members is
 * asked for after a write, once, after a rotation in every pool, and by 10
 * clients at once — with `/healthz` polled every 20 ms throughout. Target: max
 * ≤ 100 ms and every /healthz answered. On a SQLite file; BENCH_DATABASES=sqlite,postgres
 * adds PostgreSQL (a fresh schema per service on TEST_DATABASE_URL's server).
 * Seeding goes through the API (applies under the body limit, rotations).
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { cpus, loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import pg from 'pg'
import { RESOLUTION_MS } from './event-loop-reading.js'
import {
  applied, applyState, call, createState, largestChunkBatch, poolIds, readLists, resume, resumeStorm, rotate, seedPools, send, storeBatch, updateState
} from './event-loop-scenarios.js'
import { HEALTH_TIMEOUT_MS, POLL_MS, measureWindow, sleep, startProbedService, type ProbedService, type WindowResult } from './event-loop-service.js'
import { CPUS, DATABASES, describePinning } from './options.js'

/** The target of every row: the largest delay, ms. */
const TARGET_MS = 100
/** Pools of the apply (a) and of the list (d), members each, providers they share. */
const APPLY_POOLS = 8000
const LIST_POOLS = 10_000
const MEMBERS = 10
const PROVIDERS = 1000
/** The resume storm (b): clients, and the events stored before it (audit records of one apply, then rotations). */
const STREAM_CLIENTS = 20
const STREAM_POOLS = 500
const STREAM_EVENTS = 10_000
/** Readers of the full list at once (d). */
const LIST_CLIENTS = 10

/** One row of the table. */
interface Row {
  /** Where the row goes: a, b, c, d1 to d3, then the floor. */
  readonly key: string
  readonly scenario: string
  readonly database: string
  readonly window: WindowResult<unknown>
  /** Why the row proves nothing (the scenario's own request failed), if so. */
  readonly invalid?: string
  readonly figures: string
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
const ms = (value: number) => `${Math.round(value)} ms`
const whole = (n: number) => n.toLocaleString('en')

/** A fresh database for one service: a SQLite file in `dir`, or a new schema on TEST_DATABASE_URL's server. */
interface Database { readonly name: string, url(label: string): Promise<string>, dropAll(): Promise<void> }

function sqlite (dir: string): Database {
  return { name: 'SQLite', url: async (label) => `sqlite:${join(dir, `event-loop-${label}.db`)}`, dropAll: async () => {} }
}

function postgres (serverUrl: string): Database {
  const schemas: string[] = []
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl })
    await client.connect()
    try { await client.query(statement) } finally { await client.end() }
  }
  return {
    name: 'PostgreSQL',
    async url () {
      const schema = `sourcepool_bench_${randomBytes(4).toString('hex')}`
      await admin(`create schema ${schema}`)
      schemas.push(schema)
      const url = new URL(serverUrl)
      url.searchParams.set('schema', schema)
      return url.toString()
    },
    async dropAll () {
      for (const schema of schemas.splice(0)) await admin(`drop schema if exists ${schema} cascade`)
    }
  }
}

/** BENCH_EVENT_LOOP_PROFILES=<folder>: a CPU profile of the service per window, `<database>-<row>.cpuprofile` (figures taken so are not comparable). */
const PROFILES = process.env.BENCH_EVENT_LOOP_PROFILES ?? ''

async function withService<T> (database: Database, label: string, work: (service: ProbedService) => Promise<T>): Promise<T> {
  const service = await startProbedService({ DATABASE_URL: await database.url(label), ...(PROFILES === '' ? {} : { PROBE_PROFILE_DIR: resolve(PROFILES) }) })
  try {
    return await work(service)
  } finally {
    await service.stop()
  }
}

const progress = (text: string) => process.stderr.write(`bench: event-loop: ${text}\n`)

/** Idle, (a) the apply, and (d) the list, on one service: 8,000 pools, then 10,000. */
async function poolScenarios (database: Database, rows: Row[]): Promise<void> {
  await withService(database, 'pools', async (service) => {
    progress(`(a) one apply creating ${whole(APPLY_POOLS)} pools × ${MEMBERS} over ${whole(PROVIDERS)} providers`)
    const fullState = createState(0, APPLY_POOLS, MEMBERS, PROVIDERS)
    const create = await measureWindow(service, `${database.name}-a1-apply-create`, async () => await applyState(service.url, fullState))
    const c = { ...create.figures, ...applied(create.figures) }
    rows.push({
      key: 'a1',
      scenario: `(a) one apply creating ${whole(APPLY_POOLS)} pools × ${MEMBERS} over ${whole(PROVIDERS)} providers`,
      database: database.name,
      window: create,
      ...(c.status === 200 ? {} : { invalid: `refused with ${c.status}` }),
      figures: c.status === 200
        ? `answered in ${ms(c.ms)}; ${whole(c.creates)} creates + their audit records; body ${mb(c.bodyBytes)}`
        : `body ${mb(c.bodyBytes)} refused in ${ms(c.ms)}: ${c.refusal.replaceAll('|', '/')}`
    })
    // Refused (today: over the 1 MiB body limit), the same pools are made in applies that fit.
    if (c.status !== 200) await seedPools(service.url, 0, APPLY_POOLS, MEMBERS, PROVIDERS)
    await sleep(1000)
    progress('idle (the floor)')
    const idle = await measureWindow(service, `${database.name}-idle`, async () => { await sleep(2000) })
    rows.push({ key: 'z', scenario: `idle, ${whole(APPLY_POOLS)} pools × ${MEMBERS} (the floor)`, database: database.name, window: idle, figures: '2 s without requests but /healthz' })

    progress(`(a) one apply updating ${whole(APPLY_POOLS)} pools`)
    const body = updateState(APPLY_POOLS, 'updated by the event-loop bench')
    const apply = await measureWindow(service, `${database.name}-a2-apply-update`, async () => await applyState(service.url, body))
    const a = { ...apply.figures, ...applied(apply.figures) }
    rows.push({
      key: 'a2',
      scenario: `(a) one apply updating those ${whole(APPLY_POOLS)} pools, one field each`,
      database: database.name,
      window: apply,
      ...(a.status === 200 && a.updates === APPLY_POOLS ? {} : { invalid: `answered ${a.status}, ${a.updates} updates` }),
      figures: `answered in ${ms(a.ms)}; ${whole(a.updates)} pool updates + their audit records; body ${mb(a.bodyBytes)}`
    })

    await seedPools(service.url, APPLY_POOLS, LIST_POOLS, MEMBERS, PROVIDERS)
    const [first] = await poolIds(service.url)
    let writes = 0
    const write = async () => { await call('PUT', `${service.url}/api/pools/${first as number}`, { description: `bench write ${++writes}` }) }
    // One list before, so the first measured one is not the first ever.
    await readLists(service.url, 1)
    await sleep(1000)

    progress(`(d) GET /api/pools after a write, ${whole(LIST_POOLS)} pools`)
    const once = await measureWindow(service, `${database.name}-d1-list-after-write`, async () => { await write(); return await readLists(service.url, 1) })
    const [answer] = once.figures.answers
    rows.push({
      key: 'd1',
      scenario: `(d) GET /api/pools after a write, ${whole(LIST_POOLS)} pools × ${MEMBERS}`,
      database: database.name,
      window: once,
      ...(answer?.status === 200 ? {} : { invalid: `answered ${answer?.status}` }),
      figures: `answered in ${ms(answer?.ms ?? 0)}, ${mb(answer?.bytes ?? 0)}; RSS ${mb(once.rssBefore)} before, ${mb(once.health.peakRss)} at most, ${mb(once.delay.rss)} after`
    })

    progress(`(d) GET /api/pools after a rotation in each of the ${whole(LIST_POOLS)} pools`)
    const ids = await poolIds(service.url)
    await rotate(service.url, ids, ids.length)
    await sleep(1000)
    const spread = await measureWindow(service, `${database.name}-d2-list-after-rotations`, async () => await readLists(service.url, 1))
    const [after] = spread.figures.answers
    rows.push({
      key: 'd2',
      scenario: `(d) GET /api/pools after a rotation in every pool, ${whole(LIST_POOLS)} pools × ${MEMBERS}`,
      database: database.name,
      window: spread,
      ...(after?.status === 200 ? {} : { invalid: `answered ${after?.status}` }),
      figures: `answered in ${ms(after?.ms ?? 0)}, ${mb(after?.bytes ?? 0)}; RSS ${mb(spread.rssBefore)} before, ${mb(spread.health.peakRss)} at most, ${mb(spread.delay.rss)} after`
    })

    progress(`(d) ${LIST_CLIENTS} clients at once after a write`)
    const many = await measureWindow(service, `${database.name}-d3-list-10-clients`, async () => { await write(); return await readLists(service.url, LIST_CLIENTS) })
    const answers = many.figures.answers
    const failed = answers.filter((x) => x.status !== 200).length
    rows.push({
      key: 'd3',
      scenario: `(d) ${LIST_CLIENTS} clients at once after a write, same list`,
      database: database.name,
      window: many,
      ...(failed === 0 ? {} : { invalid: `${failed} answers not 200` }),
      figures: `all answered in ${ms(Math.max(...answers.map((x) => x.ms)))} (first ${ms(Math.min(...answers.map((x) => x.ms)))}), ` +
        `${mb(answers.reduce((sum, x) => sum + x.bytes, 0))} in all; RSS ${mb(many.rssBefore)} before, ${mb(many.health.peakRss)} at most, ${mb(many.delay.rss)} after`
    })
  })
}

/** (b) The resume storm, on its own service with 10,000 events stored. */
async function streamScenario (database: Database, rows: Row[]): Promise<void> {
  await withService(database, 'events', async (service) => {
    // One apply's audit records (providers, pools, members), then rotations (one history record each).
    await seedPools(service.url, 0, STREAM_POOLS, MEMBERS, PROVIDERS)
    const audited = PROVIDERS + STREAM_POOLS * (1 + MEMBERS)
    progress(`storing ${whole(STREAM_EVENTS - audited)} rotations`)
    await rotate(service.url, await poolIds(service.url), STREAM_EVENTS - audited)
    const full = await resume(service.url, '0-0', false)
    await sleep(1000)

    progress(`(b) ${STREAM_CLIENTS} clients resume from 0-0 and leave at their first bytes`)
    const storm = await measureWindow(service, `${database.name}-b-resume-storm`, async () => await resumeStorm(service.url, STREAM_CLIENTS))
    const clients = storm.figures
    const failed = clients.filter((c) => c.status !== 200).length
    rows.push({
      key: 'b',
      scenario: `(b) ${STREAM_CLIENTS} clients resume from \`Last-Event-ID: 0-0\` and leave at their first bytes`,
      database: database.name,
      window: storm,
      ...(failed === 0 ? {} : { invalid: `${failed} streams not 200` }),
      figures: `${whole(STREAM_EVENTS)} events stored (${whole(audited)} audit, ${whole(STREAM_EVENTS - audited)} history); ` +
        `first bytes within ${ms(Math.max(...clients.map((c) => c.firstByteMs)))}; ` +
        `one client reading from 0-0 before: ${whole(full.events)} events, ${mb(full.bytes)} in ${ms(full.ms)}`
    })
  })
}

/** (c) The largest chunk batch, on its own service. */
async function chunkScenario (database: Database, rows: Row[]): Promise<void> {
  const batch = largestChunkBatch()
  await withService(database, 'chunks', async (service) => {
    // A small batch of the same model first, so the measured one is not the model's first.
    const small = await send('POST', `${service.url}/api/chunks/batch`, JSON.stringify({
      chunks: [{ chunk_id: 'first', content: 'x', embedding: Array.from({ length: batch.dim }, (_, i) => (i % 7) / 10 + 0.1), embedding_model: `bench-${batch.dim}`, embedding_dim: batch.dim, metadata: { parent_id: 'first', source: 'bench', task: 't', sequence: 0, total_chunks: 1, content_type: 'text' } }]
    }))
    if (small.status !== 200) throw new Error(`the first chunk batch answered ${small.status}: ${small.text.slice(0, 300)}`)
    await sleep(1000)
    progress(`(c) one chunk batch of ${whole(batch.records)} × ${whole(batch.dim)} (${mb(batch.body.length)})`)
    const store = await measureWindow(service, `${database.name}-c-chunk-batch`, async () => await storeBatch(service.url, batch))
    rows.push({
      key: 'c',
      scenario: `(c) the largest chunk batch: ${whole(batch.records)} records × ${whole(batch.dim)} dimensions`,
      database: database.name,
      window: store,
      ...(store.figures.status === 200 ? {} : { invalid: `answered ${store.figures.status}` }),
      figures: `${mb(batch.body.length)} of JSON answered in ${ms(store.figures.ms)}; RSS ${mb(store.rssBefore)} before, ${mb(store.health.peakRss)} at most`
    })
  })
}

/** The commit measured and how many files differ from it in the working tree. */
function sourceState (): string {
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()
  const changed = spawnSync('git', ['status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).stdout.split('\n').filter((line) => line !== '').length
  return commit === '' ? 'unknown (no git)' : `${commit}${changed === 0 ? '' : `, ${changed} files under src/ changed in the working tree`}`
}

function verdict (row: Row): string {
  if (row.invalid !== undefined) return `invalid: ${row.invalid}`
  const { delay, health } = row.window
  if (delay.max > TARGET_MS) return 'not met'
  return health.failures > 0 ? 'not met: /healthz failed' : 'met'
}

/** `61`, or `61 (8 timed out, 3 × 503)`. */
function answered (health: WindowResult<unknown>['health']): string {
  if (health.failures === 0) return String(health.answers)
  return `${health.answers} (${[...health.failed].map(([kind, n]) => kind === 'timed out' ? `${n} timed out` : `${n} × ${kind}`).join(', ')})`
}

function printTable (rows: Row[]): void {
  console.log('\n| scenario | database | max delay ms | p99 delay ms | slowest /healthz ms | /healthz answers (failed) | window s | bench loop max ms | figures | target | met? |')
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---|---|---|')
  for (const row of rows) {
    const { delay, health, windowMs } = row.window
    const slowest = health.failed.has('timed out') ? `> ${HEALTH_TIMEOUT_MS} (timed out)` : String(Math.round(health.slowestMs))
    console.log(`| ${row.scenario} | ${row.database} | ${Math.round(delay.max)} | ${Math.round(delay.p99)} | ${slowest} | ` +
      `${answered(health)} | ${(windowMs / 1000).toFixed(1)} | ${Math.round(row.window.benchMaxMs)} | ${row.figures} | max ≤ ${TARGET_MS} ms, /healthz all 200 | ${verdict(row)} |`)
  }
}

/** Runs every scenario on each of BENCH_DATABASES and prints the table. */
export async function measureEventLoop (dir: string): Promise<void> {
  console.log('\n## Issue #26: the largest event-loop delay while one request does a lot of work\n')
  console.log(`- machine: ${CPUS} CPUs (${cpus()[0]?.model.trim() ?? 'unknown model'}), Node ${process.version}; ${describePinning()}`)
  console.log(`- source: ${sourceState()}`)
  console.log(`- the delay: perf_hooks.monitorEventLoopDelay inside the service (resolution ${RESOLUTION_MS} ms, as prom-client's; an idle loop reads about ${RESOLUTION_MS} ms), ` +
    'reset when a scenario starts and read once the service has settled (every /healthz quicker than 50 ms for 1 s)')
  console.log(`- /healthz: one request at a time every ${POLL_MS} ms from the bench process, throughout; failed = not 200 or no answer within ${HEALTH_TIMEOUT_MS / 1000} s (as a load balancer's probe; the poller then asks again)`)
  console.log('- bench loop max: the bench process\'s own largest event-loop delay in the window; when large, its /healthz times are in doubt')
  console.log(`- machine load average ${loadavg()[0]?.toFixed(2)} at the start (other work on the machine delays the service's loop too: compare with the floor)`)
  const databases = DATABASES.map((name) => name === 'sqlite' ? sqlite(dir) : postgres(process.env.TEST_DATABASE_URL as string))
  const rows: Row[] = []
  for (const database of databases) {
    try {
      await poolScenarios(database, rows)
      await streamScenario(database, rows)
      await chunkScenario(database, rows)
    } finally {
      await database.dropAll()
    }
  }
  // In the issue's order: (a), (b), (c), (d), then the floor.
  printTable(rows.sort((x, y) => x.key.localeCompare(y.key)))
  console.log(`\nmachine load average ${loadavg()[0]?.toFixed(2)} at the end`)
}
