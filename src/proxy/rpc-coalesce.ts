/**
 * An `evm` pool's coalescing stage (issue 36 item 5, in part): identical reads in
 * flight at once (the same method and params, rules/jsonrpc.ts canonicalParams, from
 * any clients and batches) share one upstream call, and each client gets the answer
 * with its own id. With the pool's cache on, answers that never change
 * (rules/evm-methods.ts: `eth_chainId`, `net_version`) are kept for good, per pool
 * and process, once a member answered them with a result. The leader's call runs
 * apart from its client (a leader whose client left still answers the others,
 * within the pool's deadline). `x-sourcepool-cache` says HIT to a call that shared
 * another's answer or read a kept one, MISS to the one that went upstream (counted
 * with the pool's cache while it is on). Kept answers go with a purge of the pool's
 * cache (cached-proxy.ts) or when its cache is turned off (pipeline.ts).
 */
import type { Readable } from 'node:stream'
import { isCoalescible, isImmutable } from '../rules/evm-methods.js'
import { canonicalParams } from '../rules/jsonrpc.js'
import { withoutDeadline } from '../rules/retry-policy.js'
import { cacheOn, type CachingPool, type ServedAnswer } from './cache-answer.js'
import { readBounded } from './body-read.js'
import { requestCopy, type ProxyRequest, type RpcCallInfo } from './forward.js'

type Run = (poolId: number, incoming: ProxyRequest) => Promise<ServedAnswer>

/** A provider's answer to one call, shareable: its head and its JSON object (the id replaced per client). */
interface Shared {
  readonly status: number
  readonly headers: Record<string, string | string[]>
  readonly answer: Record<string, unknown>
  readonly provider: string | null
  readonly attempts: number
}

/** Keys in flight at once, per process; past it a call goes upstream on its own. */
const MAX_IN_FLIGHT = 10_000
/** Answers kept for good, per process (a few per pool: the immutable methods take no params). */
const MAX_KEPT = 10_000
/** Largest answer shared: it is parsed to give each client its id, and parsing megabytes would hold the event loop. */
const MAX_SHARED_BYTES = 1024 * 1024

export class RpcCoalescing {
  /** `count`: what the stage did, counted with the pool's cache (only while its cache is on). */
  constructor (private readonly count: (poolId: number, result: 'HIT' | 'MISS') => void = () => {}) {}

  private readonly inFlight = new Map<string, Promise<ServedAnswer | Shared>>()
  /** Per pool, its kept answers by key (a purge drops one pool's at once). */
  private readonly kept = new Map<number, Map<string, Shared>>()
  private keptCount = 0

  /** Answers an `evm` pool's single call: kept, shared with the same call in flight, or led upstream. */
  async answer (poolId: number, incoming: ProxyRequest, pool: SharingPool, run: Run): Promise<ServedAnswer> {
    const rpc = incoming.rpc
    const key = rpc === undefined || !isCoalescible(rpc.method) || pool.forward_client_auth === 1 ? undefined : keyOf(poolId, incoming, rpc)
    if (rpc === undefined || key === undefined) return await run(poolId, incoming)
    const caching = cacheOn(pool)
    const kept = caching ? this.kept.get(poolId)?.get(key) : undefined
    if (kept !== undefined) return this.served(poolId, caching, kept, rpc, 'HIT')
    const running = this.inFlight.get(key)
    if (running !== undefined) {
      const led = await running
      // Not shareable (not a JSON-RPC answer, too big, a failure): this call goes upstream on its own.
      return 'kind' in led ? await run(poolId, incoming) : this.served(poolId, caching, led, rpc, 'HIT')
    }
    if (this.inFlight.size >= MAX_IN_FLIGHT) return await run(poolId, incoming)
    const leading = this.lead(poolId, incoming, run)
    this.inFlight.set(key, leading)
    try {
      const led = await leading
      if ('kind' in led) return led
      if (caching && isImmutable(rpc.method) && led.answer.result !== undefined && led.answer.result !== null) this.keep(poolId, key, led)
      return this.served(poolId, caching, led, rpc, 'MISS')
    } finally {
      this.inFlight.delete(key)
    }
  }

  /** Drops the pool's kept answers (its cache purged or turned off); answers how many. */
  forget (poolId: number): number {
    const dropped = this.kept.get(poolId)?.size ?? 0
    this.kept.delete(poolId)
    this.keptCount -= dropped
    return dropped
  }

  private keep (poolId: number, key: string, shared: Shared): void {
    let pool = this.kept.get(poolId)
    if (pool === undefined) this.kept.set(poolId, pool = new Map())
    if (pool.has(key) || this.keptCount >= MAX_KEPT) return
    pool.set(key, shared)
    this.keptCount++
  }

  private served (poolId: number, caching: boolean, shared: Shared, rpc: RpcCallInfo, cache: 'HIT' | 'MISS'): ServedAnswer {
    // The call that went upstream is counted by the cache stage in front of the attempts (a POST: BYPASS).
    if (caching && cache === 'HIT') this.count(poolId, cache)
    return served(shared, rpc, cache)
  }

  /** The call upstream, apart from its client; a provider's JSON answer made shareable, anything else as it is. */
  private async lead (poolId: number, incoming: ProxyRequest, run: Run): Promise<ServedAnswer | Shared> {
    // Apart from its client (no signal, never gone) and on the pool's own deadline: the answer is shared.
    const answer = await run(poolId, { ...requestCopy(incoming), headers: withoutDeadline(incoming.headers) })
    if (answer.kind !== 'answer' || answer.body === null || answer.status !== 200) return answer
    const body = Buffer.isBuffer(answer.body) ? answer.body : await readBounded(answer.body, MAX_SHARED_BYTES)
    if (!Buffer.isBuffer(body)) return { ...answer, body: body as Readable }
    let parsed: unknown
    try { parsed = JSON.parse(body.toString('utf8')) } catch { return { ...answer, body } }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ...answer, body }
    // What is the leader's own (a cookie, an answer private to it) is not shared.
    const { 'set-cookie': _cookie, ...headers } = answer.headers
    if (/private|no-store/i.test(String(headers['cache-control'] ?? ''))) return { ...answer, body }
    return { status: answer.status, headers, answer: parsed as Record<string, unknown>, provider: answer.provider, attempts: answer.attempts }
  }
}

/** What the stage reads of the pool's row. */
export type SharingPool = Pick<CachingPool, 'enabled' | 'cache_ttl_seconds' | 'forward_client_auth'>

/**
 * The call's key: the pool, the path and query it was sent to, the method and its params
 * written canonically; undefined for params too deep to write (not shared).
 */
function keyOf (poolId: number, incoming: ProxyRequest, rpc: RpcCallInfo): string | undefined {
  const params = canonicalParams(rpc.call.params ?? [])
  return params === undefined ? undefined : `${poolId}\n${incoming.url}\n${rpc.method}\n${params}`
}

/** A shared answer as one client's: its own id, and what the stage did. */
function served (shared: Shared, rpc: RpcCallInfo, cache: 'HIT' | 'MISS'): ServedAnswer {
  const body = Buffer.from(JSON.stringify({ ...shared.answer, id: rpc.call.id ?? null }))
  const { 'content-length': _length, ...headers } = shared.headers
  return { kind: 'answer', status: shared.status, headers, body, provider: shared.provider, attempts: cache === 'MISS' ? shared.attempts : 0, cache }
}
