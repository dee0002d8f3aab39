/**
 * Each `evm` pool's view of its nodes' heads (issue 36 item 6), in this process's
 * memory: every member's provider is asked `eth_blockNumber` every
 * `head_check_interval_s` (and, while the pool's cache is on, its `finalized`
 * block, until it says it has no such tag), and every `eth_blockNumber` answer a
 * client's call gets tells its node's head too. Heads are compared as of now (one
 * learned earlier moved on at the chain's pace). A node more than `max_block_lag`
 * blocks behind the pool's highest head is avoided for calls at the head, above its
 * own, or by hash, and any node for a block above its head (rules/evm-finality.ts);
 * avoided, not excluded: a call no other member can take goes to it
 * (forwarding.ts). The pool's finalized block (the highest a node not lagging
 * reports, else its head − `finality_depth`) decides which answers the cache keeps
 * for good (rpc-coalesce.ts).
 *
 * Checks cost the providers' quota, so a pool is watched only while it is used:
 * from its first call (which waits for the first round, a second at most, so that a
 * lagging node is known before it can answer) until HEAD_IDLE_MS without one. A
 * provider in several pools is asked once per interval (the shortest), not once per
 * pool. Each process watches on its own (WORKERS and instances each ask), named in
 * docs/decisions.md. A failed check changes nothing: the node's last head stays,
 * and it falls behind the others' as they move on.
 */
import { Agent, type Dispatcher } from 'undici'
import { blockAbove, isLagging, needsCurrentHead, quantity } from '../rules/evm-finality.js'
import { rpcVerdict } from '../rules/jsonrpc-errors.js'
import { parseBase, providerCredentials, upstreamTarget } from '../rules/upstream-url.js'

/** A pool unused this long is no longer watched (its nodes no longer asked). */
export const HEAD_IDLE_MS = 5 * 60_000
/** How long a pool's first call waits for the first round of checks. */
const FIRST_ROUND_WAIT_MS = 1000
/** A check's bound (or the member's own timeout, if shorter). */
const CHECK_TIMEOUT_MS = 5000
/** Checks in flight at once, per process. */
const MAX_CHECKS = 16
/** How often due checks are looked for. */
const TICK_MS = 250
/** A check's interval when no pool says one (never: a guard against a node no pool watches any more). */
const DEFAULT_INTERVAL_MS = 5000
/** The fastest chain pace believed, in blocks per ms (50 a second): a jump past it is a node coming back, not the chain. */
const MAX_PACE = 0.05
/** A node's own pace is measured between two of its heads at least this far apart. */
const PACE_MIN_SPAN_MS = 500
/** Largest check answer read. */
const MAX_CHECK_BYTES = 64 * 1024

/** What the tracker reads of a member. */
export interface HeadMember {
  readonly provider_id: number
  readonly provider_name: string | null
  readonly enabled: number
  readonly base_url: string | null
  readonly auth_headers: string | null
  readonly timeout_ms: number | null
}

/** What the tracker reads of an evm pool. */
export interface HeadPool {
  readonly head_check_interval_s: number
  readonly max_block_lag: number
  readonly finality_depth: number
  readonly cache_ttl_seconds: number
}

/** One node's head as known here. */
interface NodeHead {
  head: bigint | undefined
  /** The node's own pace (blocks per ms) and the head and time it was last measured from. */
  pace: number | undefined
  paceHead: bigint | undefined
  paceAt: number
  finalized: bigint | undefined
  /** False once the node answered the `finalized` tag with an error: not asked again. */
  tagsFinalized: boolean
  at: number
  nextAt: number
  checking: boolean
  member: HeadMember
  intervalMs: number
  wantsFinalized: boolean
}

interface Watched {
  pool: HeadPool
  lastUsed: number
  providers: readonly number[]
  /** The first round of checks while it runs. */
  first: Promise<void> | undefined
}

/** A member's head and lag, for the status record and metrics. */
export interface MemberHead { readonly provider_id: number, readonly provider_name: string | null, readonly head: string | null, readonly lag: number | null }

interface Deps {
  /** The pool's members (its runtime's), or undefined for a pool gone. */
  membersOf: (poolId: number) => Promise<readonly HeadMember[] | undefined>
  now?: () => number
  dispatcher?: Dispatcher
  warn?: (error: unknown, message: string) => void
}

