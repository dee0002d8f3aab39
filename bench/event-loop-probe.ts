/**
 * Loaded into the service under test by the `event-loop` part of the bench
 * (`node --import tsx --import ./bench/event-loop-probe.ts src/main.ts`): a
 * perf_hooks event-loop delay histogram over the whole process, read and reset
 * over the IPC channel the bench opened. The service's code and its /metrics
 * stay as they are (its registry has no event-loop metrics). With
 * PROBE_PROFILE_DIR set, a read may also start a CPU profile (node:inspector)
 * that the next read writes there as `<name>.cpuprofile`.
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { READ_TYPE, RESOLUTION_MS, type DelayReading, type ReadMessage } from './event-loop-reading.js'

const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
histogram.enable()

const ms = (nanoseconds: number) => nanoseconds / 1e6
const profileDir = process.env.PROBE_PROFILE_DIR ?? ''
let session: Session | undefined
let profiling: string | undefined

/** Ends the profile being taken, if any, and writes it. */
async function saveProfile (): Promise<void> {
  if (session === undefined || profiling === undefined) return
  const { profile } = await session.post('Profiler.stop')
  writeFileSync(join(profileDir, `${profiling}.cpuprofile`), JSON.stringify(profile))
  profiling = undefined
}

async function startProfile (name: string): Promise<void> {
  if (session === undefined) {
    session = new Session()
    session.connect()
    await session.post('Profiler.enable')
  }
  await session.post('Profiler.start')
  profiling = name
}

if (process.send !== undefined) {
  process.on('message', (message: ReadMessage) => {
    if (message?.type !== READ_TYPE) return
    const reading: DelayReading = {
      max: ms(histogram.max),
      p99: ms(histogram.percentile(99)),
      p50: ms(histogram.percentile(50)),
      samples: histogram.count,
      rss: process.memoryUsage.rss()
    }
    ;(async () => {
      await saveProfile()
      if (profileDir !== '' && message.profile !== undefined) await startProfile(message.profile)
      histogram.reset()
      process.send?.(reading)
    })().catch((error: unknown) => { process.stderr.write(`event-loop probe: ${String(error)}\n`) })
  })
}
