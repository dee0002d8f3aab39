/**
 * Where the proxy's response cache keeps its answers: the contract every store
 * meets (memory here, Redis in redis-store.ts) and the in-memory store, an LRU
 * bounded by bytes. A store never fails a request: reads that cannot be served are
 * misses, writes that cannot be kept are dropped. Entries are grouped by pool so
 * that counting and purging one pool touches only that pool's entries.
 */
import { LRUCache } from 'lru-cache'

/** One stored answer, as the proxy replays it. */
export interface CachedAnswer {
  readonly status: number
  /** The answer's headers as sent to clients (hop-by-hop already removed), names lower-case. */
  readonly headers: Record<string, string | string[]>
  readonly body: Buffer
  /** The provider (name) whose answer this is. */
  readonly provider: string | null
  readonly storedAt: number // ms since epoch
  readonly freshUntil: number // ms since epoch
  readonly staleUntil: number // ms since epoch, >= freshUntil; the entry is dropped after it
  /** Request header values the answer's Vary names (lower-case name → value, '' when absent), or null without Vary. */
  readonly vary: Readonly<Record<string, string>> | null
}

export interface CacheStore {
  /** 'memory' or 'redis'. */
  readonly kind: 'memory' | 'redis'
  /** The entry under (poolId, key), or undefined (also when the store cannot be reached: never throws). */
  get (poolId: number, key: string): Promise<CachedAnswer | undefined>
  /** The entry when the store can tell at once, without I/O (the memory store); absent for Redis. */
  peek?: (poolId: number, key: string) => CachedAnswer | undefined
  /** Stores the entry until its staleUntil (never throws; a failure is logged once per outage). */
  set (poolId: number, key: string, entry: CachedAnswer): Promise<void>
  /** Removes every entry of the pool; answers how many were removed. May throw when Redis is unreachable (the admin route answers 503 then). */
  purge (poolId: number): Promise<number>
  /** How many live entries the pool has now (0 when unknown because unreachable; never throws). */
  entries (poolId: number): Promise<number>
  /** null when usable; otherwise a sentence for /healthz detail and logs. */
  problem (): string | null
  close (): Promise<void>
}

/** What an entry costs besides its body: the JavaScript objects, the key, the index. */
const ENTRY_OVERHEAD_BYTES = 256

/** An estimate of the memory `entry` holds under `key`: its body, headers and key, and a fixed overhead. */
export function entryBytes (key: string, entry: CachedAnswer): number {
  let bytes = ENTRY_OVERHEAD_BYTES + key.length + entry.body.length + (entry.provider?.length ?? 0)
  for (const [name, value] of Object.entries(entry.headers)) {
    for (const one of Array.isArray(value) ? value : [value]) bytes += name.length + one.length + 4
  }
  for (const [name, value] of Object.entries(entry.vary ?? {})) bytes += name.length + value.length + 4
  return bytes
}

interface Held {
  readonly poolId: number
  readonly entry: CachedAnswer
}

/**
 * The cache in this process's memory: at most `maxBytes` (entryBytes of every entry),
 * the least recently read or written entry evicted first; an entry is gone once
 * `now()` reaches its staleUntil. An entry bigger than `maxBytes` is not stored.
 */
export function createMemoryStore (options: { maxBytes: number, now?: () => number }): CacheStore {
  const now = options.now ?? Date.now
  /** The keys held for each pool, kept in step with the LRU by its dispose callback. */
  const byPool = new Map<number, Set<string>>()
  const lru = new LRUCache<string, Held>({
    maxSize: Math.max(1, Math.floor(options.maxBytes)),
    sizeCalculation: (held, key) => entryBytes(key, held.entry),
    dispose: (held, key) => {
      const keys = byPool.get(held.poolId)
      keys?.delete(key)
      if (keys?.size === 0) byPool.delete(held.poolId)
    }
  })
  const live = (held: Held | undefined): held is Held => held !== undefined && held.entry.staleUntil > now()
  /**
   * Per pool, the soonest an entry expires (until then every key held is live, so the
   * count is the set's size) and when its keys were last walked to drop the expired
   * ones (at most once a second: between two walks the count may hold a few expired).
   */
  const soonest = new Map<number, number>()
  const walked = new Map<number, number>()

  /** The live entry under (poolId, key), at once; an expired one is dropped. */
  function peek (poolId: number, key: string): CachedAnswer | undefined {
    const id = `${poolId}:${key}`
    const held = lru.get(id)
    if (live(held)) return held.entry
    if (held !== undefined) lru.delete(id)
    return undefined
  }

  return {
    kind: 'memory',
    get: async (poolId, key) => peek(poolId, key),
    peek,
    async set (poolId, key, entry) {
      const id = `${poolId}:${key}`
      if (entry.staleUntil <= now()) {
        lru.delete(id)
        return
      }
      lru.set(id, { poolId, entry })
      // lru-cache refuses (and drops any older entry under the key) an entry bigger than maxBytes.
      if (!lru.has(id)) return
      let keys = byPool.get(poolId)
      if (keys === undefined) byPool.set(poolId, keys = new Set())
      keys.add(id)
      soonest.set(poolId, Math.min(soonest.get(poolId) ?? Infinity, entry.staleUntil))
    },
    async purge (poolId) {
      let removed = 0
      for (const id of [...byPool.get(poolId) ?? []]) {
        if (live(lru.peek(id))) removed++
        lru.delete(id)
      }
      return removed
    },
    async entries (poolId) {
      const keys = byPool.get(poolId)
      if (keys === undefined) return 0
      const at = now()
      if (at < (soonest.get(poolId) ?? Infinity) || at - (walked.get(poolId) ?? -Infinity) < 1000) return keys.size
      walked.set(poolId, at)
      let next = Infinity
      for (const id of [...keys]) {
        const held = lru.peek(id)
        if (live(held)) next = Math.min(next, held.entry.staleUntil)
        else lru.delete(id)
      }
      soonest.set(poolId, next)
      return byPool.get(poolId)?.size ?? 0
    },
    problem: () => null,
    async close () {
      lru.clear()
      byPool.clear()
    }
  }
}
