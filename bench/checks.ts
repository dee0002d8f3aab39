/**
 * `BENCH_ONLY=checks`: what active health checks cost at 1,000 providers checked
 * every 10 s (100 checks a second), with the service as its own process on a
 * SQLite file and, when TEST_DATABASE_URL names a PostgreSQL server, on a fresh
 * schema there. Each provider serves one of 100 pools of 10 members, answered by
 * one loopback upstream (its own process). Measured over BENCH_CHECK_SECONDS
 * (default 30) after the first round: the service's CPU time from /proc (against
 * the same process idle, without checks, just before), the checks done (from
 * /metrics), and on PostgreSQL the rows written and the transactions committed
 * (pg_stat_user_tables / pg_stat_database).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { randomBytes } from 'node:crypto'
import { http } from '../test/server-process.js'
import { startScript, startService } from './processes.js'

const PROVIDERS = 1000
const POOLS = 100
const INTERVAL_S = 10
const SECONDS = Number(process.env.BENCH_CHECK_SECONDS ?? 30)

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms))

/** The process's user + system CPU seconds so far. */
function cpuSeconds (pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** Checks done so far, from the service's /metrics. */
async function checksDone (url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text()
  let total = 0
  for (const match of text.matchAll(/^sourcepool_health_checks_total\{[^}]*\} (\d+)/gm)) total += Number(match[1])
  return total
}

/** Rows inserted and updated in `schema`, and transactions committed in the database. */
async function pgCounters (client: pg.Client, schema: string): Promise<{ rows: number, commits: number }> {
  await client.query('select pg_stat_clear_snapshot()')
  const rows = await client.query('select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::bigint as n from pg_stat_user_tables where schemaname = $1', [schema])
  const commits = await client.query('select xact_commit from pg_stat_database where datname = current_database()')
  return { rows: Number(rows.rows[0].n), commits: Number(commits.rows[0].xact_commit) }
}

async function measure (name: string, databaseUrl: string, upstreamUrl: string, schema?: string): Promise<void> {
  const service = await startService({ DATABASE_URL: databaseUrl })
  const pid = service.pid as number
  try {
    const ids: number[] = []
    for (let p = 0; p < POOLS; p++) {
      const poolId = (await http('POST', `${service.url}/api/pools`, { name: `pool-${p}`, category: 'bench' })).body.pool_id
      for (let m = 0; m < PROVIDERS / POOLS; m++) {
        const id = (await http('POST', `${service.url}/api/providers`, { name: `provider-${p}-${m}`, base_url: upstreamUrl })).body.provider_id
        await http('POST', `${service.url}/api/pools/${poolId}/members`, { provider_id: id })
        ids.push(id)
      }
    }
    await sleep(2000)
    const idleFrom = cpuSeconds(pid)
    await sleep(10_000)
    const idle = (cpuSeconds(pid) - idleFrom) / 10
    // Turned on over one interval, so the checks spread over it as they would in a steady state.
    const spread = INTERVAL_S * 1000 / PROVIDERS
    for (const id of ids) {
      const started = Date.now()
      const res = await http('PUT', `${service.url}/api/providers/${id}`, { health_check: { path: '/health', interval_s: INTERVAL_S } })
      if (res.status !== 200) throw new Error(`PUT provider ${id}: ${res.status}`)
      await sleep(Math.max(0, spread - (Date.now() - started)))
    }
    await sleep(INTERVAL_S * 1000)
    const client = schema === undefined ? undefined : new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
    await client?.connect()
    try {
      const before = { cpu: cpuSeconds(pid), checks: await checksDone(service.url), pg: client === undefined ? undefined : await pgCounters(client, schema as string), at: Date.now() }
      await sleep(SECONDS * 1000)
      const after = { cpu: cpuSeconds(pid), checks: await checksDone(service.url), pg: client === undefined ? undefined : await pgCounters(client, schema as string), at: Date.now() }
      const seconds = (after.at - before.at) / 1000
      const checks = (after.checks - before.checks) / seconds
      const cpu = (after.cpu - before.cpu) / seconds
      console.log(`${name}: ${checks.toFixed(1)} checks/s; CPU ${(cpu * 100).toFixed(1)}% of a core (idle ${(idle * 100).toFixed(1)}%), ` +
        `${((cpu - idle) / checks * 1e6).toFixed(0)} µs per check` +
        (after.pg !== undefined && before.pg !== undefined
          ? `; ${((after.pg.rows - before.pg.rows) / seconds).toFixed(0)} rows written/s, ${((after.pg.commits - before.pg.commits) / seconds).toFixed(1)} transactions/s (whole database)`
          : ''))
    } finally {
      await client?.end()
    }
  } finally {
    await service.stop()
  }
}

/** Runs `statement` on the server TEST_DATABASE_URL names. */
async function adminQuery (statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

/** Runs the measurement on SQLite, then PostgreSQL when configured. */
export async function measureChecks (dir: string): Promise<void> {
  console.log(`\n## Active health checks: ${PROVIDERS} providers (${POOLS} pools × ${PROVIDERS / POOLS}), every ${INTERVAL_S} s, ${SECONDS} s measured`)
  const upstream = await startScript('bench/upstream-server.ts', {}, 'load')
  try {
    await measure('SQLite', `sqlite:${join(dir, 'checks.db')}`, upstream.url)
    if (process.env.TEST_DATABASE_URL !== undefined) {
      const schema = `sourcepool_bench_${randomBytes(4).toString('hex')}`
      await adminQuery(`create schema ${schema}`)
      try {
        const url = new URL(process.env.TEST_DATABASE_URL)
        url.searchParams.set('schema', schema)
        await measure('PostgreSQL', url.toString(), upstream.url, schema)
      } finally {
        await adminQuery(`drop schema if exists ${schema} cascade`)
      }
    }
  } finally {
    await upstream.stop()
  }
}
