/**
 * The demo providers started together (`sourcepool demo`): demo-a, demo-b, … on
 * 127.0.0.1, on consecutive ports from the first (9101 by default, the ports
 * examples/sourcepool.yaml names) or on any free ports (port 0). Each answers a
 * little slower than the one before, so a latency-aware strategy has something to see.
 */
import type { AddressInfo } from 'node:net'
import { createDemoProvider } from './demo-provider.js'

/** The demo's first port by default: the one examples/sourcepool.yaml gives demo-a. */
export const DEMO_PORT = 9101

/** A demo provider that listens: its name, base URL and how long each of its answers takes. */
export interface DemoProvider { readonly name: string, readonly url: string, readonly latencyMs: number }

/** The running demo: its providers, and `stop` that closes them all. */
export interface Demo { readonly providers: readonly DemoProvider[], stop: () => Promise<void> }

export interface DemoOptions {
  /** The first provider's port, the others on the next ones; 0: any free ports. */
  readonly port?: number
  /** How many providers, 1–10. */
  readonly count?: number
  readonly host?: string
}

/** Starts `count` demo providers; a port taken stops the ones started and says which, in a sentence. */
export async function startDemo ({ port = DEMO_PORT, count = 3, host = '127.0.0.1' }: DemoOptions = {}): Promise<Demo> {
  const started: Array<{ provider: DemoProvider, stop: () => Promise<void> }> = []
  const stop = async () => { await Promise.all(started.map(async (s) => await s.stop())) }
  for (let i = 0; i < count; i++) {
    const name = `demo-${String.fromCharCode(97 + i)}`
    const latencyMs = 200 + 50 * i
    const { server, stop: stopOne } = createDemoProvider({ name, latencyMs, limitPerMinute: 120 })
    const wanted = port === 0 ? 0 : port + i
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(wanted, host, resolve)
      })
    } catch (error) {
      await stop()
      const code = (error as NodeJS.ErrnoException).code
      throw new Error(code === 'EADDRINUSE'
        ? `port ${wanted} is taken (is a demo already running?); choose other ports with --port`
        : `cannot listen on ${host}:${wanted} (${code ?? (error as Error).message})`)
    }
    const { port: bound } = server.address() as AddressInfo
    started.push({ provider: { name, url: `http://${host}:${bound}`, latencyMs }, stop: stopOne })
  }
  return { providers: started.map((s) => s.provider), stop }
}
