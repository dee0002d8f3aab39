/**
 * The chunk store benchmark (part `chunks` of `npm run bench`): batch ingest of
 * 100,000 chunks of 384 dimensions into a SQLite file through the HTTP API, and
 * search latency over 200 random queries (top_k 10) at 10,000 and 100,000
 * chunks, next to a plain brute-force JavaScript loop over number[][] on the same
 * vectors in this process (the naive reference). BENCH_CHUNK_SIZES (e.g.
 * `20000`) changes the sizes measured, for a quicker run.
 */
import { join } from 'node:path'
import { request } from 'node:http'
import { seededRandom } from '../test/fixtures.js'
import { startServer } from '../test/server-process.js'

const DIM = 384
const BATCH = 1000
const QUERIES = 200
const TOP_K = 10
const SIZES = (process.env.BENCH_CHUNK_SIZES ?? '10000,100000').split(',').map((size) => Number(size))

/** POSTs a JSON text and resolves with status and body text. */
function post (url: string, body: string | Buffer): Promise<{ status: number, text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number

/** The naive reference: cosine by the textbook formula over every vector, then the top k. */
function naiveSearch (vectors: number[][], query: number[], k: number): number[] {
  const scores: Array<[number, number]> = []
  for (let r = 0; r < vectors.length; r++) {
    const v = vectors[r] as number[]
    let dot = 0
    let a = 0
    let b = 0
    for (let i = 0; i < v.length; i++) {
      dot += (query[i] as number) * (v[i] as number)
      a += (query[i] as number) * (query[i] as number)
      b += (v[i] as number) * (v[i] as number)
    }
    scores.push([dot / Math.sqrt(a * b), r])
  }
  scores.sort((x, y) => y[0] - x[0])
  return scores.slice(0, k).map(([, r]) => r)
}

/** Runs the chunk benchmark on a fresh SQLite file in `dir` and prints its table. */
export async function measureChunks (dir: string): Promise<void> {
  const next = seededRandom(384)
  const vectors: number[][] = []
  const service = await startServer({ DATABASE_URL: `sqlite:${join(dir, 'chunks.db')}`, LOG_LEVEL: 'warn', ADMIN_RATE_LIMIT: '1000000' })
  const rows: string[] = []
  try {
    const makeBatch = (start: number) => {
      const chunks = []
      for (let i = start; i < start + BATCH; i++) {
        const embedding = Array.from({ length: DIM }, () => next() * 2 - 1)
        vectors.push(embedding)
        chunks.push({
          chunk_id: `doc-${Math.floor(i / 20)}/${i % 20}`,
          content: `Chunk ${i} of a benchmark document about public spending.`,
          embedding,
          embedding_model: 'bench-384',
          embedding_dim: DIM,
          metadata: { parent_id: `doc-${Math.floor(i / 20)}`, source: 'bench', task: 'retrieval', sequence: i % 20, total_chunks: 20, content_type: 'text' }
        })
      }
      return JSON.stringify({ chunks })
    }

    let stored = 0
    let ingestMs = 0
    let bodyBytes = 0
    for (const size of SIZES) {
      // Bodies are built before the clock starts, so the load generator (which
      // shares the machine's two cores) does not slow the service down.
      const bodies: Buffer[] = []
      for (let start = stored; start < size; start += BATCH) bodies.push(Buffer.from(makeBatch(start)))
      const started = performance.now()
      for (const body of bodies) {
        const res = await post(`${service.url}/api/chunks/batch`, body)
        if (res.status !== 200) throw new Error(`batch ingest answered ${res.status}: ${res.text.slice(0, 300)}`)
        bodyBytes += body.length
        stored += BATCH
      }
      ingestMs += performance.now() - started

      const queries = Array.from({ length: QUERIES }, () => Array.from({ length: DIM }, () => next() * 2 - 1))
      const loadStarted = performance.now()
      const warm = await post(`${service.url}/api/chunks/search`, JSON.stringify({ embedding: queries[0], embedding_model: 'bench-384', top_k: TOP_K }))
      if (warm.status !== 200) throw new Error(`search answered ${warm.status}: ${warm.text.slice(0, 300)}`)
      const loadMs = performance.now() - loadStarted
      const latencies: number[] = []
      let agree = 0
      for (const [q, query] of queries.entries()) {
        const t0 = performance.now()
        const res = await post(`${service.url}/api/chunks/search`, JSON.stringify({ embedding: query, embedding_model: 'bench-384', top_k: TOP_K }))
        latencies.push(performance.now() - t0)
        if (q < 20) {
          const ours = (JSON.parse(res.text) as { results: Array<{ chunk_id: string }> }).results.map((r) => r.chunk_id)
          const naive = naiveSearch(vectors, query, TOP_K).map((r) => `doc-${Math.floor(r / 20)}/${r % 20}`)
          if (ours.join() === naive.join()) agree++
        }
      }
      const naiveLatencies: number[] = []
      for (const query of queries.slice(0, 30)) {
        const t0 = performance.now()
        naiveSearch(vectors, query, TOP_K)
        naiveLatencies.push(performance.now() - t0)
      }
      latencies.sort((a, b) => a - b)
      naiveLatencies.sort((a, b) => a - b)
      rows.push(`| search, ${size.toLocaleString('en')} chunks (HTTP, top_k ${TOP_K}) | ${percentile(latencies, 0.5).toFixed(1)} | ${percentile(latencies, 0.99).toFixed(1)} | ` +
        `${(percentile(naiveLatencies, 0.5) / percentile(latencies, 0.5)).toFixed(1)}x | first search (index load) ${loadMs.toFixed(0)} ms; same top ${TOP_K} as the naive loop in ${agree} of 20 |`)
      rows.push(`| naive loop over number[][], ${size.toLocaleString('en')} chunks (in-process, 30 queries) | ${percentile(naiveLatencies, 0.5).toFixed(1)} | ${percentile(naiveLatencies, 0.99).toFixed(1)} | 1.0x | |`)
    }
    console.log(`\nchunk store: ${DIM} dimensions, SQLite file, batches of ${BATCH}\n`)
    console.log(`batch ingest: ${stored.toLocaleString('en')} chunks in ${(ingestMs / 1000).toFixed(1)} s = ${Math.round(stored / (ingestMs / 1000)).toLocaleString('en')} chunks/s ` +
      `(${(bodyBytes / 1024 / 1024).toFixed(0)} MiB of JSON)\n`)
    console.log('| search | p50 ms | p99 ms | naive p50 / p50 | notes |')
    console.log('|---|---:|---:|---:|---|')
    for (const row of rows) console.log(row)
  } finally {
    await service.stop()
  }
}
