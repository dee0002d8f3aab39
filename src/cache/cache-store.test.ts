/**
 * The cache stores' contract, run on memory and on a real Redis (TEST_REDIS_URL; its
 * keys under a prefix of this run, removed afterwards): exact round trips, expiry at
 * staleUntil, per-pool counts and purges; then what only one store does: LRU eviction
 * by bytes in memory; in Redis the same bound kept across every store on a prefix (the
 * entries closest to expiry evicted), TTLs, sharing between stores and outages, where an
 * unreachable or silent Redis makes misses and dropped writes, never a failure or a hang.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import net from 'node:net'
import { after, afterEach, before, describe, it } from 'node:test'
import { Redis } from 'ioredis'
import { setTimeout as sleep } from 'node:timers/promises'
import { createMemoryStore, type CacheStore, type CachedAnswer } from './cache-store.js'
import { createCacheStore } from './create-store.js'
import { createRedisStore, redisEntryBytes, redisKeyName } from './redis-store.js'
import { encodeAnswer } from './stored-answer.js'
import { redisRunPrefix, redisSkip, redisUrl, startRedisRelay } from '../../test/redis.js'

/** Every key this run writes starts with it (removed when the file ends). */
const runPrefix = redisRunPrefix('store')

/** An answer stored at `at`, fresh for `freshMs`, kept `staleMs` longer. */
function answer (at: number, body: Buffer | string = 'hello', freshMs = 1000, staleMs = 1000): CachedAnswer {
  return {
    status: 200,
    headers: { 'content-type': 'application/octet-stream', 'set-cookie': ['a=1', 'b=2'], etag: '"v1"' },
    body: Buffer.isBuffer(body) ? body : Buffer.from(body),
    provider: 'alpha',
    storedAt: at,
    freshUntil: at + freshMs,
    staleUntil: at + freshMs + staleMs,
    vary: { 'accept-language': 'de', 'x-tenant': '' }
  }
}

/** Resolves once `check` holds (the test's own timeout bounds the wait). */
async function until (check: () => boolean | Promise<boolean>): Promise<void> {
  while (!await check()) await sleep(20)
}

/** Resolves once `store` keeps what it is given (a Redis store misses until its first connection is made). */
async function connected (store: CacheStore): Promise<void> {
  await until(async () => {
    await store.set(-1, 'probe', answer(Date.now(), 'probe', 60_000))
    return (await store.get(-1, 'probe')) !== undefined
  })
}

const opened: CacheStore[] = []
afterEach(async () => { for (const store of opened.splice(0)) await store.close() })

interface Kind {
  readonly name: 'memory' | 'redis'
  readonly skip?: string | undefined
  make (now: () => number, keyPrefix?: string): Promise<CacheStore>
}

const kinds: Kind[] = [
  { name: 'memory', make: async (now) => createMemoryStore({ maxBytes: 1 << 20, now }) },
  {
    name: 'redis',
    skip: redisSkip,
    async make (now, keyPrefix = `${runPrefix}${randomBytes(4).toString('hex')}:`) {
      const store = createRedisStore({ url: redisUrl as string, keyPrefix, now })
      opened.push(store)
      await connected(store)
      return store
    }
  }
]

