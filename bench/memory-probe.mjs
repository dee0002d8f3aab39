/**
 * Loaded into the service under test by the `streams` part of the bench (`node --expose-gc --import
 * ./bench/memory-probe.mjs dist/main.js`, with an IPC channel): what the process holds, read on
 * request, so the bench can say what 1,000 open streams cost. The service's /metrics has no process
 * or heap metrics, and its code stays as it is. Plain JavaScript, so the compiled service needs no tsx.
 *
 * A message `{ type: 'memory-probe', gc, profile }` is answered with `process.memoryUsage()` (taken after
 * two full collections when `gc`, so what is counted is what is alive). With PROBE_PROFILE_DIR set, the
 * same message ends the CPU profile being taken (node:inspector), writing it there as `<name>.cpuprofile`,
 * and starts one named `profile` when given.
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'

const profileDir = process.env.PROBE_PROFILE_DIR ?? ''
let session
let profiling

async function saveProfile () {
  if (session === undefined || profiling === undefined) return undefined
  const { profile } = await session.post('Profiler.stop')
  const file = join(profileDir, `${profiling}.cpuprofile`)
  writeFileSync(file, JSON.stringify(profile))
  profiling = undefined
  return file
}

async function startProfile (name) {
  if (session === undefined) {
    session = new Session()
    session.connect()
    await session.post('Profiler.enable')
  }
  await session.post('Profiler.start')
  profiling = name
}

async function answer (message) {
  const saved = await saveProfile()
  if (message.gc === true && typeof globalThis.gc === 'function') {
    globalThis.gc()
    globalThis.gc()
  }
  const memory = process.memoryUsage()
  if (profileDir !== '' && typeof message.profile === 'string') await startProfile(message.profile)
  process.send?.({ type: 'memory-probe', memory, saved })
}

if (process.send !== undefined) {
  process.on('message', (message) => {
    if (message?.type !== 'memory-probe') return
    answer(message).catch((error) => { process.stderr.write(`memory probe: ${String(error)}\n`) })
  })
}
