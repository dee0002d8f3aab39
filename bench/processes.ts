/**
 * Helper processes of the benchmark: a script run with Node (through tsx) that
 * prints `Server listening at <url>` once it serves, and the service itself (the
 * compiled `dist/main.js`, as `npm start` runs it; through tsx when a probe is
 * imported into it), each optionally pinned to a CPU (see options.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { freePort } from '../test/server-process.js'
import { pinned } from './options.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** A process the benchmark started: where it listens and how to end it. */
export interface Running {
  readonly url: string
  /** The process id (for reading its CPU time from /proc). */
  readonly pid?: number
  /** Sends SIGTERM and resolves once the process has exited. */
  stop(): Promise<void>
}

/**
 * Starts `script` (a path from the project root), on the CPU named by `cpu` when
 * given, and resolves with its URL and a stop function.
 */
export async function startScript (script: string, env: Record<string, string> = {}, cpu?: 'load' | 'server'): Promise<Running> {
  const node: [string, string[]] = [process.execPath, ['--import', 'tsx', script]]
  const [command, args] = cpu === undefined ? node : pinned(cpu, ...node)
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
    child.stdout.on('data', (chunk) => {
      out += String(chunk)
      const match = /Server listening at (\S+)/.exec(out)
      if (match?.[1] !== undefined) resolve(match[1])
    })
  })
  return { url, stop: async () => { await stopChild(child) } }
}

/**
 * Starts the service (`node dist/main.js`) with `env` on the server's
 * CPU, on a free port, and resolves once `GET /healthz` answers 200.
 */
export async function startService (env: Record<string, string>, timeoutMs = 30_000): Promise<Running> {
  const { url, child } = await spawnService([], env, timeoutMs)
  return { url, pid: child.pid, stop: async () => { await stopChild(child) } }
}

/**
 * Spawns `node dist/main.js` (or `node --import tsx [imports…] src/main.ts`) with `env` on the server's CPU, on a
 * free port (with an IPC channel when `ipc`), and resolves once `GET /healthz` answers
 * 200; its stderr is kept for the errors it may explain.
 */
export async function spawnService (
  imports: readonly string[], env: Record<string, string>, timeoutMs: number, { ipc = false } = {}
): Promise<{ url: string, child: ChildProcess, stderr: () => string }> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  // The service as production runs it (`npm start`: the compiled dist/main.js); a probe to import needs tsx.
  const entry = imports.length === 0 ? [built()] : ['--import', 'tsx', ...imports.flatMap((file) => ['--import', file]), 'src/main.ts']
  const [command, args] = pinned('server', process.execPath, entry)
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ipc ? ['ignore', 'ignore', 'pipe', 'ipc'] : ['ignore', 'ignore', 'pipe']
  })
  let stderr = ''
  child.stderr?.on('data', (chunk) => { stderr += String(chunk) })
  const deadline = Date.now() + timeoutMs
  while (!await fetch(`${url}/healthz`).then((res) => res.status === 200, () => false)) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}: ${stderr.trim()}`)
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`the service did not answer /healthz within ${timeoutMs} ms: ${stderr.trim()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { url, child, stderr: () => stderr }
}

let compiled: string | undefined

/** dist/main.js, compiled (`npm run build`: incremental) once per bench run. */
function built (): string {
  if (compiled === undefined) {
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' })
    if (tsc.status !== 0) throw new Error(`npm run build failed (exit ${String(tsc.status)})`)
    compiled = 'dist/main.js'
  }
  return compiled
}

/** SIGTERM, then SIGKILL after 10 s; resolves once the child has exited. */
export async function stopChild (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
  await exited
  clearTimeout(timer)
}
