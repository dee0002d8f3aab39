/**
 * Runs the `sourcepool` command through `npx`, as the README does, for the tests of what
 * npx puts between a user and the command: its output as it comes, and `stop`, which sends
 * SIGTERM to npx alone (as a process manager or a closing terminal does) and waits until no
 * process it started is left. They are found by a mark in their environment, which every
 * descendant inherits whoever its parent becomes.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

export interface NpxProcess {
  readonly child: ChildProcess
  /** What it printed so far, stdout and stderr. */
  output: () => string
  /** The first match of `pattern` in its output, once it appears. */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
  /** The pids of the processes it started that are still there. */
  left: () => number[]
  /** SIGTERM to npx; resolves once none of its processes is left, else kills them and throws. */
  stop: (timeoutMs?: number) => Promise<void>
}

/** The pids whose environment holds `entry` (`NAME=value`). */
function marked (entry: string): number[] {
  const pids: number[] = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(entry)) pids.push(Number(name))
    } catch {}
  }
  return pids
}

const until = async (ready: () => boolean, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs
  while (!ready()) {
    if (Date.now() > deadline) return false
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return true
}

/** Starts `npx sourcepool args…` in the repository (or `cwd`) with `env` added. */
export function npxSourcepool (args: string[], env: Record<string, string> = {}, cwd = ROOT): NpxProcess {
  const mark = `SOURCEPOOL_TEST_MARK=${randomUUID()}`
  const child = spawn('npx', ['sourcepool', ...args], {
    cwd, env: { ...process.env, NO_COLOR: '1', ...env, SOURCEPOOL_TEST_MARK: mark.split('=')[1] }, stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', (chunk) => { output += String(chunk) })
  child.stderr.on('data', (chunk) => { output += String(chunk) })
  const left = () => marked(mark)
  return {
    child,
    output: () => output,
    left,
    waitFor: async (pattern, timeoutMs = 30_000) => {
      const found = await until(() => pattern.test(output) || child.exitCode !== null, timeoutMs)
      const match = pattern.exec(output)
      if (!found || match === null) throw new Error(`npx sourcepool ${args.join(' ')}: no ${String(pattern)} in its output:\n${output}`)
      return match
    },
    stop: async (timeoutMs = 15_000) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      if (await until(() => left().length === 0, timeoutMs)) return
      const pids = left()
      for (const pid of pids) {
        try { process.kill(pid, 'SIGKILL') } catch {}
      }
      throw new Error(`npx sourcepool ${args.join(' ')} left ${pids.length} process(es) behind after SIGTERM to npx: ${pids.join(', ')}`)
    }
  }
}
