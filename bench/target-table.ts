/**
 * The table of issue #12: each job of the service beside the limit of that job,
 * measured in the same run, with its target and whether it is met. Also the
 * runs behind it (every load run, with its errors), so a row can be checked.
 */
import { CONNECTIONS, DURATION } from './options.js'
import { runLoad, runSequential, type LoadResult, type LoadTarget } from './load.js'

/** One row of the target table, its cells ready to print. */
export interface TargetRow {
  readonly job: string
  /** The service's own load run; undefined for a latency row. */
  readonly ours?: LoadResult
  /** The service's median latency alone on one connection (latency rows). */
  readonly oursMedian?: number
  readonly limit: string
  readonly limitRps: string
  readonly ratio: string
  readonly target: string
  readonly met: string
}

/** One load run, as it went. */
export interface RunRecord { readonly name: string, readonly connections: number, readonly result: LoadResult }

/** Where the jobs leave their runs. */
export class RunLog {
  readonly runs: RunRecord[] = []

  /** Loads `target` (10 connections, BENCH_DURATION by default), records the run and returns it. */
  async load (name: string, target: LoadTarget, connections = CONNECTIONS, seconds = DURATION): Promise<LoadResult> {
    process.stderr.write(`bench: ${name}, ${connections} connection${connections === 1 ? '' : 's'}, ${seconds} s\n`)
    const result = await runLoad(target, connections, seconds)
    this.runs.push({ name, connections, result })
    return result
  }

  /** GETs `url` one request at a time on one connection, records the run and returns it. */
  async sequential (name: string, url: string, seconds: number): Promise<LoadResult> {
    process.stderr.write(`bench: ${name}, 1 connection, one request at a time, ${seconds} s\n`)
    const result = await runSequential(url, seconds)
    this.runs.push({ name, connections: 1, result })
    return result
  }
}

/** `ours` over `limit` in requests/s, met when at least `min`; a run with failed requests proves nothing. */
export function ratioRow (job: string, ours: LoadResult, limitName: string, limit: LoadResult, min: number): TargetRow {
  const ratio = ours.rps / limit.rps
  return {
    job,
    ours,
    limit: limitName,
    limitRps: String(Math.round(limit.rps)),
    ratio: ratio.toFixed(2),
    target: `≥ ${min}`,
    met: verdict(ratio >= min, ours.errors + limit.errors)
  }
}

/** The service's median latency over the limit's, met when it adds at most `max` ms. */
export function latencyRow (job: string, ours: number, limitName: string, limit: number, max: number, errors: number): TargetRow {
  const added = ours - limit
  return {
    job,
    oursMedian: ours,
    limit: `${limitName}: median ${ms(limit)} ms`,
    limitRps: '–',
    ratio: `+${ms(added)} ms`,
    target: `≤ +${max} ms`,
    met: verdict(added <= max, errors)
  }
}

/** A row that could not be measured, with the reason. */
export function skippedRow (job: string, limit: string, target: string, reason: string): TargetRow {
  return { job, limit, limitRps: '–', ratio: '–', target, met: `skipped: ${reason}` }
}

function verdict (ok: boolean, errors: number): string {
  if (errors > 0) return `invalid: ${errors} failed requests`
  return ok ? 'met' : 'not met'
}

const ms = (value: number) => value.toFixed(3)
const latency = (result: LoadResult, value: number) => result.wholeMs === true ? String(value) : ms(value)

/** Prints the target table, then the runs behind it. */
export function printTargets (rows: TargetRow[], log: RunLog): void {
  console.log('\n| job | sourcepool req/s | p50 ms | p99 ms | limit | limit req/s | ratio | target | met? |')
  console.log('|---|---:|---:|---:|---|---:|---:|---|---|')
  for (const row of rows) {
    const rps = row.ours === undefined ? '–' : String(Math.round(row.ours.rps))
    const p50 = row.ours !== undefined ? latency(row.ours, row.ours.p50) : row.oursMedian !== undefined ? `${ms(row.oursMedian)} (1 conn.)` : '–'
    const p99 = row.ours === undefined ? '–' : latency(row.ours, row.ours.p99)
    console.log(`| ${row.job} | ${rps} | ${p50} | ${p99} | ${row.limit} | ${row.limitRps} | ${row.ratio} | ${row.target} | ${row.met} |`)
  }
  printRuns(log)
}

/** Prints every run of `log`, in the order they ran, with its failed requests. */
export function printRuns (log: RunLog): void {
  console.log('\nThe runs behind it, in the order they ran:\n')
  console.log('| run | connections | req/s | p50 ms | p99 ms | requests | failed |')
  console.log('|---|---:|---:|---:|---:|---:|---:|')
  for (const { name, connections, result } of log.runs) {
    console.log(`| ${name} | ${connections} | ${Math.round(result.rps)} | ${latency(result, result.p50)} | ${latency(result, result.p99)} | ${result.requests} | ${result.errors} |`)
  }
}