export class HeadTracker {
  private readonly nodes = new Map<number, NodeHead>()
  private readonly watched = new Map<number, Watched>()
  private readonly dispatcher: Dispatcher
  private readonly ownDispatcher: boolean
  private readonly now: () => number
  private timer: NodeJS.Timeout | undefined
  private checks = 0
  private ticking = false

  constructor (private readonly deps: Deps) {
    this.now = deps.now ?? Date.now
    this.ownDispatcher = deps.dispatcher === undefined
    this.dispatcher = deps.dispatcher ?? new Agent({ connections: 4, keepAliveTimeout: 30_000 })
  }

  /**
   * Notes a call of the pool: watched from now on. Answers a promise while the pool's
   * first round of checks runs (bounded), for every call then; undefined afterwards.
   */
  use (poolId: number, pool: HeadPool): Promise<void> | undefined {
    const known = this.watched.get(poolId)
    if (known !== undefined) {
      known.lastUsed = this.now()
      known.pool = pool
      // Calls arriving while the first round runs wait for it too.
      return known.first
    }
    const watched: Watched = { pool, lastUsed: this.now(), providers: [], first: undefined }
    this.watched.set(poolId, watched)
    this.timer ??= setInterval(() => { this.tick().catch(() => {}) }, TICK_MS).unref()
    watched.first = this.firstRound(poolId).finally(() => { watched.first = undefined })
    return watched.first
  }

  /**
   * The providers this call should not go to (a preference: forwarding.ts turns to them when
   * no one else is left): a node lagging, for a call at the head, above its own or by hash;
   * any node, for a block above its head. Heads are compared as of now: one learned earlier
   * is moved on at the chain's pace, so nodes checked a moment apart on a fast chain are not
   * taken for lagging.
   */
  avoid (poolId: number, method: string, params: unknown): ReadonlySet<number> | undefined {
    const view = this.view(poolId)
    if (view === undefined) return undefined
    let out: Set<number> | undefined
    for (const [id, head] of view.now) {
      const lagging = isLagging(head, view.highest, view.maxLag)
      if (lagging ? needsCurrentHead(method, params, head) : blockAbove(method, params, head)) (out ??= new Set()).add(id)
    }
    return out
  }

  /**
   * The pool's finalized block: the highest that a node not lagging reports, else its head −
   * finality_depth; undefined while no head is known.
   */
  finalized (poolId: number): bigint | undefined {
    const view = this.view(poolId)
    if (view === undefined) return undefined
    const depth = BigInt(view.depth)
    let best: bigint | undefined
    for (const [id, head] of view.now) {
      if (isLagging(head, view.highest, view.maxLag)) continue
      const node = this.nodes.get(id) as NodeHead
      const final = node.finalized ?? ((node.head as bigint) >= depth ? (node.head as bigint) - depth : undefined)
      if (final !== undefined && (best === undefined || final > best)) best = final
    }
    return best
  }

  /** The highest head a node of the pool said (undefined while none is known). */
  highestHead (poolId: number): bigint | undefined {
    const watched = this.watched.get(poolId)
    return watched === undefined ? undefined : this.highestLearned(watched)
  }

  private highestLearned (watched: Watched): bigint | undefined {
    let highest: bigint | undefined
    for (const id of watched.providers) {
      const head = this.nodes.get(id)?.head
      if (head !== undefined && (highest === undefined || head > highest)) highest = head
    }
    return highest
  }

  /** A provider's head as last learned (undefined when not known). */
  headOf (providerId: number): bigint | undefined { return this.nodes.get(providerId)?.head }

  /** A node's head learned from an answer (`eth_blockNumber`'s result). */
  learned (providerId: number, result: unknown): void {
    const head = quantity(result)
    const node = this.nodes.get(providerId)
    if (head !== undefined && node !== undefined) this.setHead(node, head)
  }

  /** Each member's head and how far it is behind the pool's highest as of now (null when unknown), for status and metrics. */
  heads (poolId: number): MemberHead[] {
    const watched = this.watched.get(poolId)
    if (watched === undefined) return []
    const view = this.view(poolId)
    return watched.providers.map((id) => {
      const node = this.nodes.get(id) as NodeHead
      const now = view?.now.get(id)
      const lag = now === undefined || view === undefined ? null : Number(view.highest - now)
      return { provider_id: id, provider_name: node.member.provider_name, head: node.head?.toString() ?? null, lag }
    })
  }

