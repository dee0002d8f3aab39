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
 */
import { Readable } from 'node:stream'
import type { CachedAnswer, CacheStore } from '../cache/cache-store.js'
import type { PurgeRelay } from '../cache/purge-relay.js'
import type { PoolRuntime } from '../runtime/pool-runtime.js'
import { ageSeconds, asksForItsOwn, cacheKey, forbidsStore, freshSeconds, varyMatches, varyValues, wantsFresh } from '../rules/cache-policy.js'
import { assertSafePath } from '../rules/upstream-url.js'
import { DEADLINE_HEADER, DEADLINE_HEADER_PROBLEM, requestDeadline } from '../rules/retry-policy.js'
import { DomainError } from '../errors.js'
import { proxiedPath, servedHeaders, type ProxyRequest } from './forward.js'
import type { ProxyAnswer, ProxyService } from './proxy.service.js'

/** What the cache did for one proxied request, as `x-sourcepool-cache` says it. */
export type CacheResult = 'HIT' | 'MISS' | 'STALE' | 'BYPASS'

/** A proxied answer, with what the cache did (absent for a pool without a cache) and the Age of a stored one. */
export type ServedAnswer = (ProxyAnswer | StoredAnswer) & { readonly cache?: CacheResult, readonly age?: number }

/** An answer served from memory: its body is a Buffer (null for HEAD). */
interface StoredAnswer {
  readonly kind: 'answer'
  readonly status: number
  readonly headers: Record<string, string | string[]>
  readonly body: Buffer | null
  readonly provider: string | null
  readonly attempts: number
  /** A failing attempt's own answer, back because the retry budget was spent (never stored). */
  readonly retryBudget?: 'exhausted'
}

/** What the leader of a key shares with the requests waiting for it. */
type Shared =
  | { readonly kind: 'stored', readonly entry: CachedAnswer }
  | { readonly kind: 'failed', readonly answer: Exclude<ProxyAnswer, { kind: 'answer' }> }
  /** The provider's own failing answer, read whole, that ended the leader's request with the retry budget spent: every waiter gets it, nothing stores it. */
  | { readonly kind: 'exhausted', readonly answer: StoredAnswer & { readonly body: Buffer } }
  /** The answer was not stored (private to its caller, too big, too slow, an event stream): each waiter goes upstream on its own. */
  | { readonly kind: 'alone' }

/**
 * One key's request in flight: the leader's outcome to come, and the clients still
 * waiting for it; it is called off (its signal) only when every one of them has
 * left, so one client leaving never fails the others. A background refresh has no
 * client and is never called off.
 */
interface Flight {
  readonly led: Promise<Led>
  readonly controller: AbortController
  interested: number
  readonly background: boolean
}

/** The leader's outcome: what it shares, and its own client's answer. */
interface Led {
  readonly shared: Shared
  readonly own: ServedAnswer
}

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
}

/** Longest a request waits for the leader of its key before going upstream itself (the leader's attempts are bounded by their own timeouts). */
const MAX_COALESCED_WAIT_MS = 120_000

/** Counted per pool: a hit or stale answer spent no upstream call; a miss or a bypass did. */
function countedAs (result: CacheResult): 'hit' | 'miss' | 'stale' {
  return result === 'HIT' ? 'hit' : result === 'STALE' ? 'stale' : 'miss'
}

/** The answer a stored entry gives a request: its status, headers (less the service's own: servedHeaders) and body exactly (none for HEAD). */
function fromEntry (entry: CachedAnswer, method: string, attempts: number): StoredAnswer {
  const headers = servedHeaders(entry.headers)
  if (headers['content-length'] === undefined && entry.status !== 204 && entry.status !== 304) headers['content-length'] = String(entry.body.length)
  return { kind: 'answer', status: entry.status, headers, body: method === 'HEAD' ? null : entry.body, provider: entry.provider, attempts }
}

