/**
 * The benchmark's settings and its view of the machine: which parts run
 * (BENCH_ONLY, or `--only` after `npm run bench --`), how long each load
 * runs (BENCH_DURATION, seconds; BENCH_SECONDS is the older name), how many
 * connections, the databases of the parts that run on several (BENCH_DATABASES),
 * and which CPUs the load generator and the process under test
 * are pinned to (with `taskset`, when it exists and there are two CPUs or more).
 */
import { spawnSync } from 'node:child_process'
import { availableParallelism } from 'node:os'

/**
 * The parts to run (`--only a,b` on the command line, else BENCH_ONLY, both
 * comma-separated); undefined for all.
 */
export const ONLY = readOnly()

/**
 * The databases of the parts that measure on several (`event-loop`):
 * BENCH_DATABASES=sqlite,postgres, SQLite alone by default; `postgres` makes a
 * fresh schema per service on the server TEST_DATABASE_URL names.
 */
export const DATABASES = readDatabases()

/** Seconds of each load run. */
export const DURATION = readDuration()

/** Connections of each load run, like the wrk runs. */
export const CONNECTIONS = 10

/** CPUs the machine offers this process. */
export const CPUS = availableParallelism()

const hasTaskset = spawnSync('taskset', ['--version']).error === undefined

/**
 * Where each side runs: the load generator (and the proxy's upstream) on one CPU,
 * the process under test on another; undefined for both when pinning is not possible.
 */
export const PINNING: { readonly load: number, readonly server: number } | undefined =
  hasTaskset && CPUS >= 2 ? { load: 0, server: 1 } : undefined

/** One line saying how the processes are placed. */
export function describePinning (): string {
  if (PINNING !== undefined) {
    return `pinned with taskset: load generator and the upstream the proxies forward to on CPU ${PINNING.load}, ` +
      `the process under test (sourcepool, its limit, or the upstream when loaded directly) on CPU ${PINNING.server}`
  }
  return hasTaskset
    ? `not pinned (${CPUS} CPU: nothing to pin apart)`
    : 'not pinned (taskset not found; it is in util-linux)'
}

/** `command args` prefixed with `taskset -c <cpu>` when pinning is possible. */
export function pinned (cpu: 'load' | 'server', command: string, args: string[]): [string, string[]] {
  if (PINNING === undefined) return [command, args]
  return ['taskset', ['-c', String(PINNING[cpu]), command, ...args]]
}

function readDuration (): number {
  const text = process.env.BENCH_DURATION ?? process.env.BENCH_SECONDS ?? '10'
  const seconds = Number(text)
  if (!Number.isInteger(seconds) || seconds < 1) {
    throw new Error(`BENCH_DURATION: '${text}' is not a whole number of seconds (1 or more)`)
  }
  return seconds
}

function readOnly (): string[] | undefined {
  const joined = process.argv.find((arg) => arg.startsWith('--only='))
  const at = process.argv.indexOf('--only')
  const text = joined !== undefined ? joined.slice('--only='.length) : at === -1 ? process.env.BENCH_ONLY : process.argv[at + 1]
  if (at !== -1 && (text === undefined || text.startsWith('--'))) throw new Error('--only: name the parts to run (comma-separated)')
  return text === undefined ? undefined : text.split(',').map((part) => part.trim()).filter((part) => part !== '')
}

function readDatabases (): Array<'sqlite' | 'postgres'> {
  const names = (process.env.BENCH_DATABASES ?? 'sqlite').split(',').map((name) => name.trim()).filter((name) => name !== '')
  for (const name of names) {
    if (name !== 'sqlite' && name !== 'postgres') throw new Error(`BENCH_DATABASES: '${name}' is not sqlite or postgres`)
  }
  if (names.includes('postgres') && process.env.TEST_DATABASE_URL === undefined) {
    throw new Error('BENCH_DATABASES: postgres needs TEST_DATABASE_URL (a server where the bench may create and drop schemas)')
  }
  return names as Array<'sqlite' | 'postgres'>
}
