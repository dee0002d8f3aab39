/**
 * NGINX (Debian package `nginx`) as a child process of a test or of the benchmark:
 * in the foreground (`daemon off`), every file it writes (pid, logs, temp paths)
 * under a directory of the caller's, listening where the caller's `http` block says.
 * It is killed when this process exits, whatever happened before.
 */
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'

/** The nginx binary: on the PATH, or where Debian puts it (/usr/sbin, not on every PATH). */
const NGINX = ['nginx', '/usr/sbin/nginx'].find((command) => spawnSync(command, ['-v']).error === undefined)

/** Whether nginx is installed. */
export const NGINX_INSTALLED = NGINX !== undefined

/** The version line of the installed nginx, e.g. `nginx/1.22.1`. */
export function nginxVersion (): string {
  return /nginx\/\S+/.exec(String(spawnSync(NGINX ?? 'nginx', ['-v']).stderr))?.[0] ?? 'nginx'
}

/** Why NGINX tests are skipped, or false when they run; in CI (where .ci/run installs it) a missing nginx fails. */
export function nginxSkip (): string | false {
  if (NGINX_INSTALLED) return false
  if (process.env.CI === 'true') throw new Error('no nginx on the PATH nor in /usr/sbin: .ci/run installs Debian\'s nginx package')
  return 'nginx is not installed (apt-get install nginx) to run the tests behind NGINX'
}

/** A running NGINX. */
export interface Nginx {
  /** The directory holding its configuration, logs (`logs/`) and temp files. */
  readonly prefix: string
  /** The master's process id (its workers are its children). */
  readonly pid: number
  /** SIGTERM (fast shutdown), SIGKILL after 5 s; resolves once it has exited. */
  stop(): Promise<void>
}

/**
 * Starts NGINX with `http` as its `http` block (a `listen` on 127.0.0.1:`port` in it)
 * and its files under `prefix`; resolves once `port` accepts connections. `wrap`
 * may prefix the command (the benchmark pins it to a CPU).
 */
export async function startNginx (
  prefix: string, http: string, port: number, wrap: (command: string, args: string[]) => [string, string[]] = (command, args) => [command, args], workers = 1
): Promise<Nginx> {
  mkdirSync(join(prefix, 'logs'), { recursive: true })
  // Workers run as nobody when the master is root: they must reach their temp paths.
  chmodSync(prefix, 0o755)
  const errorLog = join(prefix, 'logs', 'error.log')
  writeFileSync(join(prefix, 'nginx.conf'), `
worker_processes ${workers};
pid ${join(prefix, 'nginx.pid')};
error_log ${errorLog} warn;
events { worker_connections 1024; }
http {
  client_body_temp_path ${join(prefix, 'body')};
  proxy_temp_path ${join(prefix, 'proxy')};
  fastcgi_temp_path ${join(prefix, 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'uwsgi')};
  scgi_temp_path ${join(prefix, 'scgi')};
${http}
}
`)
  const [command, args] = wrap(NGINX ?? 'nginx', ['-p', prefix, '-e', errorLog, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'])
  const child = spawn(command, args, { stdio: 'ignore' })
  const kill = (): void => { child.kill('SIGKILL') }
  process.once('exit', kill)
  const exited = new Promise<void>((resolve) => child.once('exit', () => { resolve() }))
  const stop = async (): Promise<void> => {
    process.removeListener('exit', kill)
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(kill, 5000)
    await exited
    clearTimeout(timer)
  }
  for (let i = 0; i < 200 && child.exitCode === null; i++) {
    if (await accepts(port)) return { prefix, pid: child.pid as number, stop }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await stop()
  const log = (() => { try { return readFileSync(errorLog, 'utf8').trim() } catch { return '' } })()
  throw new Error(`nginx did not start: ${log || 'no error log'}`)
}

/** Whether 127.0.0.1:`port` accepts a connection. */
async function accepts (port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve(true) })
    socket.once('error', () => { resolve(false) })
  })
}