  /** The pools watched now. */
  pools (): number[] { return [...this.watched.keys()] }

  close (): void {
    clearInterval(this.timer)
    this.timer = undefined
    this.watched.clear()
    if (this.ownDispatcher) this.dispatcher.close().catch(() => {})
  }

  /**
   * The pool's nodes' heads as of now: each known head moved on by the blocks the chain
   * made since it was learned, and the highest of them; undefined while none is known.
   * The chain's pace is the slowest own pace among the nodes within `max_block_lag` of
   * the highest head as learned: nodes in step on a fast chain all show it, while a
   * node catching up shows a jump the others do not, and a node stalled falls out.
   */
  private view (poolId: number): { now: Map<number, bigint>, highest: bigint, maxLag: number, depth: number } | undefined {
    const watched = this.watched.get(poolId)
    if (watched === undefined) return undefined
    const pace = this.paceOf(watched)
    const at = this.now()
    const now = new Map<number, bigint>()
    let highest: bigint | undefined
    for (const id of watched.providers) {
      const node = this.nodes.get(id)
      if (node?.head === undefined) continue
      const head = node.head + BigInt(Math.floor(pace * Math.max(0, at - node.at)))
      now.set(id, head)
      if (highest === undefined || head > highest) highest = head
    }
    return highest === undefined ? undefined : { now, highest, maxLag: watched.pool.max_block_lag, depth: watched.pool.finality_depth }
  }

  /** The chain's pace in the pool (see `view`), in blocks per ms; 0 while no node has shown one. */
  private paceOf (watched: Watched): number {
    const highest = this.highestLearned(watched)
    if (highest === undefined) return 0
    let pace: number | undefined
    for (const id of watched.providers) {
      const node = this.nodes.get(id)
      if (node?.head === undefined || node.pace === undefined || isLagging(node.head, highest, watched.pool.max_block_lag)) continue
      pace = pace === undefined ? node.pace : Math.min(pace, node.pace)
    }
    return pace ?? 0
  }

  /** A head the node said now (a check, or a client's eth_blockNumber answer): its own pace measured when far enough apart. */
  private setHead (node: NodeHead, head: bigint): void {
    const at = this.now()
    if (node.paceHead === undefined) {
      node.paceHead = head
      node.paceAt = at
    } else if (at - node.paceAt >= PACE_MIN_SPAN_MS) {
      node.pace = head > node.paceHead ? Math.min(MAX_PACE, Number(head - node.paceHead) / (at - node.paceAt)) : 0
      node.paceHead = head
      node.paceAt = at
    }
    node.head = head
    node.at = at
  }

  private async firstRound (poolId: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const bound = new Promise<void>((resolve) => { timer = setTimeout(resolve, FIRST_ROUND_WAIT_MS) })
    try {
      await Promise.race([this.refresh(poolId).then(async (ids) => { await Promise.all(ids.map(async (id) => await this.check(id))) }), bound])
    } catch (error) {
      this.deps.warn?.(error, 'head tracking: the first round failed')
    } finally {
      clearTimeout(timer)
    }
  }

  /** Reads the pool's members again; answers its providers now tracked. */
  private async refresh (poolId: number): Promise<readonly number[]> {
    const watched = this.watched.get(poolId)
    const members = await this.deps.membersOf(poolId)
    if (watched === undefined) return []
    if (members === undefined) { this.watched.delete(poolId); return [] }
    const ids: number[] = []
    for (const member of members) {
      if (member.enabled !== 1 || member.base_url === null) continue
      ids.push(member.provider_id)
      this.track(member, watched.pool)
    }
    watched.providers = ids
    return ids
  }

  private track (member: HeadMember, pool: HeadPool): void {
    const intervalMs = pool.head_check_interval_s * 1000
    const wantsFinalized = pool.cache_ttl_seconds > 0
    const node = this.nodes.get(member.provider_id)
    if (node === undefined) {
      this.nodes.set(member.provider_id, {
        head: undefined, pace: undefined, paceHead: undefined, paceAt: 0, finalized: undefined, tagsFinalized: true, at: 0, nextAt: 0, checking: false, member, intervalMs, wantsFinalized
      })
      return
    }
    node.member = member
  }

