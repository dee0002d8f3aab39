/**
 * Helper processes of the benchmark: a script run with Node (through tsx) that
 * prints `Server listening at <url>` once it serves, and the service itself (the
 * compiled `dist/main.js`, as `npm start` runs it; through tsx when a probe is
 * imported into it), each optionally pinned to a CPU (see options.ts). The service
 * may also run from another checkout (`root`, built there), for an A/B of two commits
 * in one run, with plain-JavaScript probes preloaded (`preload`) so it stays compiled.
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
export async function startScript (script: string, env: Record<string, string> = {}, cpu?: 'load' | 'server', nodeArgs: readonly string[] = []): Promise<Running> {
  const node: [string, string[]] = [process.execPath, ['--import', 'tsx', ...nodeArgs, script]]
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
  return { url, pid: child.pid, stop: async () => { await stopChild(child) } }
}

/** Where the compiled service comes from and what is loaded into it first. */
export interface ServiceSource {
  /** The checkout whose `dist/main.js` runs (built there first); this one by default. */
  readonly root?: string
  /** Node options before the entry, e.g. `['--import', '/abs/probe.mjs']` (plain JavaScript: no tsx in the service). */
  readonly preload?: readonly string[]
}

/**
 * Starts the service (`node dist/main.js`) with `env` on the server's
 * CPU, on a free port, and resolves once `GET /healthz` answers 200.
 */
export async function startService (env: Record<string, string>, timeoutMs = 30_000, source: ServiceSource = {}): Promise<Running> {
  const { url, child } = await spawnService([], env, timeoutMs, source)
  return { url, pid: child.pid, stop: async () => { await stopChild(child) } }
}

/**
 * Spawns `node dist/main.js` (or `node --import tsx [imports…] src/main.ts`) with `env` on the server's CPU, on a
 * free port (with an IPC channel when `ipc`), and resolves once `GET /healthz` answers
 * 200; its stderr is kept for the errors it may explain.
 */
export async function spawnService (
  imports: readonly string[], env: Record<string, string>, timeoutMs: number, { ipc = false, root = ROOT, preload = [] }: ServiceSource & { ipc?: boolean } = {}
): Promise<{ url: string, child: ChildProcess, stderr: () => string }> {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  // The service as production runs it (`npm start`: the compiled dist/main.js); a probe to import needs tsx.
  const entry = imports.length === 0 ? [...preload, built(root)] : ['--import', 'tsx', ...imports.flatMap((file) => ['--import', file]), 'src/main.ts']
  const [command, args] = pinned('server', process.execPath, entry)
  const child = spawn(command, args, {
    cwd: root,
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

const compiled = new Set<string>()

/** `root`'s dist/main.js (absolute), compiled there (`npm run build`: incremental) once per bench run. */
function built (root: string): string {
  if (!compiled.has(root)) {
    // That checkout's own TypeScript (its node_modules: a copy, or a link to this one's).
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' })
    if (tsc.status !== 0) throw new Error(`npm run build in ${root} failed (exit ${String(tsc.status)})`)
    compiled.add(root)
  }
  return join(root, 'dist/main.js')
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
