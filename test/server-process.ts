/**
 * Starts the real server entry (src/main.ts, or its build) as a child process, for tests that
 * need real processes: restarts, several instances on one database, start-up errors;
 * and runs the `sourcepool` command as its users do.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { builtAndCurrent } from '../bin/dist-current.mjs'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/**
 * How a test starts the server entry: compiled (dist/main.js, what `npm start` runs) when
 * dist/ is a build of the current sources — `npm test` builds first — and src/main.ts through
 * tsx otherwise (a file run alone after a change), so a test never runs stale code. The
 * compiled start saves about a second of CPU per process, and the suite starts hundreds.
 */
export const SERVER_ENTRY: readonly string[] = builtAndCurrent() ? ['dist/main.js'] : ['--import', 'tsx', 'src/main.ts']

export interface ServerProcess {
  readonly url: string
  readonly child: ChildProcess
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>
}

/** Another user to run the server as (spawn's uid and gid; only root may). */
export interface RunAs {
  readonly uid: number
  readonly gid: number
}

/**
 * Runs `src/main.ts` with `env` (as `user`) and resolves with its exit code and stderr
 * (for start-up failures); one still running after `timeoutMs` (it started) is killed
 * and resolves with code null.
 */
export function runMain (env: Record<string, string>, user?: RunAs, timeoutMs = 30_000): Promise<{ code: number | null, stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...SERVER_ENTRY], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'], ...user })
    let stderr = ''
    child.stderr.on('data', (chunk) => { stderr += String(chunk) })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('exit', (code) => {
      clearTimeout(timer)
      resolve({ code, stderr })
    })
  })
}

/** A port that was free a moment ago (the OS picks it). */
export async function freePort (): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** Starts a server (as `user`) on a free port, or `env.PORT`, and resolves once `GET /healthz` answers 200. */
export async function startServer (env: Record<string, string>, timeoutMs = 20_000, user?: RunAs): Promise<ServerProcess> {
  const port = env.PORT !== undefined ? Number(env.PORT) : await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [...SERVER_ENTRY], {
    cwd: ROOT,
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    ...user
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => { stderr += String(chunk) })
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const deadline = Date.now() + timeoutMs
  while (true) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${stderr}`)
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`server did not answer /healthz within ${timeoutMs} ms: ${stderr}`)
    }
    const ready = await fetch(`${url}/healthz`).then((res) => res.status === 200, () => false)
    if (ready) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM')
      return await exited
    }
  }
}

/** A JSON request over real HTTP. */
export async function http (method: string, url: string, body?: unknown): Promise<{ status: number, body: any }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) }
}

/** Runs `sourcepool args…` (bin/sourcepool.mjs) in `cwd`; its exit code and output. */
export async function runSourcepool (cwd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('../bin/sourcepool.mjs', import.meta.url)), ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => { stdout += String(chunk) })
  child.stderr.on('data', (chunk) => { stderr += String(chunk) })
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  return { code, stdout, stderr }
}
