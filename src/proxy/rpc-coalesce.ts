/**
 * An `evm` pool's coalescing and caching stage (issue 36 item 5): identical reads in
 * flight at once (the same method and params, rules/jsonrpc.ts canonicalParams, from
 * any clients and batches) share one upstream call, and each client gets the answer
 * with its own id. With the pool's cache on, an answer is stored in the pool's cache
 * store (memory or Redis, beside its HTTP answers, bounded and purged with them) for
 * as long as rules/evm-finality.ts says it cannot change: for good (a year, the
 * store's LRU evicting first) when final (`eth_chainId`, a block by hash, anything at
 * or below the pool's finalized block, which the head tracker knows: rpc-heads.ts),
 * for `cache_unfinalized_ms` when it may still change (0: shared, not stored), never
 * for an error or a null. The cache's TTL does not apply to them. A stored answer
 * keeps the result's JSON text alone, and each client's answer is written around it
 * with its own id. The leader's call runs apart from its client (a leader whose client
 * left still answers the others, within the pool's deadline). `x-sourcepool-cache`
 * says HIT to a call that shared another's answer or read a stored one, MISS to the
 * one that went upstream (counted with the pool's cache while it is on).
 */
import type { Readable } from 'node:stream'
import type { CachedAnswer, CacheStore } from '../cache/cache-store.js'
import { finalityOf } from '../rules/evm-finality.js'
import { isCoalescible } from '../rules/evm-methods.js'
import { canonicalParams } from '../rules/jsonrpc.js'
import { withoutDeadline } from '../rules/retry-policy.js'
import { cacheOn, type CachingPool, type ServedAnswer } from './cache-answer.js'
import { readBounded } from './body-read.js'
import { requestCopy, type ProxyRequest, type RpcCallInfo } from './forward.js'

type Run = (poolId: number, incoming: ProxyRequest) => Promise<ServedAnswer>

/** A provider's answer to one call, shareable: its head and its JSON object (the id replaced per client). */
interface Shared {
  readonly status: number
  readonly headers: Record<string, string | string[]>
  readonly answer: Record<string, unknown>
  readonly provider: string | null
  readonly providerId: number | undefined
  readonly attempts: number
}

/** Keys in flight at once, per process; past it a call goes upstream on its own. */
const MAX_IN_FLIGHT = 10_000
/** How long a final answer is stored: for good, in effect (the store's LRU evicts it first). */
const FINAL_MS = 365 * 24 * 3600 * 1000
/** Largest answer shared: it is parsed to give each client its id, and parsing megabytes would hold the event loop. */
const MAX_SHARED_BYTES = 1024 * 1024

/** What the stage uses besides the pool: the cache store, the pools' finalized blocks, the clock. */
interface Deps {
  /** `count`: what the stage did, counted with the pool's cache (only while its cache is on). */
  count?: (poolId: number, result: 'HIT' | 'MISS') => void
  store?: CacheStore
  heads?: { finalized: (poolId: number) => bigint | undefined, headOf: (providerId: number) => bigint | undefined }
  now?: () => number
}

export class RpcCoalescing {
  private readonly count: (poolId: number, result: 'HIT' | 'MISS') => void
  private readonly store: CacheStore | undefined
  private readonly heads: Deps['heads']
  private readonly now: () => number

  constructor (deps: Deps = {}) {
    this.count = deps.count ?? (() => {})
    this.store = deps.store
    this.heads = deps.heads
    this.now = deps.now ?? Date.now
  }

  private readonly inFlight = new Map<string, Promise<ServedAnswer | Shared>>()

  /** Answers an `evm` pool's single call: stored, shared with the same call in flight, or led upstream. */
  async answer (poolId: number, incoming: ProxyRequest, pool: SharingPool, run: Run): Promise<ServedAnswer> {
    const rpc = incoming.rpc
    const key = rpc === undefined || !isCoalescible(rpc.method) || pool.forward_client_auth === 1 ? undefined : keyOf(poolId, incoming, rpc)
    if (rpc === undefined || key === undefined) return await run(poolId, incoming)
    const caching = cacheOn(pool) && this.store !== undefined
    if (caching) {
      const store = this.store as CacheStore
      const stored = store.peek !== undefined ? store.peek(poolId, key) : await store.get(poolId, key)
      if (stored !== undefined && stored.freshUntil > this.now()) {
        this.count(poolId, 'HIT')
        return fromStore(stored, rpc)
      }
    }
    const running = this.inFlight.get(key)
    if (running !== undefined) {
      // Another call's answer is awaited: this call's batch sends its upstream batches without it (rpc-batch-group.ts).
      incoming.upstreamBatch?.leave()
      const led = await running
      // Not shareable (not a JSON-RPC answer, too big, a failure): this call goes upstream on its own.
      return 'kind' in led ? await run(poolId, incoming) : this.served(poolId, caching, led, rpc, 'HIT')
    }
    if (this.inFlight.size >= MAX_IN_FLIGHT) return await run(poolId, incoming)
    const leading = this.lead(poolId, incoming, run)
    this.inFlight.set(key, leading)
    try {
      const led = await leading
      if ('kind' in led) return led
      if (caching) this.keep(poolId, key, led, rpc, pool)
      return this.served(poolId, caching, led, rpc, 'MISS')
    } finally {
      this.inFlight.delete(key)
    }
  }

