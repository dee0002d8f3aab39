/**
 * The cache's first stage, lookup (cached-proxy.ts composes the stages; its header
 * says what the cache does): a cacheable request becomes an `Ask` (its key, by
 * rules/cache-policy.ts, and its own deadline), and a stored answer whose Vary
 * matches it is served: fresh as a HIT, or within its stale window as a STALE while
 * the coalescing stage (coalesce.ts) refreshes it in the background. A fresh HIT of
 * the memory store is answered at once, with no await (`hitNow`).
 */
import type { CachedAnswer, CacheStore } from '../cache/cache-store.js'
import { DomainError } from '../errors.js'
import { ageSeconds, asksForItsOwn, cacheKey, varyMatches, wantsFresh } from '../rules/cache-policy.js'
import { DEADLINE_HEADER, DEADLINE_HEADER_PROBLEM, requestDeadline } from '../rules/retry-policy.js'
import { assertSafePath } from '../rules/upstream-url.js'
import { fromEntry, type Ask, type AskedAtOnce, type CachingPool, type CountCache, type ServedAnswer } from './cache-answer.js'
import { proxiedPath, type ProxyRequest } from './forward.js'

/** True for a method the cache looks up (a HEAD is answered from a stored GET). */
const looksUp = (method: string): boolean => method === 'GET' || method === 'HEAD'

interface LookupDeps {
  readonly store: Pick<CacheStore, 'get' | 'peek'>
  readonly now: () => number
  readonly count: CountCache
  /** Starts one refresh of the key in the background, unless a request for it is in flight (coalesce.ts). */
  readonly refresh: (ask: Ask) => void
}

/** The lookup stage: its store, clock and counts; the refresh of a stale entry is the coalescing stage's. */
export class CacheLookup {
  constructor (private readonly deps: LookupDeps) {}

  /**
   * The request as the cache's next stages see it, or undefined when it passes
   * through (BYPASS: another method, or a range or a condition, which ask for an
   * answer of their own). Throws for an unsafe path or a malformed deadline header.
   */
  askOf (pool: CachingPool, poolId: number, incoming: ProxyRequest): Ask | undefined {
    if (!looksUp(incoming.method) || asksForItsOwn(incoming.headers)) return undefined
    const path = proxiedPath(incoming.url)
    assertSafePath(path)
    // The client's own deadline (x-sourcepool-deadline-ms) bounds its waits for a shared answer.
    const deadline = requestDeadline(pool.deadline_ms, incoming.headers[DEADLINE_HEADER])
    if (deadline === 'invalid') throw new DomainError(400, DEADLINE_HEADER_PROBLEM)
    const key = cacheKey(path, incoming.headers, pool.forward_client_auth === 1)
    return { pool, poolId, incoming, key, id: `${poolId}:${key}`, deadline, started: performance.now() }
  }

  /** A stored answer: fresh (HIT), or within its stale window (STALE, with one refresh in the background); undefined otherwise. */
  async fromStore (ask: Ask): Promise<ServedAnswer | undefined> {
    const { poolId, key, incoming } = ask
    const entry = await this.deps.store.get(poolId, key)
    if (entry === undefined || !varyMatches(entry.vary, incoming.headers)) return undefined
    const at = this.deps.now()
    if (at < entry.freshUntil) {
      return this.hit(poolId, entry, incoming.method, at)
    }
    if (at >= entry.staleUntil) return undefined
    // Stale while revalidating: served at once, one refresh in the background.
    this.deps.count(poolId, 'STALE')
    this.deps.refresh(ask)
    return { ...fromEntry(entry, incoming.method, 0), cache: 'STALE', age: ageSeconds(entry.storedAt, at) }
  }

  /**
   * A fresh HIT answered at once (no await) when the store can tell without I/O (the
   * memory store): the same checks as `askOf` and `fromStore`, in the same order;
   * undefined for anything else (a miss, stale, another method, a request that asks
   * anew, an entry whose Vary differs, a path or deadline header `askOf` refuses).
   */
  hitNow (pool: CachingPool, poolId: number, incoming: AskedAtOnce): ServedAnswer | undefined {
    const { store } = this.deps
    if (store.peek === undefined || !looksUp(incoming.method) || asksForItsOwn(incoming.headers) || wantsFresh(incoming.headers)) return undefined
    if (incoming.headers[DEADLINE_HEADER] !== undefined && requestDeadline(pool.deadline_ms, incoming.headers[DEADLINE_HEADER]) === 'invalid') return undefined
    let path: string
    try {
      path = proxiedPath(incoming.url)
      assertSafePath(path)
    } catch {
      return undefined
    }
    const key = cacheKey(path, incoming.headers, pool.forward_client_auth === 1)
    const entry = store.peek(poolId, key)
    if (entry === undefined || !varyMatches(entry.vary, incoming.headers)) return undefined
    const at = this.deps.now()
    if (at >= entry.freshUntil) return undefined
    return this.hit(poolId, entry, incoming.method, at)
  }

  /** An entry of the key still within its stale window, served in place of a failure (stale if error). */
  async staleInstead (poolId: number, key: string, incoming: ProxyRequest): Promise<ServedAnswer | undefined> {
    const stale = await this.deps.store.get(poolId, key)
    const at = this.deps.now()
    if (stale === undefined || at >= stale.staleUntil || !varyMatches(stale.vary, incoming.headers)) return undefined
    return { ...fromEntry(stale, incoming.method, 0), cache: 'STALE', age: ageSeconds(stale.storedAt, at) }
  }

  /** A fresh entry served as a HIT (counted), by the async path and the one at once alike. */
  private hit (poolId: number, entry: CachedAnswer, method: string, at: number): ServedAnswer {
    this.deps.count(poolId, 'HIT')
    return { ...fromEntry(entry, method, 0), cache: 'HIT', age: ageSeconds(entry.storedAt, at) }
  }
}
