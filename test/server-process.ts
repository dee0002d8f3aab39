/**
 * Starts the real server entry (src/main.ts) as a child process, for tests that
 * need real processes: restarts, several instances on one database, start-up errors.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

export interface ServerProcess {
  readonly url: string
  readonly child: ChildProcess
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>
}

/** Runs `src/main.ts` with `env` and resolves with its exit code and stderr (for start-up failures). */
export function runMain (env: Record<string, string>): Promise<{ code: number | null, stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk) => { stderr += String(chunk) })
    child.on('exit', (code) => resolve({ code, stderr }))
  })
}

/** Starts a server on a free port and resolves once it listens. */
export function startServer (env: Record<string, string>, timeoutMs = 20_000): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`server did not start in time:\n${output}`)) }, timeoutMs)
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
    const onData = (chunk: Buffer) => {
      output += String(chunk)
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match?.[1] !== undefined) {
        clearTimeout(timer)
        child.stdout?.off('data', onData)
        child.stdout?.resume()
        resolve({
          url: match[1],
          child,
          stop: async () => {
            if (child.exitCode === null) child.kill('SIGTERM')
            return await exited
          }
        })
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk) => { output += String(chunk) })
    child.on('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${String(code)}:\n${output}`)) })
  })
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
