/**
 * The response cache in front of the proxy (proxy.service.ts), per pool, so a
 * provider's quota is spent once per answer rather than once per caller. For a pool
 * with `cache_ttl_seconds` > 0, a GET (or a HEAD, answered from a stored GET) is
 * looked up by its key (rules/cache-policy.ts: pool, path and query as sent,
 * Accept, Accept-Encoding, the client's credentials when the pool forwards them,
 * and the stored answer's Vary):
 *
 * - fresh → HIT, served from the store without choosing a member;
 * - expired but within `cache_stale_seconds` → STALE, served at once while one
 *   refresh runs in the background; a refresh that fails keeps the entry, so within
 *   that window failing or cooling members never turn into a 502/503;
 * - otherwise → MISS: one request per key goes upstream (the leader); identical
 *   requests arriving meanwhile wait for it and get the same stored answer (HIT,
 *   when its Vary matches theirs), or its failure. An answer that is not stored
 *   (private to its caller, too big for CACHE_MAX_ENTRY_BYTES or for the bytes all
 *   leaders may hold while reading, an event stream, slower than READ_DEADLINE_MS)
 *   goes to the leader's client alone, and the waiters go upstream each on their own.
 *
 * A request for a range or with a condition (If-None-Match…) passes through as
 * BYPASS: its answer is its own. An answer fetched before a purge is not stored
 * after it; with WORKERS and the memory store a purge empties every worker's
 * entries (cache/purge-relay.ts). The entry's Age counts from the provider's own Age.
 * A client's `Cache-Control: no-cache` fetches anew and stores the result (BYPASS);
 * answers that may not be stored, and other methods, are BYPASS. Hits spend no
 * quota, count no use and leave health alone; what the cache did is counted per
 * pool (written behind by the runtime's flush) and in Prometheus.
 *
 * The cache is three stages, each in its own file, that this file composes:
 * lookup (cache-lookup.ts: the key, HIT and STALE from the store, a HIT at once),
 * coalescing (coalesce.ts: one leader per key, its waiters, stale if error) and
 * fill (cache-fill.ts: the leader's request upstream, read and stored, purges);
 * what they hand each other is in cache-answer.ts.
 */
import type { CacheStore } from '../cache/cache-store.js'
import type { PurgeRelay } from '../cache/purge-relay.js'
import type { PoolRuntime } from '../runtime/pool-runtime.js'
import { wantsFresh } from '../rules/cache-policy.js'
import { CacheFill } from './cache-fill.js'
import { cacheOn, type AskedAtOnce, type CacheResult, type CachingPool, type ServedAnswer } from './cache-answer.js'
import { CacheLookup } from './cache-lookup.js'
import { Coalescing } from './coalesce.js'
import type { ProxyRequest } from './forward.js'
import type { ProxyService } from './proxy.service.js'
import { RpcCoalescing } from './rpc-coalesce.js'
import type { HeadTracker } from './rpc-heads.js'

export { cacheOn, type AskedAtOnce, type CacheResult, type CachingPool, type ServedAnswer } from './cache-answer.js'

/** What the cache counts per request, as Prometheus shows it. */
export interface CacheEvents {
  cacheResult: (poolId: number, result: CacheResult) => void
}

interface Deps {
  proxy: Pick<ProxyService, 'forward' | 'close'>
  runtime: Pick<PoolRuntime, 'pool' | 'cacheCounted'>
  store: CacheStore
  /** Largest body stored (CACHE_MAX_ENTRY_BYTES); bigger answers stream through unstored. */
  maxEntryBytes: number
  /** Bytes of answers all leaders may hold while reading them (CACHE_MAX_BYTES). */
  maxBytes: number
  now?: () => number
  events?: CacheEvents
  warn?: (error: unknown, message: string) => void
  /** With WORKERS and the memory store: purges reach every worker through the primary. */
  relay?: PurgeRelay
  /** The evm pools' heads (rpc-heads.ts): which answers are final; stopped with the cache. */
  heads?: HeadTracker
}

