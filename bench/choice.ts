/**
 * Member choice at any pool size (issue 28, part 8): for each rotation strategy,
 * `POST /api/pools/{id}/rotate` throughput (wrk, 10 connections) and `GET …/next`
 * latency (one connection, requests one at a time) on pools of 2, 50 and 500 members,
 * and the proxy's in-memory choice (runtime/choosing.ts) timed in this process on the
 * same shapes of pool. The target: 500 members ≥ 0.8 of 2 members. Standalone:
 * `node --import tsx bench/choice.ts` (BENCH_DURATION: seconds per load, default 3;
 * CHOICE_STRATEGIES / CHOICE_SIZES narrow the run, comma-separated).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runLoad, runSequential } from './load.js'
import { describePinning } from './options.js'
import { call } from './pool-jobs.js'
import { startService } from './processes.js'
import { createChoosing } from '../src/runtime/choosing.js'
import { createRuntimeState, type Member, type PoolState } from '../src/runtime/runtime-state.js'
import type { RuntimePoolRow } from '../src/runtime/runtime.repository.js'
import { STRATEGIES, type Strategy } from '../src/rules/strategies.js'

const SECONDS = Number(process.env.BENCH_DURATION ?? '3')
const SIZES = (process.env.CHOICE_SIZES ?? '2,50,500').split(',').map(Number)
const PICKED = (process.env.CHOICE_STRATEGIES ?? STRATEGIES.join(',')).split(',') as Strategy[]

/** The priority of member m of a pool: three levels, the top one holding a third of the members. */
const priorityOf = (m: number) => m % 3
/** The weight of member m: 1 to 3, as the issue-12 bench seeds them. */
const weightOf = (m: number) => 1 + (m % 3)

interface Row { strategy: Strategy, size: number, rps: number, nextP50: number, proxyUs: number }

/** Seeds one pool of `size` members of `providers` for `strategy`; least_latency members get a measured latency. */
async function seedPool (url: string, strategy: Strategy, size: number, providers: readonly number[]): Promise<number> {
  const pool = (await call('POST', `${url}/api/pools`, { name: `${strategy}-${size}`, category: 'bench', rotation_strategy: strategy })).pool_id as number
  for (let m = 0; m < size; m++) {
    await call('POST', `${url}/api/pools/${pool}/members`, { provider_id: providers[m], priority: priorityOf(m), weight: weightOf(m) })
  }
  if (strategy === 'least_latency') {
    for (let m = 0; m < size; m++) {
      await call('POST', `${url}/api/pools/${pool}/report`, { provider_id: providers[m], success: true, latency_ms: 10 + (m * 7) % 90 })
    }
  }
  for (let r = 0; r < 12; r++) await call('POST', `${url}/api/pools/${pool}/rotate`)
  return pool
}

/** A member as the runtime keeps it, made up for the in-process timing. */
function fakeMember (poolId: number, m: number, strategy: Strategy): Member {
  return {
    id: m + 1,
    pool_id: poolId,
    provider_id: m + 1,
    priority: priorityOf(m),
    weight: weightOf(m),
    enabled: 1,
    use_count: 100 + (m * 13) % 17,
    success_count: 0,
    failure_count: 0,
    last_used: null,
    created_at: '2024-01-01T00:00:00.000Z',
    consecutive_failures: 0,
    cooldown_trips: 0,
    cooldown_until: null,
    cooldown_reason: null,
    latency_ms: strategy === 'least_latency' ? 10 + (m * 7) % 90 : null,
    last_error: null,
    check_passes: 0,
    check_passes_for: null,
    provider_name: `p${m}`,
    rate_limit_requests: null,
    rate_limit_unit: 'requests',
    rate_limit_per: null,
    quota_window_start: null,
    quota_used: 0,
    base_url: 'http://127.0.0.1:1',
    ws_url: null,
    timeout_ms: null,
    auth_headers: null,
    health_check: null,
    last_check: null,
    methods: null,
    max_batch_size: 10,
    provider_updated_at: '2026-01-01T00:00:00.000Z',
    method_costs: null
  }
}