for (const kind of kinds) {
  if (kind.skip !== undefined) {
    it(`[${kind.name}] cache store`, { skip: kind.skip }, () => {})
    continue
  }
  describe(`[${kind.name}] cache store`, { timeout: 20_000 }, () => {
    let clock = Date.now()
    const now = (): number => clock

    it('gives back the status, headers (lists too), provider, times, vary and body bytes exactly', async () => {
      const store = await kind.make(now)
      const body = Buffer.concat([randomBytes(70_000), Buffer.from([0, 0xff, 0xfe, 0x0a])])
      const entry = answer(clock, body)
      await store.set(1, 'k1', entry)
      const got = await store.get(1, 'k1')
      assert.ok(got)
      assert.equal(Buffer.compare(got.body, body), 0)
      assert.deepEqual({ ...got, body: null }, { ...entry, body: null })
      assert.equal(store.kind, kind.name)
      assert.equal(store.problem(), null)

      const bare = { ...answer(clock, ''), status: 203, provider: null, vary: null, headers: {} }
      await store.set(1, 'empty', bare)
      assert.deepEqual(await store.get(1, 'empty'), bare)
    })

    it('answers undefined for a key never stored, and for the same key in another pool', async () => {
      const store = await kind.make(now)
      await store.set(1, 'same', answer(clock))
      assert.equal(await store.get(1, 'other'), undefined)
      assert.equal(await store.get(2, 'same'), undefined)
    })

    it('drops an entry once staleUntil is reached, and no longer counts it', async () => {
      const store = await kind.make(now)
      await store.set(1, 'short', answer(clock, 'short', 5000, 5000))
      await store.set(1, 'long', answer(clock, 'long', 20_000, 0))
      clock += 9999
      assert.equal((await store.get(1, 'short'))?.body.toString(), 'short')
      assert.equal(await store.entries(1), 2)
      clock += 1
      assert.equal(await store.get(1, 'short'), undefined)
      assert.equal(await store.entries(1), 1)
      assert.equal((await store.get(1, 'long'))?.body.toString(), 'long')
    })

    it('does not store an entry already past its staleUntil', async () => {
      const store = await kind.make(now)
      await store.set(1, 'late', answer(clock - 5000))
      assert.equal(await store.get(1, 'late'), undefined)
      assert.equal(await store.entries(1), 0)
    })

    it('keeps one entry per key: the last one stored', async () => {
      const store = await kind.make(now)
      await store.set(1, 'k', answer(clock, 'first'))
      await store.set(1, 'k', answer(clock, 'second'))
      assert.equal((await store.get(1, 'k'))?.body.toString(), 'second')
      assert.equal(await store.entries(1), 1)
    })

    it('purges one pool, answers how many entries it removed and leaves other pools alone', async () => {
      const store = await kind.make(now)
      for (const key of ['a', 'b', 'c']) await store.set(7, key, answer(clock, key))
      await store.set(7, 'gone', answer(clock, 'gone', 10, 0))
      for (const key of ['a', 'b']) await store.set(8, key, answer(clock, key))
      clock += 10
      assert.equal(await store.entries(7), 3)
      assert.equal(await store.purge(7), 3)
      assert.equal(await store.entries(7), 0)
      assert.equal(await store.get(7, 'a'), undefined)
      assert.equal(await store.entries(8), 2)
      assert.equal((await store.get(8, 'b'))?.body.toString(), 'b')
      assert.equal(await store.purge(7), 0)
      assert.equal(await store.purge(99), 0)
    })
  })
}

describe('[memory] cache store: bounded by bytes', () => {
  const clock = Date.now()
  const now = (): number => clock

  it('evicts the least recently used entries, whatever their pool, when the bytes run out', async () => {
    // Four 10 kB bodies do not fit in 35 kB; three do (with the headers' estimate).
    const store = createMemoryStore({ maxBytes: 35_000, now })
    await store.set(1, 'one', answer(clock, randomBytes(10_000)))
    await store.set(2, 'two', answer(clock, randomBytes(10_000)))
    await store.set(1, 'three', answer(clock, randomBytes(10_000)))
    assert.ok(await store.get(1, 'one')) // now the most recently used
    await store.set(1, 'four', answer(clock, randomBytes(10_000)))
    assert.equal(await store.get(2, 'two'), undefined)
    for (const key of ['one', 'three', 'four']) assert.ok(await store.get(1, key), key)
    assert.equal(await store.entries(2), 0)
    assert.equal(await store.entries(1), 3)
    assert.equal(await store.purge(1), 3)
  })

  it('does not store an entry bigger than the whole cache, and keeps the others', async () => {
    const store = createMemoryStore({ maxBytes: 35_000, now })
    await store.set(1, 'small', answer(clock))
    await store.set(1, 'huge', answer(clock, randomBytes(40_000)))
    assert.equal(await store.get(1, 'huge'), undefined)
    assert.ok(await store.get(1, 'small'))
    assert.equal(await store.entries(1), 1)
  })
})