  /** Stores a result for as long as it cannot change (rules/evm-finality.ts); never an error or a null. */
  private keep (poolId: number, key: string, shared: Shared, rpc: RpcCallInfo, pool: SharingPool): void {
    const { result, error } = shared.answer
    if (error !== undefined && error !== null) return
    const answeredHead = shared.providerId === undefined ? undefined : this.heads?.headOf(shared.providerId)
    const finality = finalityOf(rpc.method, rpc.call.params, result, this.heads?.finalized(poolId), answeredHead)
    const ms = finality === 'final' ? FINAL_MS : finality === 'recent' ? pool.cache_unfinalized_ms : 0
    if (ms <= 0) return
    const now = this.now()
    const { 'content-length': _length, ...headers } = shared.headers
    const entry: CachedAnswer = { status: 200, headers, body: Buffer.from(JSON.stringify(result)), provider: shared.provider, storedAt: now, freshUntil: now + ms, staleUntil: now + ms, vary: null }
    // A store never fails a request: a write it cannot keep is dropped (and logged by the store).
    const store = this.store as CacheStore
    store.set(poolId, key, entry).catch(() => {})
  }

  private served (poolId: number, caching: boolean, shared: Shared, rpc: RpcCallInfo, cache: 'HIT' | 'MISS'): ServedAnswer {
    // The call that went upstream is counted by the cache stage in front of the attempts (a POST: BYPASS).
    if (caching && cache === 'HIT') this.count(poolId, cache)
    return served(shared, rpc, cache)
  }

  /** The call upstream, apart from its client; a provider's JSON answer made shareable, anything else as it is. */
  private async lead (poolId: number, incoming: ProxyRequest, run: Run): Promise<ServedAnswer | Shared> {
    // Apart from its client (no signal, never gone) and on the pool's own deadline: the answer is shared.
    const answer = await run(poolId, { ...requestCopy(incoming), headers: withoutDeadline(incoming.headers) })
    if (answer.kind !== 'answer' || answer.body === null || answer.status !== 200) return answer
    const body = Buffer.isBuffer(answer.body) ? answer.body : await readBounded(answer.body, MAX_SHARED_BYTES)
    if (!Buffer.isBuffer(body)) return { ...answer, body: body as Readable }
    let parsed: unknown
    try { parsed = JSON.parse(body.toString('utf8')) } catch { return { ...answer, body } }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ...answer, body }
    // What is the leader's own (a cookie, an answer private to it) is not shared.
    const { 'set-cookie': _cookie, ...headers } = answer.headers
    if (/private|no-store/i.test(String(headers['cache-control'] ?? ''))) return { ...answer, body }
    return { status: answer.status, headers, answer: parsed as Record<string, unknown>, provider: answer.provider, providerId: 'providerId' in answer ? answer.providerId : undefined, attempts: answer.attempts }
  }
}

/** What the stage reads of the pool's row. */
export type SharingPool = Pick<CachingPool, 'enabled' | 'cache_ttl_seconds' | 'forward_client_auth'> & { readonly cache_unfinalized_ms: number }

/**
 * The call's key: the pool, the path and query it was sent to, the method and its params
 * written canonically; undefined for params too deep to write (not shared).
 */
function keyOf (poolId: number, incoming: ProxyRequest, rpc: RpcCallInfo): string | undefined {
  const params = canonicalParams(rpc.call.params ?? [])
  return params === undefined ? undefined : `${poolId}\n${incoming.url}\n${rpc.method}\n${params}`
}

/** A shared answer as one client's: its own id, and what the stage did. */
function served (shared: Shared, rpc: RpcCallInfo, cache: 'HIT' | 'MISS'): ServedAnswer {
  const body = Buffer.from(JSON.stringify({ ...shared.answer, id: rpc.call.id ?? null }))
  const { 'content-length': _length, ...headers } = shared.headers
  return { kind: 'answer', status: shared.status, headers, body, provider: shared.provider, attempts: cache === 'MISS' ? shared.attempts : 0, cache }
}

const ANSWER_OPEN = Buffer.from('{"jsonrpc":"2.0","id":')
const ANSWER_RESULT = Buffer.from(',"result":')
const ANSWER_CLOSE = Buffer.from('}')

/** A stored result as one client's answer: written around the stored JSON text with the client's own id. */
function fromStore (stored: CachedAnswer, rpc: RpcCallInfo): ServedAnswer {
  const body = Buffer.concat([ANSWER_OPEN, Buffer.from(JSON.stringify(rpc.call.id ?? null)), ANSWER_RESULT, stored.body, ANSWER_CLOSE])
  return { kind: 'answer', status: 200, headers: stored.headers, body, provider: stored.provider, attempts: 0, cache: 'HIT' }
}
