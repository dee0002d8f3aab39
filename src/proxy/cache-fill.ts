/**
 * The cache's last stage, fill: the leader of a key (coalesce.ts) sends its request
 * upstream as a GET, on the pool's own deadline (the answer is shared), and makes
 * what came back shareable: stored when it may be (rules/cache-policy.ts), its Age
 * counted from the provider's own; otherwise kept for the leader's client alone
 * (private to its caller, bigger than CACHE_MAX_ENTRY_BYTES or than what all leaders
 * may hold while reading, CACHE_MAX_BYTES, an event stream, slower than
 * READ_DEADLINE_MS: it streams on unstored). A provider's failing answer back with
 * the retry budget spent is read whole for every waiter and never stored. An answer
 * fetched before a purge is not stored after it (each pool's purge count).
 */
import { Readable } from 'node:stream'
import type { CachedAnswer, CacheStore } from '../cache/cache-store.js'
import { ageSeconds, forbidsStore, freshSeconds, varyValues } from '../rules/cache-policy.js'
import { withoutDeadline } from '../rules/retry-policy.js'
import type { PoolRuntime } from '../runtime/pool-runtime.js'
import { fromEntry, within, type Ask, type Led, type StoredAnswer } from './cache-answer.js'
import { requestCopy, type ProxyRequest } from './forward.js'
import type { ProxyAnswer, ProxyService } from './proxy.service.js'

/** How long reading an answer to store it may take; past it, the answer streams to its client unstored (an event stream, a slow body). */
const READ_DEADLINE_MS = 5_000

/** Bytes of answers being read into memory at once, for all keys (CACHE_MAX_BYTES): past it, answers stream unstored. */
interface ReadBudget { left: number }

/** The provider's answer, as the attempts gave it. */
type Answered = Extract<ProxyAnswer, { kind: 'answer' }>

type Label = 'MISS' | 'BYPASS'

interface FillDeps {
  readonly proxy: Pick<ProxyService, 'forward'>
  readonly runtime: Pick<PoolRuntime, 'cacheCounted'>
  readonly store: Pick<CacheStore, 'set' | 'entries' | 'purge'>
  /** Largest body stored (CACHE_MAX_ENTRY_BYTES); bigger answers stream through unstored. */
  readonly maxEntryBytes: number
  /** Bytes of answers all leaders may hold while reading them (CACHE_MAX_BYTES). */
  readonly maxBytes: number
  readonly now: () => number
  readonly warn: (error: unknown, message: string) => void
}

/** The fill stage: the read budget all leaders share, and each pool's purges. */
export class CacheFill {
  private readonly budget: ReadBudget
  /** Per pool, how many purges: an answer fetched before one is not stored after it. */
  private readonly purges = new Map<number, number>()

  constructor (private readonly deps: FillDeps) {
    this.budget = { left: deps.maxBytes }
  }

  /** Empties the pool's entries in this process; answers how many were removed. */
  async purge (poolId: number): Promise<number> {
    this.purges.set(poolId, (this.purges.get(poolId) ?? 0) + 1)
    const purged = await this.deps.store.purge(poolId)
    this.deps.runtime.cacheCounted(poolId, null, 0)
    return purged
  }

  /**
   * Sends the request upstream as a GET and makes what came back shareable: stored
   * when the answer may be (`label`: MISS; BYPASS when the client asked anew),
   * otherwise kept for the leader's client only; a failure is shared as it is.
   */
  async lead (ask: Ask, label: Label, signal: AbortSignal): Promise<Led> {
    const { poolId, incoming } = ask
    // Sent with the flight's signal, not the leader's client's: others may be waiting for it.
    // On the pool's own deadline: the answer is shared, and one client's shorter deadline is its own.
    const asked = { ...requestCopy(incoming), method: 'GET', signal, headers: withoutDeadline(incoming.headers) }
    const purged = this.purges.get(poolId) ?? 0
    const answer = await this.deps.proxy.forward(poolId, asked)
    if (answer.kind !== 'answer') return { shared: { kind: 'failed', answer }, own: { ...answer, cache: label } }
    if (answer.retryBudget !== undefined) return await this.exhausted(answer, incoming, label, signal)
    const body = await this.bodyOf(answer, incoming, label, signal)
    if (!Buffer.isBuffer(body)) return body
    return await this.keep(ask, answer, body, label, purged)
  }

