/**
 * The work of the `event-loop` part of the bench, over plain HTTP: declared
 * states that seed pools fast (applies under the 1 MiB body limit), rotations
 * for history, and the four scenarios of issue #26 — a large apply, a storm of
 * clients resuming the event stream from the start, the largest chunk batch the
 * API accepts, and the full pool list after a write (once, then ten at once).
 */
import { request } from 'node:http'
import { BATCH_BODY_LIMIT, MAX_BATCH, MAX_DIM } from '../src/chunks/chunk.schemas.js'
import { seededRandom } from '../test/fixtures.js'

/** One answer: status, size, time, and its text when asked for. */
export interface Answer { readonly status: number, readonly bytes: number, readonly ms: number, readonly text: string }

/**
 * Sends one request on its own connection; the body is kept as text only when
 * `keep` (large answers are only counted).
 */
export function send (method: string, url: string, body?: string | Buffer, headers: Record<string, string> = {}, keep = true): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const all = body === undefined ? headers : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers }
    const req = request(url, { method, headers: all, agent: false }, (res) => {
      const parts: Buffer[] = []
      let bytes = 0
      res.on('data', (part: Buffer) => {
        bytes += part.length
        if (keep) parts.push(part)
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - started, text: Buffer.concat(parts).toString() }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** A JSON call that must succeed (2xx): its parsed answer. */
export async function call (method: string, url: string, body?: unknown): Promise<any> {
  const answer = await send(method, url, body === undefined ? undefined : JSON.stringify(body))
  if (answer.status < 200 || answer.status > 299) throw new Error(`${method} ${url} answered ${answer.status}: ${answer.text.slice(0, 500)}`)
  return answer.text === '' ? undefined : JSON.parse(answer.text)
}

/** Providers of the seeded states: their names. */
const providerName = (i: number) => `v${i}`
const poolName = (i: number) => `p${i}`

/** `count` providers, by name only. */
const providers = (count: number) => Array.from({ length: count }, (_, i) => ({ name: providerName(i) }))

/** Pools `from` to `to` (excluded), each with `members` of the `providerCount` providers, spread over them. */
function pools (from: number, to: number, members: number, providerCount: number) {
  const spread = Math.floor(providerCount / members)
  return Array.from({ length: to - from }, (_, k) => {
    const p = from + k
    return {
      name: poolName(p),
      category: 'bench',
      members: Array.from({ length: members }, (_, m) => ({ provider: providerName((p + m * spread) % providerCount) }))
    }
  })
}

/** A declared state: `providerCount` providers, pools `from` to `to` (excluded) of `members` each. */
export function createState (from: number, to: number, members: number, providerCount: number): string {
  return JSON.stringify({ providers: providers(providerCount), pools: pools(from, to, members, providerCount) })
}

/**
 * Pools per seeding apply to begin with: 3,000 pools of 10 members with 1,000
 * providers make about 0.8 MB of JSON, under the 1 MiB body limit. An apply
 * refused for its size (413, or a 422 about it) is split in halves.
 */
const SEED_APPLY_POOLS = 3000

/**
 * Makes pools `from` to `to` exist with `members` members each over `providerCount`
 * providers, through applies that each fit the service's limits.
 */
export async function seedPools (url: string, from: number, to: number, members: number, providerCount: number): Promise<void> {
  let size = SEED_APPLY_POOLS
  for (let start = from; start < to;) {
    const end = Math.min(to, start + size)
    process.stderr.write(`bench: event-loop: seeding pools ${start}–${end - 1} (${members} members each) by one apply\n`)
    const answer = await send('POST', `${url}/api/config/apply`, createState(start, end, members, providerCount))
    if ((answer.status === 413 || answer.status === 422) && end - start > 100) {
      size = Math.ceil((end - start) / 2)
      continue
    }
    if (answer.status !== 200) throw new Error(`a seeding apply answered ${answer.status}: ${answer.text.slice(0, 500)}`)
    start = end
  }
}

/** The pools' ids, from the summary list. */
export async function poolIds (url: string): Promise<number[]> {
  const list = await call('GET', `${url}/api/pools?fields=summary`)
  const rows: Array<{ pool_id: number }> = Array.isArray(list) ? list : list.pools
  return rows.map((row) => row.pool_id)
}

/** `count` rotations spread over `ids`, `concurrency` at a time (each one history record: round robin moves on). */
export async function rotate (url: string, ids: number[], count: number, concurrency = 8): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) {
      const i = next++
      await call('POST', `${url}/api/pools/${ids[i % ids.length] as number}/rotate`)
    }
  }))
}

/** (a) One apply that updates `count` existing pools (one field each: a pool update and its audit record per pool). */
export function updateState (count: number, description: string): string {
  return JSON.stringify({ pools: Array.from({ length: count }, (_, p) => ({ name: poolName(p), category: 'bench', description })) })
}

/** What the apply scenario saw: status, time, the answer (read after the window: parsing it holds the bench's own loop). */
export interface ApplyFigures { readonly status: number, readonly ms: number, readonly bodyBytes: number, readonly text: string }

export async function applyState (url: string, body: string): Promise<ApplyFigures> {
  const answer = await send('POST', `${url}/api/config/apply`, body)
  return { status: answer.status, ms: answer.ms, bodyBytes: Buffer.byteLength(body), text: answer.text }
}

