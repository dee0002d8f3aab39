/**
 * The response cache in Redis, shared by every instance that names the same Redis.
 * A Redis that is down or slow must never fail or stall a request: commands are not
 * queued while disconnected and time out quickly, reads then miss and writes are
 * dropped, the client reconnects in the background, and an outage is logged once
 * (and once when it ends; redis-contact.ts tells one from a slow answer). An entry
 * that does not read back whole and valid (stored-answer.ts) is a miss, logged once
 * and removed. Each entry is one binary value that expires by TTL at its
 * staleUntil; each pool has an index (a sorted set of its keys scored by staleUntil)
 * so counting and purging a pool never scans the keyspace. What callers can make it
 * hold is bounded (CACHE_MAX_BYTES) across every instance sharing the key prefix:
 * a prefix-wide ledger of entries, their sizes and their total, kept by Lua scripts,
 * evicts the entries closest to expiry to make room.
 */
import { createHash } from 'node:crypto'
import { Redis, type RedisOptions } from 'ioredis'
import { maskText } from '../rules/secrets.js'
import type { CacheStore } from './cache-store.js'
import { watchRedisContact } from './redis-contact.js'
import { decodeAnswer, encodeAnswer } from './stored-answer.js'

/** A request's cache key as a short Redis name: its hex sha256 (a key may be as long as a URL). */
export function redisKeyName (request: string): string {
  return createHash('sha256').update(request).digest('hex')
}

/** What an entry `value` stored under `member` (`${poolId}:${key}`) counts against the bound: the value, the member named in four places (its key, its pool's index, the ledger's set and hash), and Redis' own structures (an estimate). */
export function redisEntryBytes (member: string, value: Buffer): number {
  return value.length + 4 * Buffer.byteLength(member) + 128
}

/** Evictions one set may make to find room; when these are not enough, the new entry is not stored. */
const MAX_EVICTIONS = 64

/**
 * Removes one entry (ARGV prefix, the ledger's KEYS, a member `${poolId}:${key}`) from
 * Redis, its pool's index and the ledger, subtracting its size; answers 1 when the
 * entry itself was still there.
 */
const DROP_FUNCTION = `
local function drop (prefix, ledger, sizes, member)
  local pool, key = string.match(member, '^(-?%d+):(.*)$')
  local removed = redis.call('DEL', prefix .. member)
  if pool then redis.call('ZREM', prefix .. 'index:' .. pool, key) end
  redis.call('ZREM', ledger, member)
  local bytes = tonumber(redis.call('HGET', sizes, member))
  if bytes then
    redis.call('HDEL', sizes, member)
    redis.call('HINCRBY', sizes, 'total', -bytes)
  end
  return removed
end
`

/**
 * Stores an entry, indexes it and keeps the prefix's bound, in one step. KEYS: the
 * entry, its pool's index, the ledger (a sorted set of members scored by staleUntil)
 * and its sizes (a hash: member → bytes, and 'total'). ARGV: the value, its TTL (ms),
 * its staleUntil, its key, now, the prefix, its member, its bytes, the bound. The
 * entry it replaces goes first, then (at most MAX_EVICTIONS of each) expired members,
 * then the members closest to expiry while the new entry would not fit; when it still
 * would not, nothing more is evicted and it is not stored (answers 0). The index and
 * the ledger live as long as their longest-lived entry.
 */
const SET_SCRIPT = DROP_FUNCTION + `
local prefix, member, bytes, bound = ARGV[6], ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9])
drop(prefix, KEYS[3], KEYS[4], member)
for _, old in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[5], 'LIMIT', 0, ${MAX_EVICTIONS})) do
  drop(prefix, KEYS[3], KEYS[4], old)
end
if redis.call('ZCARD', KEYS[3]) == 0 then redis.call('DEL', KEYS[4]) end
if bytes > bound then return 0 end
local total = tonumber(redis.call('HGET', KEYS[4], 'total')) or 0
if total + bytes > bound then
  local candidates = redis.call('ZRANGE', KEYS[3], 0, ${MAX_EVICTIONS - 1})
  local freed, count = 0, 0
  for i, candidate in ipairs(candidates) do
    if total - freed + bytes <= bound then break end
    freed = freed + (tonumber(redis.call('HGET', KEYS[4], candidate)) or 0)
    count = i
  end
  if total - freed + bytes > bound then return 0 end
  for i = 1, count do drop(prefix, KEYS[3], KEYS[4], candidates[i]) end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[3], member)
redis.call('HSET', KEYS[4], member, bytes)
redis.call('HINCRBY', KEYS[4], 'total', bytes)
for i = 2, 4 do
  if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
end
return 1
`

/**
 * Removes entries of one pool and their ledger records. KEYS: the pool's index, the
 * ledger, its sizes. ARGV: the prefix, the pool id, then the keys. Answers how many
 * entries were still there.
 */
const PURGE_SCRIPT = DROP_FUNCTION + `
local removed = 0
for i = 3, #ARGV do
  removed = removed + drop(ARGV[1], KEYS[2], KEYS[3], ARGV[2] .. ':' .. ARGV[i])
end
return removed
`

