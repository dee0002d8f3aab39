/**
 * The streams benchmark's side of its load generator (ws-load.ts): runs it as its own process on the
 * load generator's CPU, reads its events, tells it to go on, and reads the CPU time of the processes
 * under test (/proc) when its measured window opens and when it reports, so their CPU is that of the
 * window alone.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { cpuSeconds } from './cache.js'
import { pinned } from './options.js'
import type { LoadSpec } from './ws-load.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** One event the load generator wrote, with its fields. */
export type LoadEvent = { readonly event: string } & Record<string, any>

/** What a measured run gave: the load generator's report, and the CPU seconds the watched process spent in its window (all its threads, and its main thread). */
export interface WindowRun { readonly report: LoadEvent, readonly cpuS: number, readonly mainS: number }

/** A running load generator. */
export class LoadProcess {
  private readonly child: ChildProcess
  private readonly events: AsyncIterator<string>
  private stderr = ''

  constructor (spec: LoadSpec) {
    const [command, args] = pinned('load', process.execPath, ['--import', 'tsx', 'bench/ws-load.ts'])
    this.child = spawn(command, args, { cwd: ROOT, env: { ...process.env, WS_LOAD: JSON.stringify(spec) }, stdio: ['pipe', 'pipe', 'pipe'] })
    this.child.stderr?.on('data', (chunk) => { this.stderr += String(chunk) })
    this.events = createInterface({ input: this.child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]()
  }

  /** The next event; throws on a `failed` one or when the process ended without one. */
  async next (): Promise<LoadEvent> {
    for (;;) {
      const line = await this.events.next()
      if (line.done === true) throw new Error(`the load generator ended without a report: ${this.stderr.trim()}`)
      if (!line.value.startsWith('WS_LOAD ')) continue
      const event = JSON.parse(line.value.slice('WS_LOAD '.length)) as LoadEvent
      if (event.event === 'failed') throw new Error(`the load generator failed: ${String(event.error)}`)
      return event
    }
  }

  /** The next event, which must be `name`. */
  async expect (name: string): Promise<LoadEvent> {
    const event = await this.next()
    if (event.event !== name) throw new Error(`the load generator said ${event.event}, not ${name}`)
    return event
  }

  /** Tells it to go on to its next step. */
  go (): void { this.child.stdin?.write('go\n') }

  /** Resolves once it has exited (killing it if it has not within 10 s). */
  async ended (): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    const exited = new Promise((resolve) => this.child.once('exit', resolve))
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
  }
}

/** CPU seconds `pid` spent between the load generator's `measuring` and `measured`, and its report after them (event `end`). */
export async function cpuWindow (load: LoadProcess, pid: number, end: string): Promise<WindowRun> {
  await load.expect('measuring')
  const before = [cpuSeconds(pid), cpuSeconds(pid, pid)] as const
  await load.expect('measured')
  const cpuS = cpuSeconds(pid) - before[0]
  const mainS = cpuSeconds(pid, pid) - before[1]
  return { report: await load.expect(end), cpuS, mainS }
}

/** Runs an `echo` or `firehose` spec to its end, reading `pid`'s CPU over the measured window. */
export async function runWindowed (spec: LoadSpec, pid: number): Promise<WindowRun> {
  const load = new LoadProcess(spec)
  try {
    return await cpuWindow(load, pid, 'done')
  } finally {
    await load.ended()
  }
}