/** The plan's summary of an applied state; zeros, and the answer's start, for a refused one. */
export function applied (figures: ApplyFigures): { creates: number, updates: number, refusal: string } {
  if (figures.status !== 200) {
    const refusal = figures.text.slice(0, 160)
    process.stderr.write(`bench: event-loop: the apply answered ${figures.status}: ${refusal}\n`)
    return { creates: 0, updates: 0, refusal }
  }
  const { summary } = JSON.parse(figures.text) as { summary: { create: number, update: number } }
  return { creates: summary.create, updates: summary.update, refusal: '' }
}

/** What one stream client saw: status, time to its first bytes, bytes read, events read. */
export interface StreamFigures { readonly status: number, readonly firstByteMs: number, readonly bytes: number, readonly events: number, readonly ms: number }

/** A reader of the whole replay gives up after this long without its first event. */
const FIRST_EVENT_LIMIT_MS = 30_000

/**
 * Opens `GET /api/events` resuming from `lastEventId`; leaves at its first bytes
 * when `leaveAtFirstBytes`, else reads until the stream ends (a replay cut in
 * pieces ends with `retry: 0`) or, once events came, `quietMs` pass without any.
 */
export function resume (url: string, lastEventId: string, leaveAtFirstBytes: boolean, quietMs = 1000): Promise<StreamFigures> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    let firstByteMs = -1
    let bytes = 0
    let events = 0
    let status = 0
    let quiet: NodeJS.Timeout | undefined
    const req = request(`${url}/api/events`, { headers: { 'last-event-id': lastEventId }, agent: false }, (res) => {
      status = res.statusCode ?? 0
      const done = () => {
        clearTimeout(quiet)
        resolve({ status, firstByteMs, bytes, events, ms: performance.now() - started })
        req.destroy()
      }
      // Until the first event, the replay may still be read from storage.
      quiet = setTimeout(done, FIRST_EVENT_LIMIT_MS)
      res.on('data', (part: Buffer) => {
        if (firstByteMs < 0) firstByteMs = performance.now() - started
        bytes += part.length
        // Each event has one `\nevent: ` line (the first block is `retry:`).
        for (let at = part.indexOf('\nevent: '); at !== -1; at = part.indexOf('\nevent: ', at + 1)) events++
        if (leaveAtFirstBytes) return done()
        if (events > 0) {
          clearTimeout(quiet)
          quiet = setTimeout(done, quietMs)
        }
      })
      res.on('end', done)
      res.on('error', done)
    })
    req.on('error', (error) => { if (status === 0) reject(error) })
    req.end()
  })
}

/** (b) `clients` streams resuming from the start at once, each leaving at its first bytes. */
export async function resumeStorm (url: string, clients: number): Promise<StreamFigures[]> {
  return await Promise.all(Array.from({ length: clients }, async () => await resume(url, '0-0', true)))
}

/** The largest chunk batch the API accepts: MAX_BATCH records of MAX_DIM dimensions within the body limit. */
export interface ChunkBatch { readonly body: Buffer, readonly records: number, readonly dim: number }

/**
 * MAX_BATCH records of MAX_DIM dimensions, each number written in 3 characters
 * (`0.1`…`0.9`), so the body stays within BATCH_BODY_LIMIT: more records, more
 * dimensions or more bytes are refused (422 or 413).
 */
export function largestChunkBatch (): ChunkBatch {
  const next = seededRandom(26)
  const digits = ['0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7', '0.8', '0.9']
  const records: string[] = []
  for (let i = 0; i < MAX_BATCH; i++) {
    const embedding = Array.from({ length: MAX_DIM }, () => digits[Math.floor(next() * digits.length)]).join(',')
    const metadata = { parent_id: `doc-${Math.floor(i / 20)}`, source: 'bench', task: 'retrieval', sequence: i % 20, total_chunks: 20, content_type: 'text' }
    records.push(`{"chunk_id":"big-${i}","content":"Chunk ${i} of the largest batch.","embedding":[${embedding}],` +
      `"embedding_model":"bench-${MAX_DIM}","embedding_dim":${MAX_DIM},"metadata":${JSON.stringify(metadata)}}`)
  }
  const body = Buffer.from(`{"chunks":[${records.join(',')}]}`)
  if (body.length > BATCH_BODY_LIMIT) throw new Error(`the batch is ${body.length} bytes, over the ${BATCH_BODY_LIMIT}-byte limit`)
  return { body, records: MAX_BATCH, dim: MAX_DIM }
}

/** What storing the batch took. */
export interface BatchFigures { readonly status: number, readonly ms: number }

/** (c) Stores `batch` in one request. */
export async function storeBatch (url: string, batch: ChunkBatch): Promise<BatchFigures> {
  const answer = await send('POST', `${url}/api/chunks/batch`, batch.body)
  if (answer.status !== 200) process.stderr.write(`bench: event-loop: the batch answered ${answer.status}: ${answer.text.slice(0, 300)}\n`)
  return { status: answer.status, ms: answer.ms }
}

/** What the list readers saw: each answer's status, bytes and time. */
export interface ListFigures { readonly answers: Answer[] }

/** (d) `clients` full pool lists at once, each on its own connection (bodies counted, not kept). */
export async function readLists (url: string, clients: number): Promise<ListFigures> {
  return { answers: await Promise.all(Array.from({ length: clients }, async () => await send('GET', `${url}/api/pools`, undefined, {}, false))) }
}