/**
 * Removes a damaged entry. KEYS: the entry, the ledger, its sizes. ARGV: the prefix,
 * its member, the sha1 of the value found damaged ('' when it was not a string). Only
 * that value goes: one stored meanwhile (by the request that missed, or another
 * instance) stays. Answers 1 when it removed it, 0 when it was gone or replaced.
 */
const DROP_DAMAGED_SCRIPT = DROP_FUNCTION + `
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'string' then
  if redis.sha1hex(redis.call('GET', KEYS[1])) ~= ARGV[3] then return 0 end
elseif kind == 'none' or ARGV[3] ~= '' then
  return 0
end
return drop(ARGV[1], KEYS[2], KEYS[3], ARGV[2])
`

/** Keys deleted per command by purge. */
const PURGE_BATCH = 500

/**
 * A store in the Redis at `url` (redis:// or rediss://), its keys
 * `${keyPrefix}${poolId}:${key}`, each pool's index `${keyPrefix}index:${poolId}` and
 * the ledger `${keyPrefix}bound:entries` and `${keyPrefix}bound:bytes`, which keeps the
 * entries' redisEntryBytes under `maxBytes` (64 MiB by default) for every store on this
 * prefix. A command waits `commandTimeoutMs` (250) at most; Redis is reported unreachable
 * when refused, or silent for `contactTimeoutMs` (3000). `warn` hears of each outage
 * once, and of its end, and of each damaged entry removed.
 */
export function createRedisStore (options: {
  url: string, keyPrefix?: string, now?: () => number, warn?: (message: string) => void, commandTimeoutMs?: number, contactTimeoutMs?: number, maxBytes?: number
}): CacheStore {
  const now = options.now ?? Date.now
  const maxBytes = Math.max(0, Math.floor(options.maxBytes ?? 64 * 1024 * 1024))
  const warn = options.warn ?? (() => {})
  const prefix = options.keyPrefix ?? 'sourcepool:cache:'
  const commandTimeoutMs = options.commandTimeoutMs ?? 250
  const clientOptions: RedisOptions & { disconnectTimeout: number } = {
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
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
  const contact = watchRedisContact(redis, { shownUrl: maskText(options.url), warn, commandTimeoutMs, contactTimeoutMs: options.contactTimeoutMs ?? 3000 })
  const entryKey = (poolId: number, key: string): string => `${prefix}${poolId}:${key}`
  const indexKey = (poolId: number): string => `${prefix}index:${poolId}`
  const ledgerKeys = [`${prefix}bound:entries`, `${prefix}bound:bytes`]

  /** `command`'s result, or `fallback` when Redis could not run it. */
  async function guarded<T> (command: () => Promise<T>, fallback: T): Promise<T> {
    try {
      const result = await command()
      contact.answered()
      return result
    } catch (error) {
      contact.failed(error)
      return fallback
    }
  }

  /** Removes the damaged `value` (null: not a string) of the entry, and says so once (whoever removes it). */
  async function dropDamaged (poolId: number, key: string, value: Buffer | null, why: string): Promise<void> {
    const sha1 = value === null ? '' : createHash('sha1').update(value).digest('hex')
    const removed = await guarded(async () => await redis.eval(DROP_DAMAGED_SCRIPT, 3, entryKey(poolId, key), ...ledgerKeys, prefix, `${poolId}:${key}`, sha1), 0)
    if (removed === 1) warn(`cache: removed a damaged entry of pool ${poolId} (key ${key}) from Redis: ${why}; served as a miss`)
  }

  return {
    kind: 'redis',
    async get (poolId, request) {
      const key = redisKeyName(request)
      let value: Buffer | null
      try {
        value = await redis.getBuffer(entryKey(poolId, key))
        contact.answered()
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('WRONGTYPE')) await dropDamaged(poolId, key, null, 'it is not a string value')
        else contact.failed(error)
        return undefined
      }
      if (value === null) return undefined
      const entry = decodeAnswer(value)
      if (typeof entry === 'string') {
        await dropDamaged(poolId, key, value, entry)
        return undefined
      }
      return entry !== undefined && entry.staleUntil > now() ? entry : undefined
    },
    async set (poolId, request, entry) {
      const key = redisKeyName(request)
      const at = now()
      const ttl = Math.ceil(entry.staleUntil - at)
      if (!(ttl > 0)) return
      const value = encodeAnswer(entry)
      const member = `${poolId}:${key}`
      await guarded(async () => {
        await redis.eval(SET_SCRIPT, 4, entryKey(poolId, key), indexKey(poolId), ...ledgerKeys,
          value, ttl, entry.staleUntil, key, at, prefix, member, redisEntryBytes(member, value), maxBytes)
      }, undefined)
    },
    async purge (poolId) {
      try {
        const members = await redis.zrange(indexKey(poolId), 0, '-1')
        let removed = 0
        for (let i = 0; i < members.length; i += PURGE_BATCH) {
          const batch = members.slice(i, i + PURGE_BATCH)
          removed += Number(await redis.eval(PURGE_SCRIPT, 3, indexKey(poolId), ...ledgerKeys, prefix, poolId, ...batch))
        }
        contact.answered()
        return removed
      } catch (error) {
        contact.failed(error)
        throw new Error(contact.problem() ?? `cache: Redis at ${maskText(options.url)} could not purge`, { cause: error })
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
    problem: () => contact.problem(),
    async close () {
      contact.close()
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
