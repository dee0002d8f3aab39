/**
 * The target table of issue #12 (parts `reads`, `proxy` and `rotate` of
 * `npm run bench`): every job of the service against the limit of that job in
 * the same run, each limit loaded right before the service. Prints the
 * environment first, then the table with met / not met per row.
 */
import { cpus, loadavg } from 'node:os'
import { join } from 'node:path'
import { describeLoadTool } from './load.js'
import { NGINX_INSTALLED, nginxVersion } from './nginx.js'
import { CONNECTIONS, CPUS, DURATION, describePinning } from './options.js'
import { measureReads, measureRotate, seedPools } from './pool-jobs.js'
import { startScript, startService } from './processes.js'
import { measureProxy } from './proxy.js'
import { printTargets, RunLog, type TargetRow } from './target-table.js'

/** The jobs of the table, in its order. */
export const TARGET_JOBS = ['reads', 'proxy', 'rotate'] as const
export type TargetJob = typeof TARGET_JOBS[number]

function printEnvironment (): void {
  console.log('\n## Issue #12: sourcepool against the limit of each job, same run\n')
  console.log(`- machine: ${CPUS} CPUs (${cpus()[0]?.model.trim() ?? 'unknown model'}), Node ${process.version}, ${process.platform}/${process.arch}`)
  console.log(`- load generator: ${describeLoadTool()}, ${CONNECTIONS} connections, ${DURATION} s per run (BENCH_DURATION); ` +
    `one-connection latency runs ${Math.max(2, Math.round(DURATION / 2))} s`)
  console.log(`- ${describePinning()}`)
  console.log(`- NGINX: ${NGINX_INSTALLED ? nginxVersion() : 'nginx not installed (apt-get install nginx): its row is skipped'}`)
  console.log('- service: `node dist/main.js`, SQLite file in a temporary directory, LOG_LEVEL=warn, seeded through its HTTP API')
  console.log(`- ${describeLoad()} at the start`)
}

/** Other work on the machine disturbs every figure; the ratios, each limit run right before its job, much less. */
const describeLoad = () => `machine load average ${loadavg()[0]?.toFixed(2)} (1 min; ${CPUS} CPUs)`

/** Runs `jobs` with their limits and prints the table; `dir` holds the databases and files of the run. */
export async function measureTargets (dir: string, jobs: readonly TargetJob[]): Promise<void> {
  printEnvironment()
  const log = new RunLog()
  const rows = new Map<TargetJob, TargetRow[]>()
  const upstream = await startScript('bench/upstream-server.ts', {}, 'load')
  try {
    if (jobs.includes('reads') || jobs.includes('rotate')) {
      const service = await startService({ DATABASE_URL: `sqlite:${join(dir, 'targets.db')}`, ADMIN_RATE_LIMIT: '1000000' })
      try {
        process.stderr.write('bench: seeding 1,000 providers and 100 pools × 10 members through the API\n')
        const pool = await seedPools(service.url, upstream.url)
        // Reads first: rotate changes what they would answer.
        if (jobs.includes('reads')) rows.set('reads', await measureReads(log, dir, service.url, pool))
        if (jobs.includes('rotate')) rows.set('rotate', await measureRotate(log, service.url, pool))
      } finally {
        await service.stop()
      }
    }
    if (jobs.includes('proxy')) rows.set('proxy', await measureProxy(log, dir, upstream.url))
  } finally {
    await upstream.stop()
  }
  printTargets(TARGET_JOBS.flatMap((job) => rows.get(job) ?? []), log)
  console.log(`\n${describeLoad()} at the end; a figure near or above ${CPUS} means other work shared the machine during the run`)
}
