/**
 * The proxy job of the target table (`proxy`): the service's
 * `/api/pools/{id}/proxy/*` over a 3-member pool whose members all point at one
 * local upstream answering 1 KiB of JSON, beside the limits of the job, each run
 * just before it: the upstream directly, NGINX (one worker, upstream keep-alive;
 * skipped when not installed) and Fastify with @fastify/reply-from. Throughput
 * and p50/p99 come from 10 connections; the added latency from requests sent one
 * at a time on one connection, where no queue hides it.
 */
import { join } from 'node:path'
import { startNginx } from './nginx.js'
import { call } from './pool-jobs.js'
import { DURATION } from './options.js'
import { startScript, startService, type Running } from './processes.js'
import { latencyRow, ratioRow, skippedRow, type RunLog, type TargetRow } from './target-table.js'

export const PATH = '/data'

/** Seeds a 3-member pool on the service at `url` and checks that one proxied GET answers the upstream's 1 KiB. */
export async function seedProxyPool (url: string, upstream: string): Promise<number> {
  const pool = (await call('POST', `${url}/api/pools`, { name: 'proxied', category: 'bench' })).pool_id
  for (let m = 0; m < 3; m++) {
    const provider = (await call('POST', `${url}/api/providers`, { name: `upstream-${m}`, base_url: upstream })).provider_id
    await call('POST', `${url}/api/pools/${pool}/members`, { provider_id: provider })
  }
  const res = await fetch(`${url}/api/pools/${pool}/proxy${PATH}`)
  const body = await res.text()
  if (res.status !== 200 || body.length !== 1024) {
    throw new Error(`the service's proxy answered ${res.status} with ${body.length} bytes (expected 200 and the upstream's 1024): ${body.slice(0, 300)}`)
  }
  return pool
}

/** Runs the proxy job on a fresh service (SQLite file in `dir`) in front of `upstream`. */
export async function measureProxy (log: RunLog, dir: string, upstream: string): Promise<TargetRow[]> {
  const running: Running[] = []
  try {
    const service = await startService({ DATABASE_URL: `sqlite:${join(dir, 'proxy.db')}`, ADMIN_RATE_LIMIT: '1000000' })
    running.push(service)
    const pool = await seedProxyPool(service.url, upstream)
    let nginxFailure = 'nginx not installed (apt-get install nginx)'
    const nginx = await startNginx(dir, upstream).catch((error: Error) => { nginxFailure = error.message; return undefined })
    if (nginx !== undefined) running.push(nginx)
    const replyFrom = await startScript('bench/reply-from-server.ts', { UPSTREAM_URL: upstream }, 'server')
    running.push(replyFrom)
    // The direct runs go to a copy of the upstream on the server's CPU, so every row pays
    // the same hop between the load generator's CPU and the server's.
    const direct = await startScript('bench/upstream-server.ts', {}, 'server')
    running.push(direct)
    const ours = `${service.url}/api/pools/${pool}/proxy${PATH}`

    await log.load('upstream directly', { url: `${direct.url}${PATH}` })
    const nginxRun = nginx === undefined ? undefined : await log.load('NGINX (1 worker, upstream keepalive)', { url: `${nginx.url}${PATH}` })
    const replyFromRun = await log.load('Fastify + @fastify/reply-from', { url: `${replyFrom.url}${PATH}` })
    const oursRun = await log.load('sourcepool proxy, 3-member pool', { url: ours })

    const seconds = Math.max(2, Math.round(DURATION / 2))
    const directAlone = await log.sequential('upstream directly', `${direct.url}${PATH}`, seconds)
    if (nginx !== undefined) await log.sequential('NGINX (1 worker, upstream keepalive)', `${nginx.url}${PATH}`, seconds)
    await log.sequential('Fastify + @fastify/reply-from', `${replyFrom.url}${PATH}`, seconds)
    const oursAlone = await log.sequential('sourcepool proxy, 3-member pool', ours, seconds)

    const job = 'proxy `/api/pools/{id}/proxy/…`, 1 KiB answer, 3-member pool'
    return [
      ratioRow(job, oursRun, 'Fastify + @fastify/reply-from', replyFromRun, 0.9),
      nginxRun === undefined
        ? skippedRow(job, 'NGINX, 1 worker, upstream keepalive', '≥ 0.4', nginxFailure)
        : ratioRow(job, oursRun, 'NGINX, 1 worker, upstream keepalive', nginxRun, 0.4),
      latencyRow(`${job}: added median latency, one request at a time`, oursAlone.p50, 'upstream directly', directAlone.p50, 0.5, oursAlone.errors + directAlone.errors)
    ]
  } finally {
    for (const process of running.reverse()) await process.stop()
  }
}