/** Counted per pool: a hit or stale answer spent no upstream call; a miss or a bypass did. */
function countedAs (result: CacheResult): 'hit' | 'miss' | 'stale' {
  return result === 'HIT' ? 'hit' : result === 'STALE' ? 'stale' : 'miss'
}

/** Builds the cache in front of `proxy`: its stages, lookup → coalescing → fill. */
export function createCachedProxy ({ proxy, runtime, store, maxEntryBytes, maxBytes, now = Date.now, events, warn = () => {}, relay, heads }: Deps) {
  function count (poolId: number, result: CacheResult): void {
    runtime.cacheCounted(poolId, countedAs(result))
    events?.cacheResult(poolId, result)
  }
  const fill = new CacheFill({ proxy, runtime, store, maxEntryBytes, maxBytes, now, warn })
  // A stale entry's refresh is the coalescing stage's, made just below.
  const lookup = new CacheLookup({ store, now, count, refresh: (ask) => { coalescing.refresh(ask) } })
  const coalescing = new Coalescing({ proxy, lookup, lead: async (ask, label, signal) => await fill.lead(ask, label, signal), count, now, warn })
  // An evm pool's coalescing and stored answers (pipeline.ts runs it; its entries are the store's, purged with the pool's).
  const rpc = new RpcCoalescing({ count, store, heads, now })
  const purgeHere = async (poolId: number): Promise<number> => await fill.purge(poolId)
  relay?.serve(purgeHere)

  return {
    rpc,

    /** Answers a proxied request of the pool, from the cache when it can (see the file's header). */
    async forward (poolId: number, incoming: ProxyRequest): Promise<ServedAnswer> {
      const pool = await runtime.pool(poolId)
      // No cache (or no such pool, or a pool switched off: the proxy answers the 404 or 503).
      if (pool === undefined || !cacheOn(pool)) return await proxy.forward(poolId, incoming)
      return await this.cached(pool, poolId, incoming)
    },

    /** The cache stage of a pool whose cache is on (`pool`: its row as the runtime keeps it): pipeline.ts calls it directly. */
    async cached (pool: CachingPool, poolId: number, incoming: ProxyRequest): Promise<ServedAnswer> {
      const ask = lookup.askOf(pool, poolId, incoming)
      if (ask === undefined) {
        const answer = await proxy.forward(poolId, incoming)
        count(poolId, 'BYPASS')
        return { ...answer, cache: 'BYPASS' }
      }
      const anew = wantsFresh(incoming.headers)
      const stored = anew ? undefined : await lookup.fromStore(ask)
      if (stored !== undefined) return stored
      return await coalescing.answer(ask, anew ? 'BYPASS' : 'MISS')
    },

    /** A fresh HIT answered at once (no await) when the store can tell without I/O (cache-lookup.ts); undefined for anything else, which `cached` takes. */
    hitNow: (pool: CachingPool, poolId: number, incoming: AskedAtOnce): ServedAnswer | undefined => lookup.hitNow(pool, poolId, incoming),

    /** True when the pool exists (as the runtime keeps it). */
    poolExists: async (poolId: number): Promise<boolean> => await runtime.pool(poolId) !== undefined,

    /** Empties the pool's entries, in every worker (WORKERS, the memory store); answers how many were removed in all. */
    purge: async (poolId: number): Promise<number> => relay === undefined ? await purgeHere(poolId) : await relay.purgeEverywhere(poolId),

    /** A sentence when the store cannot be used (Redis unreachable), else null. */
    problem: (): string | null => store.problem(),

    /** Ends the upstream connections and the store's. */
    close: async (): Promise<void> => { relay?.close(); heads?.close(); await proxy.close(); await store.close() }
  }
}

export type CachedProxy = ReturnType<typeof createCachedProxy>