describe('[redis] cache store: a Redis that cannot answer', { timeout: 20_000 }, () => {
  it('misses, drops writes, counts 0, refuses a purge and says why once, its password masked', async () => {
    const warnings: string[] = []
    const started = Date.now()
    const store = createRedisStore({ url: 'redis://user:s3cret@127.0.0.1:1', keyPrefix: runPrefix, warn: (m) => warnings.push(m) })
    opened.push(store)
    await until(async () => { await store.get(1, 'k'); return store.problem() !== null })
    // A refused connection says Redis is not there: no contact check waits on it.
    assert.ok(Date.now() - started < 1000, `reported after ${Date.now() - started} ms`)
    assert.equal(await store.get(1, 'k'), undefined)
    await store.set(1, 'k', answer(Date.now()))
    assert.equal(await store.entries(1), 0)
    await assert.rejects(store.purge(1), /unreachable/)
    const problem = store.problem() ?? ''
    assert.match(problem, /^cache: Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:1 unreachable: ECONNREFUSED; serving without the cache$/)
    assert.deepEqual(warnings, [problem])
  })

  it('misses when the server accepts connections but never answers', async () => {
    const server = net.createServer(() => {})
    const sockets = new Set<net.Socket>()
    server.on('connection', (socket) => { sockets.add(socket) })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as net.AddressInfo
      const store = createRedisStore({ url: `redis://127.0.0.1:${port}`, keyPrefix: runPrefix, commandTimeoutMs: 100, contactTimeoutMs: 300 })
      opened.push(store)
      await store.set(1, 'k', answer(Date.now()))
      assert.equal(await store.get(1, 'k'), undefined)
      await until(() => store.problem() !== null)
      assert.match(store.problem() ?? '', /unreachable: Command timed out/)
      assert.equal(await store.get(1, 'k'), undefined)
      assert.equal(await store.entries(1), 0)
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

if (redisSkip !== undefined) {
  it('[redis] cache store: shared and expiring in Redis', { skip: redisSkip }, () => {})
} else {
  describe('[redis] cache store: shared and expiring in Redis', { timeout: 20_000 }, () => {
    const make = kinds[1] as Kind

    it('lets two stores on the same Redis see, count and purge each other\'s entries', async () => {
      const prefix = `${runPrefix}shared:`
      const one = await make.make(Date.now, prefix)
      const two = await make.make(Date.now, prefix)
      await one.set(3, 'k', answer(Date.now(), 'from one', 60_000))
      assert.equal((await two.get(3, 'k'))?.body.toString(), 'from one')
      assert.equal(await two.entries(3), 1)
      assert.equal(await two.purge(3), 1)
      assert.equal(await one.get(3, 'k'), undefined)
    })

    it('lets Redis expire the entry at its staleUntil, and keeps the pool index as long as its longest entry', async () => {
      const prefix = `${runPrefix}ttl:`
      const store = await make.make(Date.now, prefix)
      const at = Date.now()
      await store.set(4, 'long', answer(at, 'x', 50_000, 10_000))
      await store.set(4, 'short', answer(at, 'x', 5000, 0))
      const redis = new Redis(redisUrl as string)
      try {
        const entryTtl = await redis.pttl(`${prefix}4:${redisKeyName('long')}`)
        assert.ok(entryTtl > 50_000 && entryTtl <= 60_000, `entry TTL ${entryTtl}`)
        const shortTtl = await redis.pttl(`${prefix}4:${redisKeyName('short')}`)
        assert.ok(shortTtl > 0 && shortTtl <= 5000, `entry TTL ${shortTtl}`)
        const indexTtl = await redis.pttl(`${prefix}index:4`)
        // Not shortened to the short entry's 5 s by the later write.
        assert.ok(indexTtl > 50_000 && indexTtl <= 60_000, `index TTL ${indexTtl}`)
        // A value that is not an entry reads as a miss.
        await redis.set(`${prefix}4:${redisKeyName('junk')}`, 'not an entry', 'PX', 60_000)
        assert.equal(await store.get(4, 'junk'), undefined)
      } finally {
        await redis.quit()
      }
    })

    it('serves without Redis while it is away, says so once, and once more when it is back', async () => {
      const relay = await startRedisRelay()
      const warnings: string[] = []
      const store = createRedisStore({ url: relay.url, keyPrefix: `${runPrefix}away:`, warn: (m) => warnings.push(m) })
      opened.push(store)
      try {
        await connected(store)
        await store.set(5, 'k', answer(Date.now(), 'kept', 60_000))

        await relay.down()
        await until(async () => { await store.get(5, 'k'); return store.problem() !== null })
        assert.equal(await store.get(5, 'k'), undefined)
        await store.set(5, 'other', answer(Date.now()))

        await relay.up()
        await until(() => store.problem() === null)
        assert.equal((await store.get(5, 'k'))?.body.toString(), 'kept')
        assert.equal(warnings.length, 2, warnings.join('\n'))
        assert.match(warnings[0] ?? '', /unreachable/)
        assert.match(warnings[1] ?? '', /answers again; serving with the cache$/)
      } finally {
        await store.close()
        await relay.close()
      }
    })

    it('takes one late answer as a miss, reports Redis silent for longer than contactTimeoutMs once, and sees it answer again with no command of its own', async () => {
      const relay = await startRedisRelay()
      const warnings: string[] = []
      const store = createRedisStore({ url: relay.url, keyPrefix: `${runPrefix}silent:`, warn: (m) => warnings.push(m), contactTimeoutMs: 300 })
      opened.push(store)
      try {
        await connected(store)
        relay.hold()
        assert.equal(await store.get(5, 'k'), undefined)
        assert.equal(store.problem(), null, 'one late answer is no outage yet')
        await until(() => store.problem() !== null)
        assert.match(store.problem() ?? '', /unreachable: Command timed out; serving without the cache$/)
        relay.release()
        await until(() => store.problem() === null)
        assert.equal(warnings.length, 2, warnings.join('\n'))
        assert.match(warnings[1] ?? '', /answers again; serving with the cache$/)
      } finally {
        await store.close()
        await relay.close()
      }
    })
  })
}

if (redisSkip !== undefined) {
  it('[redis] cache store: bounded by bytes across its prefix', { skip: redisSkip }, () => {})
} else {
  describe('[redis] cache store: bounded by bytes across its prefix', { timeout: 20_000 }, () => {
    let clock = Date.now()
    const now = (): number => clock
    let raw: Redis
    before(() => { raw = new Redis(redisUrl as string) })
    after(async () => { await raw.quit() })

    /** A store on `prefix` holding at most `maxBytes`, connected, its probe entry gone. */
    async function bounded (prefix: string, maxBytes: number, warn?: (message: string) => void): Promise<CacheStore> {
      const store = createRedisStore({ url: redisUrl as string, keyPrefix: prefix, now, maxBytes, warn })
      opened.push(store)
      await connected(store)
      await store.purge(-1)
      return store
    }

    /** What Redis really holds under `prefix`: the entries (redisEntryBytes of each value there), and the ledger's total. */
    async function held (prefix: string): Promise<{ bytes: number, entries: number, total: number }> {
      const keys = (await raw.keys(`${prefix}*`)).filter((key) => !/^(index|bound):/.test(key.slice(prefix.length)))
      let bytes = 0
      for (const key of keys) {
        const value = await raw.getBuffer(key)
        if (value !== null) bytes += redisEntryBytes(key.slice(prefix.length), value)
      }
      return { bytes, entries: keys.length, total: Number(await raw.hget(`${prefix}bound:bytes`, 'total') ?? 0) }
    }

    /** The keys of `pool` that `store` still serves, among `keys`. */
    async function kept (store: CacheStore, pool: number, keys: string[]): Promise<string[]> {
      const found: string[] = []
      for (const key of keys) if (await store.get(pool, key) !== undefined) found.push(key)
      return found
    }

    it('never holds more than maxBytes, however many distinct keys callers make it store', async () => {
      const prefix = `${runPrefix}many:`
      const maxBytes = 40_000
      const store = await bounded(prefix, maxBytes)
      for (let i = 0; i < 200; i++) {
        // Bodies of 500-4000 bytes, lives of 1-60 s, some keys written again: deterministic, so a failure repeats.
        const body = randomBytes(500 + (i * 337) % 3500)
        await store.set(1 + i % 3, `k${i % 120}`, answer(clock, body, 1000 + (i * 7919) % 59_000, 0))
        const { total } = await held(prefix)
        assert.ok(total <= maxBytes, `after set ${i}: ${total} > ${maxBytes}`)
        assert.ok(await store.get(1 + i % 3, `k${i % 120}`), `set ${i} not stored`)
      }
      const { bytes, entries, total } = await held(prefix)
      assert.equal(total, bytes)
      assert.ok(bytes <= maxBytes && bytes > maxBytes / 2, `${bytes} bytes held`)
      assert.ok(entries > 5 && entries < 120, `${entries} entries held`)
      assert.equal(await store.entries(1) + await store.entries(2) + await store.entries(3), entries)
    })

    it('evicts the entries closest to expiry, whatever their pool, and forgets expired ones first', async () => {
      const prefix = `${runPrefix}closest:`
      // Three 10 kB entries fit in 35 kB, four do not.
      const store = await bounded(prefix, 35_000)
      const set = async (pool: number, key: string, lifeMs: number): Promise<void> => {
        await store.set(pool, key, answer(clock, randomBytes(10_000), lifeMs, 0))
      }
      await set(1, 'a', 30_000)
      await set(2, 'b', 10_000)
      await set(1, 'c', 20_000)
      await set(1, 'd', 40_000)
      assert.deepEqual(await kept(store, 1, ['a', 'c', 'd']), ['a', 'c', 'd'])
      assert.equal(await store.get(2, 'b'), undefined)
      assert.equal(await store.entries(2), 0)
      assert.equal(await raw.exists(`${prefix}2:${redisKeyName('b')}`), 0)

      await set(2, 'e', 5000) // the new entry is the one closest to expiry: c goes
      assert.deepEqual(await kept(store, 1, ['a', 'c', 'd']), ['a', 'd'])
      assert.ok(await store.get(2, 'e'))

      clock += 6000 // e has expired (for the store; Redis still has it)
      await set(1, 'f', 50_000)
      assert.equal(await raw.exists(`${prefix}2:${redisKeyName('e')}`), 0)
      assert.deepEqual(await kept(store, 1, ['a', 'd', 'f']), ['a', 'd', 'f'])
      const { bytes, entries, total } = await held(prefix)
      assert.equal(entries, 3)
      assert.equal(total, bytes)
    })

    it('forgets expired entries on the next write even with room to spare', async () => {
      const prefix = `${runPrefix}expired:`
      const store = await bounded(prefix, 1 << 20)
      await store.set(1, 'old', answer(clock, randomBytes(5000), 1000, 0))
      clock += 1000
      await store.set(2, 'new', answer(clock, 'new', 60_000, 0))
      assert.equal(await raw.exists(`${prefix}1:${redisKeyName('old')}`), 0)
      const { bytes, entries, total } = await held(prefix)
      assert.equal(entries, 1)
      assert.equal(total, bytes)
    })

    it('does not store an entry bigger than maxBytes, nor one that 64 evictions cannot make room for, and then evicts nothing', async () => {
      const store = await bounded(`${runPrefix}huge:`, 35_000)
      await store.set(1, 'small', answer(clock))
      await store.set(1, 'huge', answer(clock, randomBytes(40_000), 60_000))
      assert.equal(await store.get(1, 'huge'), undefined)
      assert.ok(await store.get(1, 'small'))
      assert.equal(await store.entries(1), 1)

      const small = (i: number): CachedAnswer => answer(clock, 'x', 1000 + i, 0)
      const keys = Array.from({ length: 70 }, (_, i) => `k${10 + i}`)
      const each = redisEntryBytes(`1:${redisKeyName('k10')}`, encodeAnswer(small(0)))
      const maxBytes = 70 * each + 100
      const many = await bounded(`${runPrefix}cap:`, maxBytes)
      for (const [i, key] of keys.entries()) await many.set(1, key, small(i))
      assert.equal(await many.entries(1), 70)
      const big = (size: number): CachedAnswer => answer(clock, randomBytes(size), 60_000, 0)
      const needs = (size: number): number => redisEntryBytes(`1:${redisKeyName('big')}`, encodeAnswer(big(size))) - 100
      assert.ok(needs(66 * each) > 64 * each && needs(66 * each) <= maxBytes)
      await many.set(1, 'big', big(66 * each))
      assert.equal(await many.get(1, 'big'), undefined)
      assert.equal(await many.entries(1), 70)
      await many.set(1, 'big', big(10 * each))
      assert.ok(await many.get(1, 'big'))
      const left = await kept(many, 1, keys)
      assert.ok(left.length >= 58 && left.length < 70, `${left.length} left`)
      assert.deepEqual(left, keys.slice(70 - left.length)) // the first stored expire first
    })

    it('takes a purged pool\'s bytes off the bound, and stays consistent when filled again', async () => {
      const prefix = `${runPrefix}purge:`
      const store = await bounded(prefix, 35_000)
      const set = async (pool: number, key: string, lifeMs: number): Promise<void> => {
        await store.set(pool, key, answer(clock, randomBytes(10_000), lifeMs, 0))
      }
      await set(1, 'a', 30_000)
      await set(2, 'b', 10_000)
      await set(1, 'c', 20_000)
      assert.equal(await store.purge(1), 2)
      let state = await held(prefix)
      assert.equal(state.entries, 1)
      assert.equal(state.total, state.bytes)
      // Room for two more without evicting b, the entry closest to expiry.
      await set(1, 'd', 40_000)
      await set(1, 'e', 50_000)
      assert.ok(await store.get(2, 'b'))
      await set(1, 'f', 60_000)
      assert.equal(await store.get(2, 'b'), undefined)
      assert.deepEqual(await kept(store, 1, ['d', 'e', 'f']), ['d', 'e', 'f'])
      state = await held(prefix)
      assert.equal(state.entries, 3)
      assert.equal(state.total, state.bytes)
      assert.ok(state.bytes <= 35_000)
    })

    it('removes an entry that does not read back whole from Redis, its pool\'s index and the ledger, and says so once', async () => {
      const prefix = `${runPrefix}damaged:`
      const warnings: string[] = []
      const store = await bounded(prefix, 35_000, (m) => warnings.push(m))
      await store.set(1, 'kept', answer(clock, 'kept', 60_000))
      await store.set(1, 'cut', answer(clock, 'a body cut short', 60_000))
      const key = `${prefix}1:${redisKeyName('cut')}`
      const value = await raw.getBuffer(key) as Buffer
      await raw.set(key, value.subarray(0, value.length - 5), 'KEEPTTL')

      assert.equal(await store.get(1, 'cut'), undefined)
      assert.equal(await raw.exists(key), 0)
      assert.deepEqual(await raw.zrange(`${prefix}index:1`, 0, '-1'), [redisKeyName('kept')])
      assert.deepEqual(await raw.zrange(`${prefix}bound:entries`, 0, '-1'), [`1:${redisKeyName('kept')}`])
      const state = await held(prefix)
      assert.deepEqual([state.entries, state.total], [1, state.bytes])
      assert.equal(await store.entries(1), 1)
      assert.deepEqual(warnings, [`cache: removed a damaged entry of pool 1 (key ${redisKeyName('cut')}) from Redis: it is ${value.length - 5} bytes where it records ${value.length}; served as a miss`])
      assert.equal(await store.get(1, 'cut'), undefined)
      assert.equal(warnings.length, 1, 'said once')

      // A key of another type where an entry belongs: answered by Redis, so no outage.
      await raw.hset(`${prefix}1:${redisKeyName('hash')}`, 'status', '200')
      assert.equal(await store.get(1, 'hash'), undefined)
      assert.equal(await raw.exists(`${prefix}1:${redisKeyName('hash')}`), 0)
      assert.match(warnings[1] ?? '', /damaged entry of pool 1 .*: it is not a string value; served as a miss$/)
      assert.equal(store.problem(), null)
      assert.equal((await store.get(1, 'kept'))?.body.toString(), 'kept')
    })

    it('shares one bound between stores on the same prefix, not with another prefix', async () => {
      const prefix = `${runPrefix}bound-shared:`
      const one = await bounded(prefix, 35_000)
      const two = await bounded(prefix, 35_000)
      const other = await bounded(`${runPrefix}bound-other:`, 35_000)
      const body = (): Buffer => randomBytes(10_000)
      await one.set(1, 'a', answer(clock, body(), 10_000, 0))
      await one.set(1, 'b', answer(clock, body(), 20_000, 0))
      await other.set(1, 'x', answer(clock, body(), 5000, 0))
      await two.set(1, 'c', answer(clock, body(), 30_000, 0))
      await two.set(2, 'd', answer(clock, body(), 40_000, 0))
      assert.equal(await one.get(1, 'a'), undefined)
      assert.deepEqual(await kept(one, 1, ['b', 'c']), ['b', 'c'])
      assert.ok(await one.get(2, 'd'))
      assert.ok(await other.get(1, 'x'))
      const { bytes, entries, total } = await held(prefix)
      assert.equal(entries, 3)
      assert.equal(total, bytes)
      assert.ok(bytes <= 35_000)
    })
  })
}

describe('createCacheStore', () => {
  it('keeps entries in memory without a URL, in Redis with one, and refuses another scheme', async () => {
    const memory = createCacheStore({ url: undefined, maxBytes: 1000 })
    assert.equal(memory.kind, 'memory')
    await memory.close()
    const redis = createCacheStore({ url: 'redis://127.0.0.1:1', maxBytes: 1000 })
    opened.push(redis)
    assert.equal(redis.kind, 'redis')
    assert.throws(() => createCacheStore({ url: 'memcached://127.0.0.1', maxBytes: 1000 }), /CACHE_URL must be a redis/)
  })
})
