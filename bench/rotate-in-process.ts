/**
 * Rotate's cost by pool size without the HTTP load's noise (issue 28): one app in
 * this process (SQLite in memory), pools of 2 and 500 members per strategy,
 * rotations through `app.inject` in passes alternating the two sizes (the first
 * pass warms up), and the process's CPU microseconds per rotation over the others
 * (CPU time, so another process's load on the machine counts less than in wall time). The wrk table of
 * bench/choice.ts says the same through the network, with a busy machine's noise.
 * `node --import tsx bench/rotate-in-process.ts` (ROTATIONS, CHOICE_STRATEGIES).
 */
import { STRATEGIES, type Strategy } from '../src/rules/strategies.js'
import { addMember, createPool, createProvider } from '../test/fixtures.js'
import { buildTestApp, sqlite } from '../test/helpers.js'

const ROTATIONS = Number(process.env.ROTATIONS ?? '1000')
/** Measured passes over both sizes, after one to warm up. */
const PASSES = 3
const PICKED = (process.env.CHOICE_STRATEGIES ?? STRATEGIES.join(',')).split(',') as Strategy[]
const SIZES = [2, 500] as const

const t = await buildTestApp(sqlite)
try {
  console.log('| strategy | CPU µs per rotate @2 | @500 | 500/2 by throughput |')
  console.log('|---|---:|---:|---:|')
  for (const strategy of PICKED) {
    const pools = new Map<number, number>()
    for (const size of SIZES) {
      const poolId = await createPool(t, `${strategy}-${size}`, { rotation_strategy: strategy })
      for (let i = 0; i < size; i++) await addMember(t, poolId, await createProvider(t, `${strategy}-${size}-${i}`, { base_url: 'http://127.0.0.1:9' }))
      pools.set(size, poolId)
    }
    const micros = new Map<number, number>(SIZES.map((size) => [size, 0]))
    for (let pass = 0; pass < PASSES + 1; pass++) {
      for (const size of SIZES) {
        const started = process.cpuUsage()
        for (let i = 0; i < ROTATIONS; i++) {
          const res = await t.app.inject({ method: 'POST', url: `/api/pools/${pools.get(size) as number}/rotate`, payload: {} })
          if (res.statusCode !== 200) throw new Error(`rotate answered ${res.statusCode}: ${res.body}`)
        }
        const used = process.cpuUsage(started)
        if (pass > 0) micros.set(size, (micros.get(size) as number) + (used.user + used.system) / ROTATIONS / PASSES)
      }
    }
    const small = micros.get(2) as number
    const large = micros.get(500) as number
    console.log(`| ${strategy} | ${small.toFixed(0)} | ${large.toFixed(0)} | ${(small / large).toFixed(2)} |`)
  }
} finally {
  await t.close()
}
