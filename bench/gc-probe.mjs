/**
 * Loaded into a server under test (`node --import ./bench/gc-probe.mjs …`: the compiled service
 * and the Fastify + @fastify/reply-from server alike, so both are read the same way) by the
 * `dataplane` part of the bench: what one measured window cost the process in allocation and
 * garbage collection. Plain JavaScript, so the compiled service needs no tsx (whose loader and
 * source maps would change what it costs). Idle until GC_PROBE_FILE names a file.
 *
 * Each SIGUSR2 opens a window or, when one is open, closes it; after each, the probe writes
 * `{ seq, open, … }` to GC_PROBE_FILE (whole, by a rename), which the bench waits for. The method:
 * - bytes allocated on V8's heap = used heap at the end − used heap at the start + what every
 *   collection in the window freed (each GC's used heap before it − after it, from v8.GCProfiler,
 *   which records both for every collection). Exact for the JavaScript heap; Buffer contents
 *   held outside it (socket reads, Buffer.allocUnsafe's pool) are not counted, on either server.
 * - GC time = the sum of the collections' own time on the main thread (GCProfiler's `cost`, µs);
 *   the work V8's helper threads do beside it (concurrent marking, parallel scavenging) is CPU
 *   of the process's other threads, which the bench reads from /proc.
 * - event-loop utilization over the window (performance.eventLoopUtilization).
 */
import { renameSync, writeFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import v8 from 'node:v8'

const file = process.env.GC_PROBE_FILE ?? ''
let seq = 0
/** The window being measured, or undefined. */
let open

/** Writes `reading` whole: the bench never reads half a file. */
function write (reading) {
  writeFileSync(`${file}.tmp`, JSON.stringify({ seq: ++seq, ...reading }))
  renameSync(`${file}.tmp`, file)
}

function start () {
  const profiler = new v8.GCProfiler()
  profiler.start()
  open = { profiler, used: v8.getHeapStatistics().used_heap_size, elu: performance.eventLoopUtilization(), at: performance.now() }
  write({ open: true })
}

function stop () {
  const { profiler, used, elu, at } = open
  open = undefined
  const { statistics } = profiler.stop()
  let freed = 0
  let gcUs = 0
  const counts = {}
  for (const gc of statistics) {
    freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
    gcUs += gc.cost
    counts[gc.gcType] = (counts[gc.gcType] ?? 0) + 1
  }
  write({
    open: false,
    ms: performance.now() - at,
    allocatedBytes: v8.getHeapStatistics().used_heap_size - used + freed,
    gcUs,
    gcCounts: counts,
    utilization: performance.eventLoopUtilization(elu).utilization
  })
}

if (file !== '') {
  process.on('SIGUSR2', () => {
    try {
      if (open === undefined) start()
      else stop()
    } catch (error) {
      process.stderr.write(`gc probe: ${String(error)}\n`)
    }
  })
}