/** `pending`'s value, or undefined once `limitMs` pass (never when Infinity) or `signal` aborts first. */
async function within<T> (pending: Promise<T>, limitMs: number, signal: AbortSignal | undefined): Promise<T | undefined> {
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

/** Bytes of answers being read into memory at once, for all keys (CACHE_MAX_BYTES): past it, answers stream unstored. */
interface ReadBudget { left: number }

/** How long reading an answer to store it may take; past it, the answer streams to its client unstored (an event stream, a slow body). */
const READ_DEADLINE_MS = 5_000

/**
 * Reads `body` into memory, up to `limit` bytes and the read budget, within
 * READ_DEADLINE_MS and while `signal` holds; past any of them, answers a stream of
 * everything (read and unread) instead. A body that fails while read throws.
 */
async function readUpTo (body: Readable, limit: number, budget: ReadBudget, signal: AbortSignal): Promise<Buffer | Readable> {
  const chunks: Buffer[] = []
  let size = 0
  const it = body[Symbol.asyncIterator]()
  const deadline = Date.now() + READ_DEADLINE_MS
  let pending: Promise<IteratorResult<unknown>> | undefined = it.next()
  try {
    for (;;) {
      const next = await within(pending, deadline - Date.now(), signal)
      if (next === undefined) break
      if (next.done === true) return Buffer.concat(chunks, size)
      const chunk = next.value as Buffer
      chunks.push(chunk)
      size += chunk.length
      budget.left -= chunk.length
      if (size > limit || budget.left < 0) { pending = undefined; break }
      pending = it.next()
    }
  } finally {
    budget.left += size
  }
  const waiting = pending
  return Readable.from((async function * () {
    try {
      yield * chunks
      if (waiting !== undefined) {
        const next = await waiting
        if (next.done === true) return
        yield next.value as Buffer
      }
      for (;;) {
        const next = await it.next()
        if (next.done === true) return
        yield next.value as Buffer
      }
    } finally {
      // The client left early: the upstream body is let go too.
      await it.return?.()
    }
  })(), { objectMode: false })
}

/** Builds the cache in front of `proxy`. */
export function createCachedProxy ({ proxy, runtime, store, maxEntryBytes, maxBytes, now = Date.now, events, warn = () => {}, relay }: Deps) {
  /** `${poolId}:${key}` → the request in flight for that key. */
  const inFlight = new Map<string, Flight>()
  /** Bytes all leaders may hold while reading answers. */
  const budget: ReadBudget = { left: maxBytes }
  /** Per pool, how many purges: an answer fetched before one is not stored after it. */
  const purges = new Map<number, number>()

  function count (poolId: number, result: CacheResult): void {
    runtime.cacheCounted(poolId, countedAs(result))
    events?.cacheResult(poolId, result)
  }

  /** Empties the pool's entries in this process; answers how many were removed. */
  async function purgeHere (poolId: number): Promise<number> {
    purges.set(poolId, (purges.get(poolId) ?? 0) + 1)
    const purged = await store.purge(poolId)
    runtime.cacheCounted(poolId, null, 0)
    return purged
  }
  relay?.serve(purgeHere)

  /** Counts the pool's entries after a change (in the background: it is only shown). */
  function recount (poolId: number): void {
    store.entries(poolId).then((n) => { runtime.cacheCounted(poolId, null, n) }, () => {})
  }

  /**
   * Sends the request upstream as a GET and makes what came back shareable: stored
   * when the answer may be (MISS; BYPASS when the client asked anew), otherwise kept
   * for the waiters only; a failure is shared as it is.
   */
  async function lead (
    poolId: number, key: string, incoming: ProxyRequest, pool: { cache_ttl_seconds: number, cache_stale_seconds: number }, label: 'MISS' | 'BYPASS', signal: AbortSignal
  ): Promise<Led> {
    // Sent with the flight's signal, not the leader's client's: others may be waiting for it.
    // On the pool's own deadline: the answer is shared, and one client's shorter deadline is its own.
    const asked = { ...incoming, method: 'GET', signal, gone: undefined, headers: withoutDeadline(incoming.headers) }
    const purged = purges.get(poolId) ?? 0
    const answer = await proxy.forward(poolId, asked)
    if (answer.kind !== 'answer') return { shared: { kind: 'failed', answer }, own: { ...answer, cache: label } }
    if (answer.retryBudget !== undefined) {
      // A failing attempt's own answer, back because the retry budget was spent: read whole
      // (bounded as an entry is), it goes to the leader's client and to every waiter (stale
      // if error applies to each), and is never stored. Too big to hold, or broken off, the
      // leader's client alone gets it and the waiters a 502.
      const failed = { kind: 'failed' as const, attempts: [], refusals: [], retryBudget: answer.retryBudget }
      let read: Buffer | Readable | undefined
      try {
        read = answer.body === null ? Buffer.alloc(0) : await readUpTo(answer.body, maxEntryBytes, budget, signal)
      } catch {
        read = undefined
      }
      if (read === undefined) return { shared: { kind: 'failed', answer: failed }, own: { ...failed, cache: label } }
      if (!Buffer.isBuffer(read)) return { shared: { kind: 'failed', answer: failed }, own: { ...answer, body: read, cache: label } }
      const kept = { kind: 'answer' as const, status: answer.status, headers: answer.headers, body: read, provider: answer.provider, attempts: answer.attempts, retryBudget: answer.retryBudget }
      return { shared: { kind: 'exhausted', answer: kept }, own: { ...kept, headers: { ...kept.headers }, body: incoming.method === 'HEAD' ? null : read, cache: label } }
    }
    let body: Buffer
    if (answer.body === null) body = Buffer.alloc(0)
    else {
      let read: Buffer | Readable
      try {
        // An event stream is never read whole: it streams to its client.
        read = isEventStream(answer.headers) ? answer.body : await readUpTo(answer.body, maxEntryBytes, budget, signal)
      } catch (error) {
        // The provider's body failed after it started: a failure to share (stale if error applies), not a 500.
        warn(error, 'cache: the answer broke off while it was read')
        const failed = { kind: 'failed' as const, attempts: [], refusals: [] }
        return { shared: { kind: 'failed', answer: failed }, own: { ...failed, cache: label } }
      }
      if (!Buffer.isBuffer(read)) {
        const own = { ...answer, body: incoming.method === 'HEAD' ? null : read, cache: 'BYPASS' as const }
        if (incoming.method === 'HEAD') read.destroy()
        return { shared: { kind: 'alone' }, own }
      }
      body = read
    }
    const at = now()
    const fresh = freshSeconds('GET', answer.status, answer.headers, pool.cache_ttl_seconds, at)
    if (fresh === null || forbidsStore(incoming.headers) || (purges.get(poolId) ?? 0) !== purged) {
      const own: StoredAnswer = { kind: 'answer', status: answer.status, headers: answer.headers, body: incoming.method === 'HEAD' ? null : body, provider: answer.provider, attempts: answer.attempts }
      return { shared: { kind: 'alone' }, own: { ...own, cache: 'BYPASS' } }
    }
    const freshUntil = at + fresh * 1000
    const entry: CachedAnswer = {
      status: answer.status,
      headers: answer.headers,
      body,
      provider: answer.provider,
      // Its age counts from when the provider's own caches had it (its Age header).
      storedAt: at - upstreamAge(answer.headers) * 1000,
      freshUntil,
      staleUntil: freshUntil + pool.cache_stale_seconds * 1000,
      vary: varyValues(answer.headers.vary, incoming.headers)
    }
    await store.set(poolId, key, entry)
    recount(poolId)
    return {
      shared: { kind: 'stored', entry },
      own: { ...fromEntry(entry, incoming.method, answer.attempts), cache: label, age: ageSeconds(entry.storedAt, at) }
    }
  }

  /** Starts the flight of `id` (none is in flight); `start` leads it under the flight's signal. */
  function takeOff (id: string, background: boolean, start: (signal: AbortSignal) => Promise<Led>): Flight {
    const controller = new AbortController()
    const flight: Flight = { led: start(controller.signal), controller, interested: 0, background }
    inFlight.set(id, flight)
    const done = () => { if (inFlight.get(id) === flight) inFlight.delete(id) }
    flight.led.then(done, done)
    return flight
  }

  /** Waits for the flight as one more interested client (bounded by `limitMs`; undefined when it gave up or left). */
  async function board (flight: Flight, signal: AbortSignal | undefined, limitMs: number): Promise<Led | undefined> {
    flight.interested++
    const leave = () => {
      flight.interested--
      if (flight.interested === 0 && !flight.background) flight.controller.abort()
    }
    signal?.addEventListener('abort', leave, { once: true })
    try {
      return await within(flight.led, limitMs, signal)
    } finally {
      signal?.removeEventListener('abort', leave)
    }
  }

  /** An entry of the key still within its stale window, served in place of a failure (stale if error). */
  async function staleInstead (poolId: number, key: string, incoming: ProxyRequest): Promise<ServedAnswer | undefined> {
    const stale = await store.get(poolId, key)
    const at = now()
    if (stale === undefined || at >= stale.staleUntil || !varyMatches(stale.vary, incoming.headers)) return undefined
    return { ...fromEntry(stale, incoming.method, 0), cache: 'STALE', age: ageSeconds(stale.storedAt, at) }
  }

  /**
   * What a waiter gets from its leader's outcome: the stored answer when its Vary
   * matches the waiter's request, or the leader's failure (a MISS: it saved no call
   * that would have worked); undefined — go upstream alone — for an answer that was
   * not stored (private to its caller, or too big, or not to be kept).
   */
  function asWaiter (led: Led, incoming: ProxyRequest): ServedAnswer | undefined {
    const { shared } = led
    switch (shared.kind) {
      case 'stored':
        if (!varyMatches(shared.entry.vary, incoming.headers)) return undefined
        return { ...fromEntry(shared.entry, incoming.method, 0), cache: 'HIT', age: ageSeconds(shared.entry.storedAt, now()) }
      case 'failed': return { ...shared.answer, cache: 'MISS' }
      // Headers copied: the route adds each request's own to them.
      case 'exhausted': return { ...shared.answer, headers: { ...shared.answer.headers }, body: incoming.method === 'HEAD' ? null : shared.answer.body, cache: 'MISS' }
      case 'alone': return undefined
    }
  }

  /** A fresh entry served as a HIT (counted), by the async path and the one at once alike. */
  function hit (poolId: number, entry: CachedAnswer, method: string, at: number): ServedAnswer {
    count(poolId, 'HIT')
    return { ...fromEntry(entry, method, 0), cache: 'HIT', age: ageSeconds(entry.storedAt, at) }
  }

  /** What is left of the request's own deadline. */
  const leftOf = (ask: Ask): number => ask.deadline.ms - (performance.now() - ask.started)

  /** Past the request's deadline: a stale entry if one is within its window, else 504. */
  const overDeadline = async (ask: Ask): Promise<ServedAnswer> =>
    await staleInstead(ask.poolId, ask.key, ask.incoming) ?? { kind: 'deadline', deadlineMs: ask.deadline.ms, attempts: [], cache: 'MISS' }

  /** A stored answer: fresh (HIT), or within its stale window (STALE, with one refresh in the background); undefined otherwise. */
  async function fromStore (ask: Ask): Promise<ServedAnswer | undefined> {
    const { poolId, key, incoming } = ask
    const entry = await store.get(poolId, key)
    if (entry === undefined || !varyMatches(entry.vary, incoming.headers)) return undefined
    const at = now()
    if (at < entry.freshUntil) {
      return hit(poolId, entry, incoming.method, at)
    }
    if (at >= entry.staleUntil) return undefined
    // Stale while revalidating: served at once, one refresh in the background.
    count(poolId, 'STALE')
    if (!inFlight.has(ask.id)) {
      takeOff(ask.id, true, async (signal) => await lead(poolId, key, incoming, ask.pool, 'MISS', signal)).led
        .then(letGo, (error: unknown) => { warn(error, 'cache: background refresh failed') })
    }
    return { ...fromEntry(entry, incoming.method, 0), cache: 'STALE', age: ageSeconds(entry.storedAt, at) }
  }

  /** Waits for the request in flight for the same key, and takes its answer (or goes upstream alone). */
  async function follow (ask: Ask, running: Flight): Promise<ServedAnswer> {
    const { poolId, key, incoming } = ask
    const led = await board(running, incoming.signal, Math.min(MAX_COALESCED_WAIT_MS + ask.pool.max_wait_ms, leftOf(ask)))
    let served = led === undefined ? undefined : asWaiter(led, incoming)
    if (served !== undefined && failing(served)) served = await staleInstead(poolId, key, incoming) ?? served
    if (served !== undefined) {
      count(poolId, served.cache ?? 'HIT')
      return served
    }
    if (incoming.signal?.aborted === true) return { kind: 'unavailable', retryAfterS: null, cache: 'MISS' }
    if (leftOf(ask) < 1) {
      count(poolId, 'MISS')
      return await overDeadline(ask)
    }
    // Not shareable, or waited too long: upstream on its own, within what is left of its deadline.
    const answer = await proxy.forward(poolId, { ...incoming, headers: { ...incoming.headers, [DEADLINE_HEADER]: String(Math.max(1, Math.floor(leftOf(ask)))) } })
    count(poolId, 'BYPASS')
    return { ...answer, cache: 'BYPASS' }
  }

  /** Leads the key's request upstream, for this client and whoever comes to wait for it. */
  async function leadFor (ask: Ask, label: 'MISS' | 'BYPASS'): Promise<ServedAnswer> {
    const { poolId, key, incoming } = ask
    const flight = takeOff(ask.id, false, async (signal) => await lead(poolId, key, incoming, ask.pool, label, signal))
    const led = await board(flight, incoming.signal, ask.deadline.shortened ? leftOf(ask) : Infinity)
    if (led === undefined && incoming.signal?.aborted !== true) {
      // Its own deadline passed first: the shared request goes on for the others, and to be stored.
      flight.led.then(letGo, () => {})
      count(poolId, label)
      return await overDeadline(ask)
    }
    if (led === undefined) {
      // The client left: an answer too big to share, streaming for it alone, is let go when it comes.
      flight.led.then(letGo, () => {})
      return { kind: 'unavailable', retryAfterS: null, cache: label }
    }
    const { own } = led
    // Stale if error: every member failed or none is eligible, but an entry within its stale window is kept.
    const served = failing(own) ? await staleInstead(poolId, key, incoming) ?? own : own
    if (served !== own) letGo(led)
    count(poolId, served.cache ?? label)
    return served
  }

  return {
    /** Answers a proxied request of the pool, from the cache when it can (see the file's header). */
    async forward (poolId: number, incoming: ProxyRequest): Promise<ServedAnswer> {
      const pool = await runtime.pool(poolId)
      // No cache (or no such pool, or a pool switched off: the proxy answers the 404 or 503).
      if (pool === undefined || !cacheOn(pool)) return await proxy.forward(poolId, incoming)
      return await this.cached(pool, poolId, incoming)
    },

    /** The cache stage of a pool whose cache is on (`pool`: its row as the runtime keeps it): pipeline.ts calls it directly. */
    async cached (pool: CachingPool, poolId: number, incoming: ProxyRequest): Promise<ServedAnswer> {
      if ((incoming.method !== 'GET' && incoming.method !== 'HEAD') || asksForItsOwn(incoming.headers)) {
        const answer = await proxy.forward(poolId, incoming)
        count(poolId, 'BYPASS')
        return { ...answer, cache: 'BYPASS' }
      }
      const path = proxiedPath(incoming.url)
      assertSafePath(path)
      // The client's own deadline (x-sourcepool-deadline-ms) bounds its waits for a shared answer.
      const deadline = requestDeadline(pool.deadline_ms, incoming.headers[DEADLINE_HEADER])
      if (deadline === 'invalid') throw new DomainError(400, DEADLINE_HEADER_PROBLEM)
      const key = cacheKey(path, incoming.headers, pool.forward_client_auth === 1)
      const ask: Ask = { pool, poolId, incoming, key, id: `${poolId}:${key}`, deadline, started: performance.now() }
      const anew = wantsFresh(incoming.headers)
      const stored = anew ? undefined : await fromStore(ask)
      if (stored !== undefined) return stored
      const running = inFlight.get(ask.id)
      return running !== undefined ? await follow(ask, running) : await leadFor(ask, anew ? 'BYPASS' : 'MISS')
    },

    /**
     * A fresh HIT answered at once (no await) when the store can tell without I/O (the
     * memory store): the same checks as `cached`, in the same order; undefined for
     * anything else (a miss, stale, another method, a request that asks anew, an entry
     * whose Vary differs, a path or deadline header `cached` refuses), which `cached` takes.
     */
    hitNow (pool: CachingPool, poolId: number, incoming: AskedAtOnce): ServedAnswer | undefined {
      if (store.peek === undefined || (incoming.method !== 'GET' && incoming.method !== 'HEAD') || asksForItsOwn(incoming.headers) || wantsFresh(incoming.headers)) return undefined
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
      const at = now()
      if (at >= entry.freshUntil) return undefined
      return hit(poolId, entry, incoming.method, at)
    },

    /** True when the pool exists (as the runtime keeps it). */
    poolExists: async (poolId: number): Promise<boolean> => await runtime.pool(poolId) !== undefined,

    /** Empties the pool's entries, in every worker (WORKERS, the memory store); answers how many were removed in all. */
    purge: async (poolId: number): Promise<number> => relay === undefined ? await purgeHere(poolId) : await relay.purgeEverywhere(poolId),

    /** A sentence when the store cannot be used (Redis unreachable), else null. */
    problem: (): string | null => store.problem(),

    /** Ends the upstream connections and the store's. */
    close: async (): Promise<void> => { relay?.close(); await proxy.close(); await store.close() }
  }
}

/** One cacheable request as the cache's stages see it: its pool, key and own deadline. */
interface Ask {
  readonly pool: CachingPool
  readonly poolId: number
  readonly incoming: ProxyRequest
  readonly key: string
  /** `${poolId}:${key}`: its flight's name. */
  readonly id: string
  readonly deadline: { readonly ms: number, readonly shortened: boolean }
  readonly started: number
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

/** True for an answer that stale-if-error may replace: a failure, or a provider's failing answer back with the retry budget spent. */
function failing (answer: ServedAnswer): boolean {
  return answer.kind !== 'answer' || ('retryBudget' in answer && answer.retryBudget !== undefined)
}

/** True for an event stream (`text/event-stream`), which is never read whole. */
function isEventStream (headers: Record<string, string | string[]>): boolean {
  const type = headers['content-type']
  return typeof type === 'string' && type.toLowerCase().startsWith('text/event-stream')
}

/** The answer's own `Age` in whole seconds (0 when absent or malformed). */
function upstreamAge (headers: Record<string, string | string[]>): number {
  const age = headers.age
  return typeof age === 'string' && /^\d{1,9}$/.test(age.trim()) ? Number(age.trim()) : 0
}

/** A request's headers without the client's deadline. */
function withoutDeadline (headers: ProxyRequest['headers']): ProxyRequest['headers'] {
  if (headers[DEADLINE_HEADER] === undefined) return headers
  const { [DEADLINE_HEADER]: _deadline, ...rest } = headers
  return rest
}

/** Lets go of a led answer nobody will read: its body still streaming from the provider is destroyed. */
function letGo (led: Led): void {
  if (led.own.kind === 'answer' && led.own.body instanceof Readable) led.own.body.on('error', () => {}).destroy()
}

export type CachedProxy = ReturnType<typeof createCachedProxy>
