/**
 * What a proxied request costs the service when its providers fail (issue 28 item 8):
 * the service's own CPU time (user + system, from /proc) per request, for a 3-member
 * pool whose members all answer 1 KiB, beside one whose members all refuse the
 * connection (nothing listens on their port), with the same load. The target: a
 * failing request costs no more than a successful one, so an outage of the providers
 * does not multiply our own load. Part `failure-cost` of `npm run bench`. Each pool is
 * loaded for WARM_UP_S first, unmeasured: the process is fresh, and without it the
 * pool measured first paid for the compilation of the code both paths share.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runLoad } from './load.js'
import { CONNECTIONS, DURATION } from './options.js'
import { call } from './pool-jobs.js'
import { startScript, startService, type Running } from './processes.js'
import { refusingUrl } from '../test/upstreams.js'

/** Seconds each pool is loaded before it is measured (the process's JIT warms up, and a refusing pool's members settle into their cooldowns). */
export const WARM_UP_S = Math.min(3, DURATION)

/** The process's CPU time so far (user + system), in microseconds, from /proc/<pid>/stat. */
function cpuMicros (pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  const ticks = Number(fields[11]) + Number(fields[12])
  return ticks * 10_000
}

/** A 3-member pool whose members all go to `baseUrl`. */
export async function seedPool (url: string, name: string, baseUrl: string): Promise<number> {
  const pool = (await call('POST', `${url}/api/pools`, { name, category: 'bench' })).pool_id
  for (let m = 0; m < 3; m++) {
    const provider = (await call('POST', `${url}/api/providers`, { name: `${name}-${m}`, base_url: baseUrl })).provider_id
    await call('POST', `${url}/api/pools/${pool}/members`, { provider_id: provider })
  }
  return pool
}

export interface FailureCostRow { readonly label: string, readonly requests: number, readonly status: string, readonly cpuUs: number, readonly rps: number }

/** Loads each pool in turn on one fresh service and answers its CPU per request. */
export async function measureFailureCost (dir: string): Promise<FailureCostRow[]> {
  const running: Running[] = []
  try {
    const upstream = await startScript('bench/upstream-server.ts', {}, 'server')
    running.push(upstream)
    const service = await startService({ DATABASE_URL: `sqlite:${join(dir, 'failure-cost.db')}`, ADMIN_RATE_LIMIT: '1000000' })
    running.push(service)
    const ok = await seedPool(service.url, 'working', upstream.url)
    const refused = await seedPool(service.url, 'refusing', await refusingUrl())
    const rows: FailureCostRow[] = []
    const pools = [['3 members answering 1 KiB', ok], ['3 members refusing the connection', refused]] as const
    for (const [, pool] of pools) await runLoad({ url: `${service.url}/api/pools/${pool}/proxy/data` }, CONNECTIONS, WARM_UP_S)
    for (const [label, pool] of pools) {
      const url = `${service.url}/api/pools/${pool}/proxy/data`
      const first = await fetch(url)
      await first.arrayBuffer()
      const before = cpuMicros(service.pid as number)
      const run = await runLoad({ url }, CONNECTIONS, DURATION)
      const used = cpuMicros(service.pid as number) - before
      rows.push({ label, requests: run.requests, status: String(first.status), cpuUs: used / Math.max(1, run.requests), rps: run.rps })
    }
    return rows
  } finally {
    for (const process of running.reverse()) await process.stop()
  }
}

/** Prints the table docs/performance.md keeps. */
export function printFailureCost (rows: readonly FailureCostRow[]): void {
  const success = rows[0]?.cpuUs ?? NaN
  console.log('\n## A failing proxied request against a successful one (issue 28)\n')
  console.log(`- ${CONNECTIONS} connections, ${DURATION} s each after ${WARM_UP_S} s of each unmeasured; the service's CPU time (user + system, /proc) divided by the requests answered\n`)
  console.log('| pool | status | requests/s | CPU µs / request | vs success |')
  console.log('|---|---:|---:|---:|---:|')
  for (const row of rows) {
    const ratio = row.cpuUs / success
    console.log(`| ${row.label} | ${row.status} | ${Math.round(row.rps)} | ${row.cpuUs.toFixed(0)} | ${ratio.toFixed(2)}${row === rows[0] ? '' : ratio <= 1 ? ' met' : ' not met'} |`)
  }
}
