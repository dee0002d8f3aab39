/**
 * NGINX as the reference reverse proxy of the proxy benchmark: one worker, in
 * the foreground (`daemon off`), keep-alive connections to the upstream, its
 * configuration, pid file and logs in a directory of the benchmark's own, and
 * pinned to the server's CPU. Debian package `nginx`; undefined when it is not
 * installed, so the caller can skip its row.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from '../test/server-process.js'
import { pinned } from './options.js'
import { stopChild, type Running } from './processes.js'

/** Whether an `nginx` binary is on the PATH. */
export const NGINX_INSTALLED = spawnSync('nginx', ['-v']).error === undefined

/** The version line of the installed nginx, e.g. `nginx/1.22.1`. */
export function nginxVersion (): string {
  return /nginx\/\S+/.exec(String(spawnSync('nginx', ['-v']).stderr))?.[0] ?? 'nginx'
}

/** Starts NGINX in front of `upstream` (an http://host:port URL), with its files under `dir`. */
export async function startNginx (dir: string, upstream: string): Promise<Running | undefined> {
  if (!NGINX_INSTALLED) return undefined
  const port = await freePort()
  const prefix = join(dir, 'nginx')
  mkdirSync(join(prefix, 'logs'), { recursive: true })
  const errorLog = join(prefix, 'logs', 'error.log')
  writeFileSync(join(prefix, 'nginx.conf'), `
worker_processes 1;
daemon off;
pid ${join(prefix, 'nginx.pid')};
error_log ${errorLog} warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(prefix, 'body')};
  proxy_temp_path ${join(prefix, 'proxy')};
  fastcgi_temp_path ${join(prefix, 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'uwsgi')};
  scgi_temp_path ${join(prefix, 'scgi')};
  upstream backend {
    server ${new URL(upstream).host};
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`)
  const [command, args] = pinned('server', 'nginx', ['-p', prefix, '-e', errorLog, '-c', join(prefix, 'nginx.conf')])
  const child = spawn(command, args, { stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 100 && child.exitCode === null; i++) {
    if (await fetch(`${url}/ready`).then((r) => r.ok, () => false)) return { url, stop: async () => { await stopChild(child) } }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await stopChild(child)
  const log = (() => { try { return readFileSync(errorLog, 'utf8').trim() } catch { return '' } })()
  throw new Error(`nginx did not start: ${log || 'no error log'}`)
}
