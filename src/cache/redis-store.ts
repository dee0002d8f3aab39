/**
 * The response cache in Redis, shared by every instance that names the same Redis.
 * A Redis that is down or slow must never fail or stall a request: commands are not
 * queued while disconnected and time out quickly, reads then miss and writes are
 * dropped, the client reconnects in the background, and the outage is logged once
 * (and once when it ends). Each entry is one binary value that expires by TTL at its
 * staleUntil; each pool has an index (a sorted set of its keys scored by staleUntil)
 * so counting and purging a pool never scans the keyspace.
 */
import { Redis, type RedisOptions } from 'ioredis'
import { maskText } from '../rules/secrets.js'
import type { CacheStore, CachedAnswer } from './cache-store.js'

/** The first byte of every stored value: the layout below. */
const FORMAT = 1

/** An entry as one value: FORMAT, the length of the JSON head (4 bytes, big-endian), the head, then the body bytes. */
export function encodeAnswer (entry: CachedAnswer): Buffer {
  const { status, headers, provider, storedAt, freshUntil, staleUntil, vary } = entry
  const head = Buffer.from(JSON.stringify({ status, headers, provider, storedAt, freshUntil, staleUntil, vary }))
  const prefix = Buffer.alloc(5)
  prefix[0] = FORMAT
  prefix.writeUInt32BE(head.length, 1)
  return Buffer.concat([prefix, head, entry.body])
}

/** The entry `value` holds, or undefined when it is not one (another layout, or damaged). */
export function decodeAnswer (value: Buffer): CachedAnswer | undefined {
  if (value.length < 5 || value[0] !== FORMAT) return undefined
  const headEnd = 5 + value.readUInt32BE(1)
  if (headEnd > value.length) return undefined
  try {
    const head = JSON.parse(value.subarray(5, headEnd).toString('utf8'))
    if (typeof head?.status !== 'number' || typeof head.staleUntil !== 'number') return undefined
    return { ...head, body: value.subarray(headEnd) }
  } catch {
    return undefined
  }
}

/**
 * Stores an entry and indexes it in one step. KEYS: the entry, the pool's index.
 * ARGV: the value, its TTL (ms), its staleUntil, its index member, now. Members
 * whose entries have expired leave the index; the index lives as long as its
 * longest-lived entry.
 */
const SET_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
`

/** Keys deleted per command by purge. */
const PURGE_BATCH = 500

/**
 * A store in the Redis at `url` (redis:// or rediss://), its keys
 * `${keyPrefix}${poolId}:${key}` and each pool's index `${keyPrefix}index:${poolId}`.
 * `warn` hears of each outage once, and of its end.
 */
export function createRedisStore (options: {
  url: string, keyPrefix?: string, now?: () => number, warn?: (message: string) => void, commandTimeoutMs?: number
}): CacheStore {
  const now = options.now ?? Date.now
  const warn = options.warn ?? (() => {})
  const prefix = options.keyPrefix ?? 'sourcepool:cache:'
  const shownUrl = maskText(options.url)
  const clientOptions: RedisOptions & { disconnectTimeout: number } = {
    enableOfflineQueue: false,
    commandTimeout: options.commandTimeoutMs ?? 250,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    // RESP2: nothing here needs RESP3, and servers before Redis 6 (or look-alikes without HELLO) refuse it.
    protocol: 2,
    // (Untyped ioredis option.) How long a closing socket may stay half-open; its timer, 2 s by default,
    // also holds a closed store's process open that long when the socket was already gone.
    disconnectTimeout: 200
  }
  const redis = new Redis(options.url, clientOptions)
  const entryKey = (poolId: number, key: string): string => `${prefix}${poolId}:${key}`
  const indexKey = (poolId: number): string => `${prefix}index:${poolId}`

  let problem: string | null = null
  /** The last connection error: why commands are refused while disconnected. */
  let connectionError: Error | undefined
  let everReady = false
  const failed = (error: unknown): void => {
    // Refused while the first connection is still being made: a miss, not an outage
    // (that connection succeeds, or fails within connectTimeout/commandTimeout with an error).
    if (!everReady && connectionError === undefined && redis.status !== 'ready') return
    // A command refused while disconnected says only that; the connection's own error says why.
    const cause = redis.status === 'ready' ? error : connectionError ?? new Error(`not connected (${redis.status})`)
    const reason = (cause as { code?: unknown })?.code ?? (cause instanceof Error ? cause.message : String(cause))
    const wasUsable = problem === null
    problem = `cache: Redis at ${shownUrl} unreachable: ${maskText(String(reason))}; serving without the cache`
    if (wasUsable) warn(problem)
  }
  const recovered = (): void => {
    everReady = true
    connectionError = undefined
    if (problem === null) return
    problem = null
    warn(`cache: Redis at ${shownUrl} answers again; serving with the cache`)
  }
  redis.on('error', (error: Error) => {
    connectionError = error
    failed(error)
  })
  redis.on('ready', recovered)

  /** `command`'s result, or `fallback` when Redis could not run it. */
  async function guarded<T> (command: () => Promise<T>, fallback: T): Promise<T> {
    try {
      const result = await command()
      recovered()
      return result
    } catch (error) {
      failed(error)
      return fallback
    }
  }

  return {
    kind: 'redis',
    async get (poolId, key) {
      const value = await guarded(async () => await redis.getBuffer(entryKey(poolId, key)), null)
      const entry = value === null ? undefined : decodeAnswer(value)
      return entry !== undefined && entry.staleUntil > now() ? entry : undefined
    },
    async set (poolId, key, entry) {
      const at = now()
      const ttl = Math.ceil(entry.staleUntil - at)
      if (!(ttl > 0)) return
      await guarded(async () => {
        await redis.eval(SET_SCRIPT, 2, entryKey(poolId, key), indexKey(poolId), encodeAnswer(entry), ttl, entry.staleUntil, key, at)
      }, undefined)
    },
    async purge (poolId) {
      try {
        const members = await redis.zrange(indexKey(poolId), 0, '-1')
        let removed = 0
        for (let i = 0; i < members.length; i += PURGE_BATCH) {
          const batch = members.slice(i, i + PURGE_BATCH)
          removed += await redis.del(...batch.map((member) => entryKey(poolId, member)))
          await redis.zrem(indexKey(poolId), ...batch)
        }
        recovered()
        return removed
      } catch (error) {
        failed(error)
        throw new Error(problem ?? `cache: Redis at ${shownUrl} could not purge`, { cause: error })
      }
    },
    async entries (poolId) {
      return await guarded(async () => {
        const index = indexKey(poolId)
        const results = await redis.multi().zremrangebyscore(index, '-inf', now()).zcard(index).exec()
        const [, count] = results?.[1] ?? []
        return typeof count === 'number' ? count : 0
      }, 0)
    },
    problem: () => problem,
    async close () {
      if (redis.status === 'ready') {
        try {
          await redis.quit()
          return
        } catch {}
      }
      redis.disconnect()
    }
  }
}
