/**
 * Helper processes of the benchmark: a script run with Node (through tsx) that
 * prints `Server listening at <url>` once it serves.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** Starts `script` (a path from the project root) and resolves with its URL and a stop function. */
export async function startScript (script: string, env: Record<string, string> = {}): Promise<{ url: string, stop: () => void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}`)))
    child.stdout.on('data', (chunk) => {
      out += String(chunk)
      const match = /Server listening at (\S+)/.exec(out)
      if (match?.[1] !== undefined) resolve(match[1])
    })
  })
  return { url, stop: () => child.kill('SIGTERM') }
}
