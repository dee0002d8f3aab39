/**
 * The pool jobs of the target table (`reads` and `rotate`), on one service
 * seeded through its HTTP API: 1,000 providers whose base_url is the benchmark's
 * upstream, 100 pools × 10 members (weights 1–3) rotated 12 times each. A read's
 * limit is a bare Fastify process answering the very bytes the service gave for
 * it, from memory; rotate's limit is a bare POST route.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startScript } from './processes.js'
import { ratioRow, type RunLog, type TargetRow } from './target-table.js'

/** A JSON call that must succeed: anything but 2xx throws with the answer. */
export async function call (method: string, url: string, body?: unknown): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await res.text()
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 500)}`)
  return text === '' ? undefined : JSON.parse(text)
}

/** Seeds the service at `url` and resolves with the id of a 10-member pool. */
export async function seedPools (url: string, upstream: string): Promise<number> {
  const providers: number[] = []
  for (let i = 0; i < 1000; i++) {
    providers.push((await call('POST', `${url}/api/providers`, { name: `provider-${i}`, base_url: upstream })).provider_id)
  }
  const pools: number[] = []
  for (let p = 0; p < 100; p++) {
    const pool = (await call('POST', `${url}/api/pools`, { name: `pool-${p}`, category: 'market-data' })).pool_id
    pools.push(pool)
    for (let m = 0; m < 10; m++) await call('POST', `${url}/api/pools/${pool}/members`, { provider_id: providers[p * 10 + m], weight: 1 + (m % 3) })
    for (let r = 0; r < 12; r++) await call('POST', `${url}/api/pools/${pool}/rotate`)
  }
  return pools[0] as number
}

/** The service's answer to one GET: its bytes and content type. */
async function fetchBytes (url: string): Promise<{ body: Buffer, contentType: string }> {
  const res = await fetch(url)
  const body = Buffer.from(await res.arrayBuffer())
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${body.toString().slice(0, 500)}`)
  return { body, contentType: res.headers.get('content-type') ?? 'application/json' }
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(bytes < 10_000 ? 1 : 0)} KB`

/**
 * One read against the same bytes from memory: the limit's run right before the
 * service's, so a drift of the machine's speed hits both alike.
 */
async function measureRead (log: RunLog, dir: string, job: string, url: string): Promise<TargetRow> {
  const { body, contentType } = await fetchBytes(url)
  const file = join(dir, `bytes-${log.runs.length}.json`)
  writeFileSync(file, body)
  const limit = await startScript('bench/same-bytes-server.ts', { BODY_FILE: file, CONTENT_TYPE: contentType }, 'server')
  try {
    const served = await fetchBytes(`${limit.url}/same-bytes`)
    if (!served.body.equals(body)) throw new Error('the same-bytes server answered other bytes than the service')
    const name = `${job} (${kb(body.length)})`
    const limitRun = await log.load(`the same ${kb(body.length)} from memory (bare Fastify)`, { url: `${limit.url}/same-bytes` })
    const ours = await log.load(`sourcepool ${name}`, { url })
    return ratioRow(name, ours, 'the same bytes from memory', limitRun, 0.5)
  } finally {
    await limit.stop()
  }
}

/** `GET /api/pools` and `GET /api/pools/{id}` against the same bytes from memory. */
export async function measureReads (log: RunLog, dir: string, service: string, pool: number): Promise<TargetRow[]> {
  return [
    await measureRead(log, dir, 'GET /api/pools, 100 pools × 10 members', `${service}/api/pools`),
    await measureRead(log, dir, 'GET /api/pools/{id}, 10 members', `${service}/api/pools/${pool}`)
  ]
}

/** `POST /api/pools/{id}/rotate` (10 members) against a bare POST route. */
export async function measureRotate (log: RunLog, service: string, pool: number): Promise<TargetRow[]> {
  const bare = await startScript('bench/bare-server.ts', {}, 'server')
  try {
    await call('POST', `${bare.url}/bare`)
    await call('POST', `${service}/api/pools/${pool}/rotate`)
    const limit = await log.load('bare Fastify POST route', { url: `${bare.url}/bare`, method: 'POST' })
    const ours = await log.load('sourcepool POST /api/pools/{id}/rotate', { url: `${service}/api/pools/${pool}/rotate`, method: 'POST' })
    return [ratioRow('POST /api/pools/{id}/rotate, 10 members', ours, 'a bare POST route', limit, 0.25)]
  } finally {
    await bare.stop()
  }
}
