/**
 * The real server entry (src/main.ts) as a child process whose JSON log lines (stdout)
 * are kept and parsed, for the tests that must see which process did what: WORKERS
 * (the primary names its workers as they listen; each request's line carries the pid
 * of the worker that served it), restarts, shutdown.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { freePort, SERVER_ENTRY } from './server-process.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** A service process whose JSON log lines (stdout) are kept. */
export interface Service {
  readonly url: string
  readonly child: ChildProcess
  /** The log lines so far, parsed. */
  readonly lines: Array<Record<string, any>>
  readonly exited: Promise<number | null>
  stderr(): string
}

/** Spawns `args` (the server entry, compiled when current: SERVER_ENTRY, by default) with `env` on a free port, at LOG_LEVEL info; does not wait for it to serve. */
export async function spawnService (env: Record<string, string>, args: readonly string[] = SERVER_ENTRY): Promise<Service> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [...args], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const lines: Array<Record<string, any>> = []
  let rest = ''
  child.stdout?.on('data', (chunk) => {
    const parts = (rest + String(chunk)).split('\n')
    rest = parts.pop() ?? ''
    for (const part of parts) if (part.trim() !== '') lines.push(JSON.parse(part))
  })
  let stderr = ''
  child.stderr?.on('data', (chunk) => { stderr += String(chunk) })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { url, child, lines, exited, stderr: () => stderr }
}

/** Spawns the service and resolves once /healthz answers and, with WORKERS, all of them serve. */
export async function startService (env: Record<string, string>, args?: string[], timeoutMs = 60_000): Promise<Service> {
  const service = await spawnService(env, args)
  const workers = env.WORKERS !== undefined && env.WORKERS !== '1'
  const deadline = Date.now() + timeoutMs
  while (true) {
    if (service.child.exitCode !== null) throw new Error(`exited with ${service.child.exitCode}: ${service.stderr()}`)
    if (Date.now() > deadline) {
      service.child.kill('SIGKILL')
      throw new Error(`did not serve within ${timeoutMs} ms: ${service.stderr()}`)
    }
    const ready = await fetch(`${service.url}/healthz`).then(async (res) => { await res.arrayBuffer(); return res.status === 200 }, () => false)
    if (ready && (!workers || service.lines.some((line) => line.msg === 'all workers serving'))) return service
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The pids the primary said its workers have (in the order they started listening). */
export const workerPids = (service: Service): number[] => service.lines.filter((line) => line.msg === 'worker listening').map((line) => line.workerPid)

/** The pid of the worker that served the request `requestId` (its `request completed` line), once it is logged. */
export async function servedBy (service: Service, requestId: string, timeoutMs = 5000): Promise<number> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const line = service.lines.find((one) => one.reqId === requestId && one.msg === 'request completed')
    if (line !== undefined) return line.pid
    if (Date.now() > deadline) throw new Error(`no log line for request ${requestId}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** True while process `pid` exists. */
export function alive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
