/**
 * NGINX as the reference reverse proxy of the proxy benchmark: one worker, in
 * the foreground (`daemon off`), keep-alive connections to the upstream, its
 * configuration, pid file and logs in a directory of the benchmark's own, and
 * pinned to the server's CPU. Debian package `nginx`, started as the tests start
 * it (test/nginx.ts); undefined when it is not installed, so the caller can skip its row.
 */
import { join } from 'node:path'
import { NGINX_INSTALLED, startNginx as runNginx } from '../test/nginx.js'
import { freePort } from '../test/server-process.js'
import { pinned } from './options.js'
import type { Running } from './processes.js'

export { NGINX_INSTALLED, nginxVersion } from '../test/nginx.js'

/**
 * Starts NGINX in front of `upstream` (an http://host:port URL), with its files under
 * `dir`: one worker pinned to the server's CPU, or `workers` of them, unpinned.
 */
export async function startNginx (dir: string, upstream: string, workers = 1): Promise<(Running & { readonly pid: number }) | undefined> {
  if (!NGINX_INSTALLED) return undefined
  const port = await freePort()
  const wrap = workers === 1 ? (command: string, args: string[]) => pinned('server', command, args) : undefined
  const nginx = await runNginx(join(dir, workers === 1 ? 'nginx' : `nginx-${workers}`), `
  access_log off;
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
  }`, port, wrap, workers)
  return { url: `http://127.0.0.1:${port}`, pid: nginx.pid, stop: nginx.stop }
}