  /**
   * A failing attempt's own answer, back because the retry budget was spent: read whole
   * (bounded as an entry is), it goes to the leader's client and to every waiter (stale
   * if error applies to each), and is never stored. Too big to hold, or broken off, the
   * leader's client alone gets it and the waiters a 502.
   */
  private async exhausted (answer: Answered, incoming: ProxyRequest, label: Label, signal: AbortSignal): Promise<Led> {
    const failed = { kind: 'failed' as const, attempts: [], refusals: [], retryBudget: answer.retryBudget }
    let read: Buffer | Readable | undefined
    try {
      read = answer.body === null ? Buffer.alloc(0) : await readUpTo(answer.body, this.deps.maxEntryBytes, this.budget, signal)
    } catch {
      read = undefined
    }
    if (read === undefined) return { shared: { kind: 'failed', answer: failed }, own: { ...failed, cache: label } }
    if (!Buffer.isBuffer(read)) return { shared: { kind: 'failed', answer: failed }, own: { ...answer, body: read, cache: label } }
    const kept = { kind: 'answer' as const, status: answer.status, headers: answer.headers, body: read, provider: answer.provider, attempts: answer.attempts, retryBudget: answer.retryBudget }
    return { shared: { kind: 'exhausted', answer: kept }, own: { ...kept, body: incoming.method === 'HEAD' ? null : read, cache: label } }
  }

  /** The answer's body read whole to be stored; or, when it cannot be (broken off, too big, too slow, an event stream), the leader's outcome already. */
  private async bodyOf (answer: Answered, incoming: ProxyRequest, label: Label, signal: AbortSignal): Promise<Buffer | Led> {
    if (answer.body === null) return Buffer.alloc(0)
    let read: Buffer | Readable
    try {
      // An event stream is never read whole: it streams to its client.
      read = isEventStream(answer.headers) ? answer.body : await readUpTo(answer.body, this.deps.maxEntryBytes, this.budget, signal)
    } catch (error) {
      // The provider's body failed after it started: a failure to share (stale if error applies), not a 500.
      this.deps.warn(error, 'cache: the answer broke off while it was read')
      const failed = { kind: 'failed' as const, attempts: [], refusals: [] }
      return { shared: { kind: 'failed', answer: failed }, own: { ...failed, cache: label } }
    }
    if (Buffer.isBuffer(read)) return read
    const own = { ...answer, body: incoming.method === 'HEAD' ? null : read, cache: 'BYPASS' as const }
    if (incoming.method === 'HEAD') read.destroy()
    return { shared: { kind: 'alone' }, own }
  }

  /** Stores the answer read whole when it may be (not private, fresh for a while, fetched since the pool's last purge); else it is the leader's client's alone. */
  private async keep (ask: Ask, answer: Answered, body: Buffer, label: Label, purged: number): Promise<Led> {
    const { poolId, key, incoming, pool } = ask
    const at = this.deps.now()
    const fresh = freshSeconds('GET', answer.status, answer.headers, pool.cache_ttl_seconds, at)
    if (fresh === null || forbidsStore(incoming.headers) || (this.purges.get(poolId) ?? 0) !== purged) {
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
    await this.deps.store.set(poolId, key, entry)
    this.recount(poolId)
    return {
      shared: { kind: 'stored', entry },
      own: { ...fromEntry(entry, incoming.method, answer.attempts), cache: label, age: ageSeconds(entry.storedAt, at) }
    }
  }

  /** Counts the pool's entries after a change (in the background: it is only shown). */
  private recount (poolId: number): void {
    this.deps.store.entries(poolId).then((n) => { this.deps.runtime.cacheCounted(poolId, null, n) }, () => {})
  }
}

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
