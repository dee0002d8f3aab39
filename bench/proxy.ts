/**
 * The proxy benchmark (part `proxy` of `npm run bench`): one local upstream
 * answering a 1 KiB JSON body, loaded directly, through NGINX as a plain reverse
 * proxy (Debian package `nginx`; skipped when it is not installed), through
 * Fastify with @fastify/reply-from as a plain Node proxy, and through our proxy
 * with a 3-member pool whose members all point at that upstream.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { freePort, http, startServer } from '../test/server-process.js'
import { startScript } from './processes.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = 10
const SEQUENTIAL = 2000

/** NGINX with one worker in front of `upstream`, or undefined when nginx is not installed. */
async function startNginx (dir: string, upstream: string): Promise<{ url: string, stop: () => void } | undefined> {
  if (spawnSync('nginx', ['-v']).error !== undefined) return undefined
  const port = await freePort()
  const prefix = join(dir, 'nginx')
  mkdirSync(join(prefix, 'logs'), { recursive: true })
  const target = new URL(upstream)
  writeFileSync(join(prefix, 'nginx.conf'), `
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream backend { server ${target.host}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / { proxy_pass http://backend; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
`)
  const child = spawn('nginx', ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; i < 100; i++) {
    if (await fetch(`${url}/ready`).then((r) => r.ok, () => false)) return { url, stop: () => child.kill('SIGTERM') }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  child.kill('SIGKILL')
  throw new Error('nginx did not start')
}

/** Median latency of `SEQUENTIAL` GETs one after the other on one keep-alive connection, in ms. */
async function sequentialMedian (url: string): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < SEQUENTIAL; i++) {
    const started = performance.now()
    await new Promise<void>((resolve, reject) => {
      request(url, (res) => { res.resume(); res.on('end', resolve) }).on('error', reject).end()
    })
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return times[times.length >> 1] as number
}

interface Row { name: string, rps: number, p50: number, p99: number, median: number, errors: number }

async function measure (name: string, url: string): Promise<Row> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS })
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    median: await sequentialMedian(url),
    errors: result.errors + result.timeouts + result.non2xx
  }
}

/** Runs the proxy benchmark and prints its table. */
export async function measureProxy (dir: string): Promise<void> {
  const upstream = await startScript('bench/upstream-server.ts')
  const stops: Array<() => void | Promise<unknown>> = [upstream.stop]
  try {
    const nginx = await startNginx(dir, upstream.url)
    if (nginx !== undefined) stops.push(nginx.stop)
    const replyFrom = await startScript('bench/reply-from-server.ts', { UPSTREAM_URL: upstream.url })
    stops.push(replyFrom.stop)
    const service = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'proxy.db')}`, LOG_LEVEL: 'warn' })
    stops.push(service.stop)
    const pool = (await http('POST', `${service.url}/api/pools`, { name: 'proxied', category: 'bench' })).body.pool_id
    for (let m = 0; m < 3; m++) {
      const provider = (await http('POST', `${service.url}/api/providers`, { name: `upstream-${m}`, base_url: upstream.url })).body.provider_id
      await http('POST', `${service.url}/api/pools/${pool}/members`, { provider_id: provider })
    }

    const rows: Row[] = [await measure('upstream directly', `${upstream.url}/data`)]
    if (nginx !== undefined) rows.push(await measure('NGINX reverse proxy (1 worker, keepalive)', `${nginx.url}/data`))
    rows.push(await measure('@fastify/reply-from (plain Node proxy)', `${replyFrom.url}/data`))
    rows.push(await measure('sourcepool proxy, 3-member pool', `${service.url}/api/pools/${pool}/proxy/data`))

    const [direct] = rows
    const ours = rows[rows.length - 1] as Row
    const plain = rows.find((r) => r.name.startsWith('@fastify')) as Row
    const nginxRow = rows.find((r) => r.name.startsWith('NGINX'))
    console.log(`\nproxy: autocannon ${CONNECTIONS} connections, ${SECONDS} s each; median of ${SEQUENTIAL} sequential requests on one connection\n`)
    console.log('| path | requests/s | p50 ms | p99 ms | sequential median ms | errors |')
    console.log('|---|---:|---:|---:|---:|---:|')
    for (const row of rows) console.log(`| ${row.name} | ${Math.round(row.rps)} | ${row.p50} | ${row.p99} | ${row.median.toFixed(3)} | ${row.errors} |`)
    console.log(`\nours / plain Node proxy: ${(ours.rps / plain.rps * 100).toFixed(0)}% of requests/s` +
      (nginxRow === undefined ? ' (NGINX not installed: apt-get install nginx)' : `; ours / NGINX: ${(ours.rps / nginxRow.rps * 100).toFixed(0)}%`) +
      `; added median latency over direct: ${((ours.median - (direct as Row).median)).toFixed(3)} ms`)
  } finally {
    for (const stop of stops.reverse()) await stop()
  }
}