  /** Reads the watched pools' members again, forgets what no pool watches, and starts the checks that are due. */
  private async tick (): Promise<void> {
    if (this.ticking) return
    this.ticking = true
    try {
      const now = this.now()
      // Each node's settings from every pool that still watches it (a provider in several pools: the
      // shortest interval, finality if any pool caches), gathered apart and applied at once, after the reads.
      const settings = new Map<number, { intervalMs: number, wantsFinalized: boolean }>()
      for (const [poolId, watched] of this.watched) {
        if (now - watched.lastUsed > HEAD_IDLE_MS) { this.watched.delete(poolId); continue }
        for (const id of await this.refresh(poolId)) {
          const known = settings.get(id)
          const intervalMs = watched.pool.head_check_interval_s * 1000
          const wantsFinalized = watched.pool.cache_ttl_seconds > 0
          settings.set(id, known === undefined ? { intervalMs, wantsFinalized } : { intervalMs: Math.min(known.intervalMs, intervalMs), wantsFinalized: known.wantsFinalized || wantsFinalized })
        }
      }
      for (const [id, node] of this.nodes) {
        const set = settings.get(id)
        if (set === undefined) { this.nodes.delete(id); continue }
        node.intervalMs = set.intervalMs
        node.wantsFinalized = set.wantsFinalized
        if (!node.checking && node.nextAt <= now && this.checks < MAX_CHECKS) this.check(id).catch(() => {})
      }
      if (this.watched.size === 0) { clearInterval(this.timer); this.timer = undefined }
    } catch (error) {
      this.deps.warn?.(error, 'head tracking: a round of checks failed')
    } finally {
      this.ticking = false
    }
  }

  /** Asks one node its head (and its finalized block when wanted). Never throws. */
  private async check (providerId: number): Promise<void> {
    const node = this.nodes.get(providerId)
    if (node === undefined || node.checking) return
    node.checking = true
    // The next check counts from this one's start, whatever it waits for.
    node.nextAt = this.now() + (Number.isFinite(node.intervalMs) ? node.intervalMs : DEFAULT_INTERVAL_MS)
    this.checks++
    try {
      const head = quantity(await this.ask(node.member, 'eth_blockNumber', []))
      if (head !== undefined) this.setHead(node, head)
      if (node.wantsFinalized && node.tagsFinalized) {
        const block = await this.ask(node.member, 'eth_getBlockByNumber', ['finalized', false])
        // Only a node saying it has no such tag (invalid params, unsupported) is not asked again; a rate limit or a hiccup is asked next time.
        if (block instanceof RpcFailure) node.tagsFinalized = !['caller', 'unsupported'].includes(rpcVerdict(block.problem))
        else node.finalized = quantity((block as { number?: unknown } | null | undefined)?.number) ?? node.finalized
      }
    } finally {
      node.checking = false
      this.checks--
    }
  }

  /** One call to the node: its result, an RpcFailure for a JSON-RPC error, undefined when it could not be asked or read. */
  private async ask (member: HeadMember, method: string, params: unknown[]): Promise<unknown> {
    const baseUrl = member.base_url as string
    const signal = AbortSignal.timeout(Math.min(member.timeout_ms ?? CHECK_TIMEOUT_MS, CHECK_TIMEOUT_MS))
    try {
      const target = upstreamTarget(parseBase(baseUrl), '/')
      const { statusCode, body } = await this.dispatcher.request({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers: { ...providerCredentials(baseUrl, member.auth_headers), 'content-type': 'application/json', 'user-agent': 'sourcepool-head-check' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        signal
      })
      const chunks: Buffer[] = []
      let read = 0
      for await (const chunk of body) {
        read += (chunk as Buffer).length
        if (read > MAX_CHECK_BYTES) return undefined
        chunks.push(chunk as Buffer)
      }
      if (statusCode !== 200) return undefined
      const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { result?: unknown, error?: unknown }
      return answer.error !== undefined && answer.error !== null ? new RpcFailure(answer.error as RpcErrorObject) : answer.result
    } catch {
      return undefined
    }
  }
}

type RpcErrorObject = Parameters<typeof rpcVerdict>[0]

/** A JSON-RPC error a check got back. */
class RpcFailure {
  constructor (readonly problem: RpcErrorObject) {}
}
