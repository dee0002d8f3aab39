/**
 * The cache store a process uses, from its configuration: Redis when CACHE_URL
 * names one (shared by every instance), else this process's memory; bounded by
 * CACHE_MAX_BYTES either way.
 */
import { createMemoryStore, type CacheStore } from './cache-store.js'
import { createRedisStore } from './redis-store.js'

/** A Redis store for a redis:// or rediss:// `url`, a memory store without one, each holding at most `maxBytes`; another scheme throws. */
export function createCacheStore (options: { url: string | undefined, maxBytes: number, keyPrefix?: string, now?: () => number, warn?: (m: string) => void }): CacheStore {
  const { url, maxBytes, keyPrefix, now, warn } = options
  if (url === undefined || url === '') return createMemoryStore({ maxBytes, now })
  if (!/^rediss?:\/\//i.test(url)) throw new Error('CACHE_URL must be a redis:// or rediss:// URL')
  return createRedisStore({ url, keyPrefix, now, warn, maxBytes })
}
