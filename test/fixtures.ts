/**
 * Small builders for test data, all through the HTTP API.
 */
import assert from 'node:assert/strict'
import type { TestApp } from './helpers.js'

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** Creates a provider and returns its id. */
export async function createProvider (t: TestApp, name: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.request({ method: 'POST', url: '/api/providers', payload: { name, ...extra } })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.provider_id
}

/** Creates a pool and returns its id. */
export async function createPool (t: TestApp, name: string, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.request({ method: 'POST', url: '/api/pools', payload: { name, category: 'market-data', ...extra } })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.pool_id
}

/** Adds a provider to a pool and returns the member id. */
export async function addMember (t: TestApp, poolId: number, providerId: number, extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/members`, payload: { provider_id: providerId, ...extra } })
  assert.equal(res.status, 200, JSON.stringify(res.body))
  return res.body.member_id
}

/** A pool with one member per name (providers created as needed); returns ids by name. */
export async function poolWithMembers (
  t: TestApp, poolName: string, members: Array<string | { name: string, weight?: number, priority?: number }>, poolExtra: Record<string, unknown> = {}
): Promise<{ poolId: number, providers: Record<string, number> }> {
  const poolId = await createPool(t, poolName, poolExtra)
  const providers: Record<string, number> = {}
  for (const m of members) {
    const spec = typeof m === 'string' ? { name: m } : m
    const { name, ...memberFields } = spec
    providers[name] = await createProvider(t, `${poolName}-${name}`)
    await addMember(t, poolId, providers[name] as number, memberFields)
  }
  return { poolId, providers }
}

/**
 * A pool (round robin unless `poolExtra` says otherwise) with one member per base URL, in
 * order: providers `<name>-<i>`, each with `providerExtra`; `ranked` gives the first the
 * highest priority (for `priority`). Returns the provider ids in that order.
 */
export async function poolOfUrls (
  t: TestApp, name: string, baseUrls: readonly string[], poolExtra: Record<string, unknown> = {}, providerExtra: Record<string, unknown> = {}, ranked = false
): Promise<{ poolId: number, providers: number[] }> {
  const poolId = await createPool(t, name, { rotation_strategy: 'round_robin', ...poolExtra })
  const providers: number[] = []
  for (const [i, baseUrl] of baseUrls.entries()) {
    const id = await createProvider(t, `${name}-${i}`, { base_url: baseUrl, ...providerExtra })
    await addMember(t, poolId, id, ranked ? { priority: baseUrls.length - i } : {})
    providers.push(id)
  }
  return { poolId, providers }
}

/** Rotates `n` times and returns the provider ids chosen. */
export async function rotateTimes (t: TestApp, poolId: number, n: number): Promise<number[]> {
  const chosen: number[] = []
  for (let i = 0; i < n; i++) {
    const res = await t.request({ method: 'POST', url: `/api/pools/${poolId}/rotate` })
    assert.equal(res.status, 200, JSON.stringify(res.body))
    chosen.push(res.body.provider_id)
  }
  return chosen
}

/** A valid record; `over` replaces top-level fields, `meta` metadata fields. */
export function chunk (id: string, over: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    chunk_id: id,
    content: `content of ${id}`,
    embedding: [0.5, -0.25, 1],
    embedding_model: 'mini',
    embedding_dim: 3,
    metadata: { parent_id: 'doc-1', source: 'portal', task: 'qa', sequence: 0, total_chunks: 3, content_type: 'text', ...meta },
    ...over
  }
}

/** A seeded generator of numbers in [0, 1), so a failure can be replayed. */
export function seededRandom (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A declared state file: two providers (portal-a's key from PORTAL_A_KEY) and a pool of both. */
export const DECLARED_FILE = `providers:
  - name: portal-a
    base_url: https://a.example
    auth_headers:
      x-api-key: \${PORTAL_A_KEY}
  - name: portal-b
    base_url: https://b.example
pools:
  - name: spending
    category: public-spending
    members:
      - provider: portal-a
      - provider: portal-b
`

/**
 * A declared state file with four problems, two kinds (issue 34): an unknown field, a
 * base_url that is not a URL and an unknown strategy (its shape), and a member naming
 * a provider neither the file declares nor any database holds (a reference).
 */
export const FOUR_PROBLEM_FILE = `providers:
  - name: portal-a
    base_url: portal-a.example
    colour: blue
pools:
  - name: spending
    category: public-spending
    rotation_strategy: fastest
    members:
      - provider: portal-a
      - provider: ghost
`

/** FOUR_PROBLEM_FILE's problems, each as `line: path: message`, in the order of the file. */
export const FOUR_PROBLEMS = [
  '3: providers[0].base_url: must be an http:// or https:// URL, without spaces',
  '4: providers[0].colour: is not a field this object has',
  '8: pools[0].rotation_strategy: must be one of "round_robin", "weighted", "priority", "least_used", "random", "least_latency", "least_outstanding", "consistent_hash"',
  "11: pools[0].members[1].provider: no provider 'ghost' is declared in this state"
]

/** The pools' stream settings by default, written out as docs/api.md states them (and migration 022 gives existing pools). */
export const DOCUMENTED_STREAM_DEFAULTS = {
  ws_ping_interval_ms: 30_000,
  ws_replay: 'first_second',
  ws_max_streams: 1000,
  ws_max_streams_per_client: 100,
  ws_max_message_bytes: 1_048_576,
  ws_send_buffer_bytes: 4_194_304,
  ws_idle_timeout_ms: 300_000
} as const