/** Microseconds of CPU per proxy choice (runtime/choosing.ts) on a pool of `size` members, in this process. */
async function proxyChoiceUs (strategy: Strategy, size: number): Promise<number> {
  const memory = createRuntimeState()
  const pool = {
    id: 1,
    enabled: 1,
    rotation_strategy: strategy,
    rotation_state: '{}',
    current_provider_id: null,
    failure_threshold: 3,
    cooldown_seconds: 30,
    max_cooldown_seconds: 300,
    all_down: 'soonest',
    max_attempts: 3,
    retry_non_idempotent: 0,
    forward_client_auth: 0,
    forbidden_ttl_seconds: 0,
    cache_ttl_seconds: 0,
    cache_stale_seconds: 0,
    max_wait_ms: 0,
    change_seq: 1
  } as unknown as RuntimePoolRow
  const members = Array.from({ length: size }, (_, m) => fakeMember(1, m, strategy))
  const state: PoolState = { pool, members, cursor: {}, refusals: new Map(), rejections: new Map(), stale: false }
  memory.pools.set(1, state)
  const choose = createChoosing({
    now: () => new Date(),
    random: Math.random,
    memory,
    stateOf: async () => state,
    lease: async () => {},
    accounting: { chosen: (_pool, member) => { member.use_count++ } }
  })
  const none = new Set<number>()
  const key = strategy === 'consistent_hash' ? 'bench-key' : undefined
  const run = async (n: number) => { for (let i = 0; i < n; i++) await choose(1, '/', none, undefined, key) }
  await run(2000)
  const rounds = size >= 500 ? 4000 : 20_000
  const started = process.cpuUsage()
  await run(rounds)
  const used = process.cpuUsage(started)
  return (used.user + used.system) / rounds
}

async function main (): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sourcepool-choice-'))
  const rows: Row[] = []
  const service = await startService({ DATABASE_URL: `sqlite:${join(dir, 'choice.db')}`, ADMIN_RATE_LIMIT: 'off' })
  try {
    const largest = Math.max(...SIZES)
    process.stderr.write(`bench: seeding ${largest} providers and ${PICKED.length * SIZES.length} pools through the API\n`)
    const providers: number[] = []
    for (let i = 0; i < largest; i++) providers.push((await call('POST', `${service.url}/api/providers`, { name: `choice-${i}` })).provider_id)
    for (const strategy of PICKED) {
      for (const size of SIZES) {
        const pool = await seedPool(service.url, strategy, size, providers)
        const rotate = await runLoad({ url: `${service.url}/api/pools/${pool}/rotate`, method: 'POST' }, 10, SECONDS)
        if (rotate.errors > 0) throw new Error(`${strategy} at ${size}: ${rotate.errors} failed rotations`)
        const next = await runSequential(`${service.url}/api/pools/${pool}/next`, Math.max(1, Math.round(SECONDS / 2)))
        if (next.errors > 0) throw new Error(`${strategy} at ${size}: ${next.errors} failed /next`)
        const proxyUs = await proxyChoiceUs(strategy, size)
        rows.push({ strategy, size, rps: rotate.rps, nextP50: next.p50, proxyUs })
        process.stderr.write(`bench: ${strategy} ${size}: ${Math.round(rotate.rps)} rotations/s, /next p50 ${next.p50.toFixed(2)} ms, proxy choice ${proxyUs.toFixed(1)} µs\n`)
      }
    }
  } finally {
    await service.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  print(rows)
}

function print (rows: readonly Row[]): void {
  console.log('\n## Member choice at any pool size (issue 28)\n')
  console.log(`- rotate: wrk 10 connections, ${SECONDS} s per pool; /next: one connection, ${Math.max(1, Math.round(SECONDS / 2))} s; ${describePinning()}`)
  console.log('- proxy choice: runtime/choosing.ts in the bench process, CPU µs per choice (no I/O)\n')
  const sizes = [...new Set(rows.map((r) => r.size))]
  const smallest = Math.min(...sizes)
  const largest = Math.max(...sizes)
  const head = ['strategy', ...sizes.map((s) => `rotate/s @${s}`), `${largest}/${smallest}`, ...sizes.map((s) => `/next p50 ms @${s}`), ...sizes.map((s) => `proxy µs @${s}`)]
  console.log(`| ${head.join(' | ')} |`)
  console.log(`|${head.map(() => '---').join('|')}|`)
  for (const strategy of [...new Set(rows.map((r) => r.strategy))]) {
    const of = (size: number) => rows.find((r) => r.strategy === strategy && r.size === size) as Row
    const ratio = of(largest).rps / of(smallest).rps
    const cells = [
      strategy,
      ...sizes.map((s) => String(Math.round(of(s).rps))),
      `${ratio.toFixed(2)} ${ratio >= 0.8 ? 'met' : 'not met'}`,
      ...sizes.map((s) => of(s).nextP50.toFixed(2)),
      ...sizes.map((s) => of(s).proxyUs.toFixed(1))
    ]
    console.log(`| ${cells.join(' | ')} |`)
  }
}

await main()
