/**
 * What the cache's stages (cache-lookup.ts, coalesce.ts, cache-fill.ts; composed
 * by cached-proxy.ts) hand each other: the answers they serve, the request as they
 * see it (`Ask`), the pool's row as they read it, the leader's outcome shared with
 * its waiters, and the two helpers they all use (the answer a stored entry gives,
 * a wait bounded by time and a signal). It imports no stage, so none imports another.
 */
import type { CachedAnswer } from '../cache/cache-store.js'
import { answerHead, type AnswerHead } from './answer-head.js'
import type { ProxyRequest } from './forward.js'
import type { ProxyAnswer } from './proxy.service.js'

/** What the cache did for one proxied request, as `x-sourcepool-cache` says it. */
export type CacheResult = 'HIT' | 'MISS' | 'STALE' | 'BYPASS'

/** A proxied answer, with what the cache did (absent for a pool without a cache) and the Age of a stored one. */
export type ServedAnswer = (ProxyAnswer | StoredAnswer) & { readonly cache?: CacheResult, readonly age?: number }

/** An answer served from memory: its body is a Buffer (null for HEAD). */
export interface StoredAnswer {
  readonly kind: 'answer'
  readonly status: number
  readonly headers: Record<string, string | string[]>
  readonly body: Buffer | null
  readonly provider: string | null
  readonly attempts: number
  /** A failing attempt's own answer, back because the retry budget was spent (never stored). */
  readonly retryBudget?: 'exhausted'
  /** A stored entry's head, built once (answer-head.ts): reply.ts sends it as it is. */
  readonly head?: AnswerHead
}

/** What a HIT answered at once reads of its request. */
export type AskedAtOnce = Pick<ProxyRequest, 'method' | 'url' | 'headers'>

/** What the cache stage reads of its pool's row. */
export interface CachingPool {
  readonly enabled: number
  readonly cache_ttl_seconds: number
  readonly cache_stale_seconds: number
  readonly deadline_ms: number
  readonly max_wait_ms: number
  readonly forward_client_auth: number
}

/** True when the pool's cache is on: a TTL, and the pool enabled (a pool switched off answers 503 from the proxy). */
export function cacheOn (pool: Pick<CachingPool, 'enabled' | 'cache_ttl_seconds'>): boolean {
  return pool.cache_ttl_seconds > 0 && pool.enabled === 1
}

/** One cacheable request as the cache's stages see it: its pool, key and own deadline. */
export interface Ask {
  readonly pool: CachingPool
  readonly poolId: number
  readonly incoming: ProxyRequest
  readonly key: string
  /** `${poolId}:${key}`: its flight's name. */
  readonly id: string
  readonly deadline: { readonly ms: number, readonly shortened: boolean }
  readonly started: number
}

/** Counts what the cache did for one request of the pool. */
export type CountCache = (poolId: number, result: CacheResult) => void

/**
 * Each entry's head, built at its first answer (answer-head.ts): the memory store hands
 * back the same entry object for as long as it holds it, so its HITs build none; an
 * entry read from Redis is a new object, whose head serves that read.
 */
const heads = new WeakMap<CachedAnswer, AnswerHead>()

/** The answer a stored entry gives a request: its status, headers (less the service's own, with its exact Content-Length) and body exactly (none for HEAD). */
export function fromEntry (entry: CachedAnswer, method: string, attempts: number): StoredAnswer {
  let head = heads.get(entry)
  if (head === undefined) heads.set(entry, head = answerHead(entry.headers, entry.status, entry.body, entry.provider))
  return { kind: 'answer', status: entry.status, headers: head.headers, body: method === 'HEAD' ? null : entry.body, provider: entry.provider, attempts, head }
}

/** What the leader of a key shares with the requests waiting for it. */
export type Shared =
  | { readonly kind: 'stored', readonly entry: CachedAnswer }
  | { readonly kind: 'failed', readonly answer: Exclude<ProxyAnswer, { kind: 'answer' }> }
  /** The provider's own failing answer, read whole, that ended the leader's request with the retry budget spent: every waiter gets it, nothing stores it. */
  | { readonly kind: 'exhausted', readonly answer: StoredAnswer & { readonly body: Buffer } }
  /** The answer was not stored (private to its caller, too big, too slow, an event stream): each waiter goes upstream on its own. */
  | { readonly kind: 'alone' }

/** The leader's outcome: what it shares, and its own client's answer. */
export interface Led {
  readonly shared: Shared
  readonly own: ServedAnswer
}

/** Leads the key's request upstream under `signal` (cache-fill.ts): MISS, or BYPASS when its client asked anew. */
export type Lead = (ask: Ask, label: 'MISS' | 'BYPASS', signal: AbortSignal) => Promise<Led>

/** `pending`'s value, or undefined once `limitMs` pass (never when Infinity) or `signal` aborts first. */
export async function within<T> (pending: Promise<T>, limitMs: number, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal?.aborted === true) return undefined
  let timer: NodeJS.Timeout | undefined
  let stop: (() => void) | undefined
  const given = new Promise<undefined>((resolve) => {
    stop = () => { resolve(undefined) }
    if (Number.isFinite(limitMs)) timer = setTimeout(stop, Math.max(0, limitMs))
    signal?.addEventListener('abort', stop, { once: true })
  })
  try {
    return await Promise.race([pending, given])
  } finally {
    clearTimeout(timer)
    if (stop !== undefined) signal?.removeEventListener('abort', stop)
  }
}
