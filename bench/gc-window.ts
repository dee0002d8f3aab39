/**
 * The bench's side of gc-probe.mjs: the Node options that load it into a server, and one
 * measured window (SIGUSR2 to open, SIGUSR2 to close, each answered by the probe rewriting
 * its file), so a load run can be read for bytes allocated and GC time per request.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** The Node options that preload the probe (an absolute path: the service may run from another checkout). */
export const GC_PROBE_ARGS = ['--import', fileURLToPath(new URL('gc-probe.mjs', import.meta.url))] as const

/** What the probe measured over one window. */
export interface GcReading {
  readonly ms: number
  /** Bytes allocated on V8's heap in the window. */
  readonly allocatedBytes: number
  /** Main-thread time of the collections in the window, µs. */
  readonly gcUs: number
  /** Collections by type (Scavenge, MarkSweepCompact, …). */
  readonly gcCounts: Readonly<Record<string, number>>
  /** Event-loop utilization over the window, 0–1. */
  readonly utilization: number
}

interface ProbeFile { readonly seq: number, readonly open: boolean }

const read = (file: string): ProbeFile | undefined => {
  try { return JSON.parse(readFileSync(file, 'utf8')) as ProbeFile } catch { return undefined }
}

/** Signals the probe in `pid` and waits (10 s at most) until it has written a reading newer than the last. */
async function toggle (pid: number, file: string): Promise<ProbeFile> {
  const before = read(file)?.seq ?? 0
  process.kill(pid, 'SIGUSR2')
  const deadline = Date.now() + 10_000
  for (;;) {
    const now = read(file)
    if (now !== undefined && now.seq > before) return now
    if (Date.now() > deadline) throw new Error(`the GC probe in process ${pid} did not answer in ${file} (was it started with GC_PROBE_FILE?)`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Runs `work` inside a window of the probe in `pid` (writing to `file`); answers the work's result and the reading. */
export async function gcWindow<T> (pid: number, file: string, work: () => Promise<T>): Promise<{ result: T, gc: GcReading }> {
  if (!(await toggle(pid, file)).open) throw new Error(`the GC probe in process ${pid} closed a window instead of opening one`)
  const result = await work()
  const closed = await toggle(pid, file)
  if (closed.open) throw new Error(`the GC probe in process ${pid} opened a window instead of closing one`)
  return { result, gc: closed as unknown as GcReading }
}
