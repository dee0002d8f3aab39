/**
 * The service as the streams benchmark (streams.ts) runs it: `dist/main.js` on the server's CPU with
 * memory-probe.mjs preloaded (and `--expose-gc`, so the probe can collect before it reads) over an IPC
 * channel, and what the bench reads of it: the probe's memory readings and CPU profiles
 * (BENCH_STREAMS_PROFILE=<folder>), and the stream gauges of its /metrics.
 */
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { spawnService, stopChild, type Running } from './processes.js'

/** BENCH_STREAMS_PROFILE: where the service's CPU profiles go ('' for none). */
export const PROFILES = process.env.BENCH_STREAMS_PROFILE ?? ''
const PROBE = fileURLToPath(new URL('memory-probe.mjs', import.meta.url))

/** What the probe reads of the process (process.memoryUsage()), bytes. */
export interface Memory { readonly rss: number, readonly heapUsed: number, readonly external: number, readonly arrayBuffers: number }

/** The service under test, with its probe. */
export interface Service extends Running {
  readonly pid: number
  /** Asks the probe: memory (after full collections when `gc`); with profiles on, ends the profile running and starts `profile`. */
  probe: (ask: { gc?: boolean, profile?: string }) => Promise<{ memory: Memory, saved?: string }>
}

/** Starts the service (`dist/main.js`, on the server's CPU) on SQLite file `file` in `dir`, with the probe and an IPC channel to it. */
export async function startProbedService (dir: string, file: string): Promise<Service> {
  const env: Record<string, string> = { DATABASE_URL: `sqlite:${join(dir, file)}`, ADMIN_RATE_LIMIT: '1000000' }
  if (PROFILES !== '') mkdirSync(env.PROBE_PROFILE_DIR = resolve(PROFILES), { recursive: true })
  const { url, child } = await spawnService([], env, 60_000, { ipc: true, preload: ['--expose-gc', '--import', PROBE] })
  const probe = async (ask: object) => await new Promise<any>((resolve, reject) => {
    const timer = setTimeout(() => { reject(new Error('the memory probe did not answer in 20 s')) }, 20_000)
    const listener = (message: { type?: string }) => {
      if (message?.type !== 'memory-probe') return
      child.off('message', listener)
      clearTimeout(timer)
      resolve(message)
    }
    child.on('message', listener)
    child.send({ type: 'memory-probe', ...ask })
  })
  return { url, pid: child.pid as number, probe, stop: async () => { if (child.connected) child.disconnect(); await stopChild(child) } }
}

/** The sum of the samples of `name` for pool `poolId` in the service's /metrics. */
export async function metric (service: Service, poolId: number, name: string): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text()
  let sum = 0
  for (const match of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    if ((match[1] as string).includes(`pool_id="${poolId}"`)) sum += Number(match[2])
  }
  return sum
}

/** Waits until `ready()` holds (checked every 50 ms), failing after `ms`. */
export async function until (what: string, ready: () => Promise<boolean>, ms = 20_000): Promise<void> {
  for (const deadline = Date.now() + ms; !await ready();) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
