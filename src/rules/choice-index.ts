/**
 * Member choice whose cost does not grow with the pool (issue 28): a pool's members
 * sorted once, when the pool is read, with the structures each strategy needs built
 * on first use (priority groups, a use_count heap, the unmeasured members, the
 * rendezvous ranking of recent keys), so one choice costs O(log n) plus the members
 * found out on the way — never an assessment, a copy or a sort of every member.
 *
 * Eligibility is asked of the members a strategy looks at only (`isOut`), live, so a
 * member whose health changed in place is judged as it is now. The members known to
 * be out are kept in a small set, checked again on every choice (they may be back), so
 * the strategies that need the number of eligible members (random and the draws of
 * two) map a random number onto the eligible ones exactly as a full list would. A
 * member found out that was not in the set joins it and the draw is made again:
 * uniform over the eligible all the same. Outcomes are those of before issue 28: the
 * same sequence for round_robin, priority, least_used and consistent_hash, the same
 * sequence for random and the draws of two when the set is exact (the API's index is
 * built with every member assessed), the same distribution otherwise; weighted keeps
 * smooth weighted round robin's distribution (each member exactly its weight times per
 * cycle) with turns on a weight line in place of a weight per member (see weighted()).
 */

/** What a strategy reads of a member. */
export interface Chooseable {
  readonly id: number
  readonly provider_id: number
  readonly priority: number
  readonly weight: number
  readonly use_count: number
  readonly latency_ms?: number | null
}

/** The cursor kept per pool (stored as JSON): the last choice, and the weighted strategy's turn. */
export interface RotationState {
  readonly last_member_id?: number
  /** weighted: the turn on the weight line (0 ≤ turn < the eligible members' total weight when it was taken). */
  readonly turn?: number
}

/** What one choice may consult beyond the members and the cursor. */
export interface ChoiceContext<M> {
  /** Whether `m` may not be chosen now (ineligible, excluded, refusing): asked of the members looked at only. */
  readonly isOut: (m: M) => boolean
  /** Providers left out of this choice (excluded, refusing), whose members count as out when counting the eligible. */
  readonly outProviders?: Iterable<number>
  readonly random: () => number
  readonly key?: string
  /** Requests in flight to a member through this process's proxy; absent outside the proxy. */
  readonly outstanding?: (m: M) => number
}

export interface IndexedChoice<M> {
  readonly member: M
  readonly state: RotationState
}

/**
 * The share of least_latency picks made uniformly at random: enough for a slow member
 * to keep being measured (so its average can recover), little enough to cost nothing.
 */
export const LATENCY_EXPLORE = 0.05

/** How many keys' rendezvous rankings one pool keeps (the oldest goes first). */
const HASH_KEYS_KEPT = 4096
/** How many of a key's best-scored members are kept ranked. */
const HASH_RANKED = 8
/** Draws a random strategy makes before it lists the eligible members outright. */
const MAX_REDRAWS = 8

/**
 * A member's score for a key (rendezvous hashing): FNV-1a over the key and the
 * member id, then murmur3's finaliser so nearby ids spread over the whole range.
 */
export function hashScore (key: string, memberId: number): number {
  let h = 0x811c9dc5
  const text = `${key}\u0000${memberId}`
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** The first position in the ascending `ids` whose id is above `id`. */
function upperBound (ids: readonly number[], id: number): number {
  let lo = 0
  let hi = ids.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((ids[mid] as number) <= id) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A group of members sharing one priority: their positions in the index, ascending. */
interface PriorityGroup { readonly priority: number, readonly positions: number[], readonly ids: number[] }

/** The members of one pool, sorted by id, and what choosing among them needs. */
export class ChoiceIndex<M extends Chooseable> {
  /** The members, by id. */
  readonly members: readonly M[]
  readonly ids: readonly number[]
  private readonly byId = new Map<number, number>()
  private readonly byProvider = new Map<number, number[]>()
  /** Positions of members known (or suspected) to be out, checked again at every choice. */
  private readonly out = new Set<number>()
  private groups: PriorityGroup[] | undefined
  /** least_used: positions in a binary heap by (use_count as last seen, id). */
  private heap: number[] | undefined
  private heapKeys: number[] | undefined
  /** least_latency: positions of members without a measurement when last looked at, ascending. */
  private unmeasured: number[] | undefined
  private readonly hashRanks = new Map<string, number[]>()

  constructor (members: readonly M[]) {
    this.members = [...members].sort((a, b) => a.id - b.id)
    this.ids = this.members.map((m) => m.id)
    this.members.forEach((m, p) => {
      this.byId.set(m.id, p)
      const list = this.byProvider.get(m.provider_id)
      if (list === undefined) this.byProvider.set(m.provider_id, [p])
      else list.push(p)
    })
  }

  /** The member with id `id`, if any. */
  member (id: number): M | undefined {
    const p = this.byId.get(id)
    return p === undefined ? undefined : this.members[p]
  }

  /** Notes that `id` may be out (a cooldown started, a quota used up): it is checked at each choice until it is back. */
  suspect (id: number): void {
    const p = this.byId.get(id)
    if (p !== undefined) this.out.add(p)
  }

  /** Notes every member `isOut` says is out now: one pass, when the index is built. */
  assessAll (isOut: (m: M) => boolean): this {
    this.members.forEach((m, p) => { if (isOut(m)) this.out.add(p) })
    return this
  }

  /**
   * Chooses by `strategy` from `state`; undefined when no member is eligible (the
   * caller then plans in full: a degraded choice, or when the soonest comes back).
   */
  choose (strategy: string, state: RotationState, ctx: ChoiceContext<M>): IndexedChoice<M> | undefined {
    if (this.members.length === 0) return undefined
    switch (strategy) {
      case 'weighted': return this.weighted(state, ctx)
      case 'priority': return this.done(this.priority(state.last_member_id, ctx), state)
      case 'least_used': return this.done(this.leastUsed(ctx), state)
      case 'random': return this.done(this.uniform(ctx), state)
      case 'least_latency': return this.done(this.leastLatency(state.last_member_id, ctx), state)
      case 'least_outstanding': return this.done(this.leastOutstanding(ctx), state)
      case 'consistent_hash': return this.done(ctx.key === undefined ? this.roundRobin(state.last_member_id, ctx) : this.hashed(ctx.key, ctx), state)
      default: return this.done(this.roundRobin(state.last_member_id, ctx), state)
    }
  }

  private done (chosen: M | undefined, state: RotationState): IndexedChoice<M> | undefined {
    return chosen === undefined ? undefined : { member: chosen, state: { ...state, last_member_id: chosen.id } }
  }

  /** Whether the member at `p` is out now; one found out is remembered. */
  private outAt (p: number, ctx: ChoiceContext<M>): boolean {
    if (!ctx.isOut(this.members[p] as M)) return false
    this.out.add(p)
    return true
  }

  /** The member after `last` in id order among `positions` (ascending, with their `ids`), wrapping, skipping those out. */
  private nextIn (positions: readonly number[], ids: readonly number[], last: number | undefined, ctx: ChoiceContext<M>): M | undefined {
    const n = positions.length
    if (n === 0) return undefined
    const start = last === undefined ? 0 : upperBound(ids, last) % n
    for (let i = 0; i < n; i++) {
      const p = positions[(start + i) % n] as number
      if (!this.outAt(p, ctx)) return this.members[p]
    }
    return undefined
  }

  private allPositions: number[] | undefined
  private roundRobin (last: number | undefined, ctx: ChoiceContext<M>): M | undefined {
    this.allPositions ??= this.members.map((_, p) => p)
    return this.nextIn(this.allPositions, this.ids, last, ctx)
  }

  /** The highest priority number with an eligible member wins; its members take turns. */
  private priority (last: number | undefined, ctx: ChoiceContext<M>): M | undefined {
    if (this.groups === undefined) {
      const byPriority = new Map<number, PriorityGroup>()
      this.members.forEach((m, p) => {
        let group = byPriority.get(m.priority)
        if (group === undefined) byPriority.set(m.priority, group = { priority: m.priority, positions: [], ids: [] })
        group.positions.push(p)
        group.ids.push(m.id)
      })
      this.groups = [...byPriority.values()].sort((a, b) => b.priority - a.priority)
    }
    for (const group of this.groups) {
      const chosen = this.nextIn(group.positions, group.ids, last, ctx)
      if (chosen !== undefined) return chosen
    }
    return undefined
  }

  /** The positions out now, ascending: the known ones checked again, and the members of the providers left out. */
  private outNow (ctx: ChoiceContext<M>): number[] {
    for (const p of this.out) if (!ctx.isOut(this.members[p] as M)) this.out.delete(p)
    if (ctx.outProviders === undefined) return [...this.out].sort((a, b) => a - b)
    const all = new Set(this.out)
    for (const id of ctx.outProviders) for (const p of this.byProvider.get(id) ?? []) all.add(p)
    return [...all].sort((a, b) => a - b)
  }

  /** The position of the k-th eligible member (0-based), given the positions out, ascending. */
  private static eligibleAt (k: number, outs: readonly number[]): number {
    let p = k
    for (const q of outs) {
      if (q <= p) p++
      else break
    }
    return p
  }

  /**
   * Draws `count` distinct eligible members (1 or 2) as a full list of the eligible
   * would: uniformly, the second among the others. A member drawn that turns out to be
   * out joins the known ones and the draw is made again. Undefined when fewer are eligible.
   */
  private draw (ctx: ChoiceContext<M>, count: 1 | 2): M[] | undefined {
    for (let attempt = 0; ; attempt++) {
      const outs = attempt < MAX_REDRAWS ? this.outNow(ctx) : this.listOut(ctx)
      const eligible = this.members.length - outs.length
      if (eligible < count) return undefined
      if (count === 1) {
        const k = Math.min(eligible - 1, Math.floor(ctx.random() * eligible))
        const p = ChoiceIndex.eligibleAt(k, outs)
        if (this.outAt(p, ctx)) continue
        return [this.members[p] as M]
      }
      const first = Math.min(eligible - 1, Math.floor(ctx.random() * eligible))
      let second = Math.min(eligible - 2, Math.floor(ctx.random() * (eligible - 1)))
      if (second >= first) second++
      const a = ChoiceIndex.eligibleAt(first, outs)
      const b = ChoiceIndex.eligibleAt(second, outs)
      if (this.outAt(a, ctx) || this.outAt(b, ctx)) continue
      return [this.members[a] as M, this.members[b] as M]
    }
  }

  /** Every position out now (one pass over the pool): after draws kept finding members out. */
  private listOut (ctx: ChoiceContext<M>): number[] {
    this.out.clear()
    this.members.forEach((m, p) => { if (ctx.isOut(m)) this.out.add(p) })
    return this.outNow(ctx)
  }

  /** The number of eligible members, when it is 0, 1 or more (counted exactly when the known set is exact). */
  private eligibleCount (ctx: ChoiceContext<M>): number {
    return this.members.length - this.outNow(ctx).length
  }

  private uniform (ctx: ChoiceContext<M>): M | undefined {
    return this.draw(ctx, 1)?.[0]
  }

  /** The smallest use_count wins; ties go to the lowest member_id. */
  private leastUsed (ctx: ChoiceContext<M>): M | undefined {
    if (this.heap === undefined || this.heapKeys === undefined) {
      this.heapKeys = this.members.map((m) => m.use_count)
      this.heap = this.members.map((_, p) => p)
      for (let i = (this.heap.length >>> 1) - 1; i >= 0; i--) this.siftDown(i)
    }
    const heap = this.heap
    const keys = this.heapKeys
    const aside: number[] = []
    let chosen: M | undefined
    while (heap.length > 0) {
      const top = heap[0] as number
      const member = this.members[top] as M
      // Counts only grow in place: a stale key is raised and the heap repaired, so the top is the true minimum.
      if (keys[top] !== member.use_count) {
        keys[top] = member.use_count
        this.siftDown(0)
        continue
      }
      if (!this.outAt(top, ctx)) {
        chosen = member
        break
      }
      aside.push(this.pop())
    }
    for (const p of aside) this.push(p)
    return chosen
  }

  private less (a: number, b: number): boolean {
    const keys = this.heapKeys as number[]
    const ka = keys[a] as number
    const kb = keys[b] as number
    return ka < kb || (ka === kb && (this.ids[a] as number) < (this.ids[b] as number))
  }

  private siftDown (i: number): void {
    const heap = this.heap as number[]
    const n = heap.length
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let smallest = i
      if (l < n && this.less(heap[l] as number, heap[smallest] as number)) smallest = l
      if (r < n && this.less(heap[r] as number, heap[smallest] as number)) smallest = r
      if (smallest === i) return
      const swap = heap[i] as number
      heap[i] = heap[smallest] as number
      heap[smallest] = swap
      i = smallest
    }
  }

  private pop (): number {
    const heap = this.heap as number[]
    const top = heap[0] as number
    const last = heap.pop() as number
    if (heap.length > 0) {
      heap[0] = last
      this.siftDown(0)
    }
    return top
  }

  private push (p: number): void {
    const heap = this.heap as number[]
    heap.push(p)
    let i = heap.length - 1
    while (i > 0) {
      const parent = (i - 1) >>> 1
      if (!this.less(heap[i] as number, heap[parent] as number)) return
      const swap = heap[i] as number
      heap[i] = heap[parent] as number
      heap[parent] = swap
      i = parent
    }
  }

  /**
   * Power of two choices over latency: members without a measurement first, in turn;
   * else one pick in 20 uniform, the others the lower average of two drawn (ties: the lower id).
   */
  private leastLatency (last: number | undefined, ctx: ChoiceContext<M>): M | undefined {
    this.unmeasured ??= this.members.flatMap((m, p) => m.latency_ms == null ? [p] : [])
    // A measurement, once made, stays (only a new read clears it): drop the measured ones for good.
    if (this.unmeasured.some((p) => this.members[p]?.latency_ms != null)) this.unmeasured = this.unmeasured.filter((p) => this.members[p]?.latency_ms == null)
    if (this.unmeasured.length > 0) {
      const chosen = this.nextIn(this.unmeasured, this.unmeasured.map((p) => this.ids[p] as number), last, ctx)
      if (chosen !== undefined) return chosen
    }
    const eligible = this.eligibleCount(ctx)
    if (eligible === 0) return this.uniform(ctx)
    if (eligible === 1 || ctx.random() < LATENCY_EXPLORE) return this.uniform(ctx)
    const pair = this.draw(ctx, 2)
    if (pair === undefined) return this.uniform(ctx)
    const [a, b] = pair as [M, M]
    const la = a.latency_ms as number
    const lb = b.latency_ms as number
    return la < lb || (la === lb && a.id < b.id) ? a : b
  }

  /**
   * Envoy's least request: of two members drawn, fewer requests in flight wins (ties:
   * the smaller use_count, then the lower id). Outside the proxy: least_used.
   */
  private leastOutstanding (ctx: ChoiceContext<M>): M | undefined {
    const outstanding = ctx.outstanding
    if (outstanding === undefined || this.eligibleCount(ctx) <= 1) return this.leastUsed(ctx)
    const pair = this.draw(ctx, 2)
    if (pair === undefined) return this.leastUsed(ctx)
    const [a, b] = pair as [M, M]
    const ao = outstanding(a)
    const bo = outstanding(b)
    return ao !== bo
      ? (ao < bo ? a : b)
      : a.use_count !== b.use_count ? (a.use_count < b.use_count ? a : b) : (a.id < b.id ? a : b)
  }

  /**
   * Rendezvous hashing: the eligible member with the highest score for the key (ties:
   * the lower id). A key's best few are ranked once and kept; a key whose best few are
   * all out is scored over the whole pool.
   */
  private hashed (key: string, ctx: ChoiceContext<M>): M | undefined {
    let ranked = this.hashRanks.get(key)
    if (ranked === undefined) {
      const scored = this.members.map((m, p) => ({ p, score: hashScore(key, m.id) }))
      scored.sort((a, b) => b.score - a.score || a.p - b.p)
      ranked = scored.slice(0, HASH_RANKED).map((s) => s.p)
      if (this.hashRanks.size >= HASH_KEYS_KEPT) this.hashRanks.delete(this.hashRanks.keys().next().value as string)
      this.hashRanks.set(key, ranked)
    }
    for (const p of ranked) if (!this.outAt(p, ctx)) return this.members[p]
    let chosen: M | undefined
    let best = -1
    this.members.forEach((m, p) => {
      if (this.outAt(p, ctx)) return
      const score = hashScore(key, m.id)
      if (score > best) {
        best = score
        chosen = m
      }
    })
    return chosen
  }

  /**
   * Weighted turns over the weight line: the eligible members laid end to end in id
   * order, each over as many positions as its weight (W in all), and turn t takes
   * position t·s mod W, where the stride s shares no factor with W and is the most
   * golden-like integer near W/φ (goldenStride). So W turns in a row visit every
   * position once (each member exactly its weight times, as smooth weighted round
   * robin did), and a golden-ratio stride spreads a member's turns evenly over them
   * (the visits to any stretch of the line are at most three distinct gaps apart).
   * The cursor is one number, and a choice a search of a Fenwick tree of the weights
   * (an out member's taken out): O(log n).
   */
  private weighted (state: RotationState, ctx: ChoiceContext<M>): IndexedChoice<M> | undefined {
    const line = this.weightLine ??= new WeightLine(this.members.map((m) => m.weight))
    // The members known out are asked again: those back leave the set and return to the line, the others leave it.
    for (const p of this.out) {
      if (ctx.isOut(this.members[p] as M)) line.takeOut(p)
      else {
        this.out.delete(p)
        line.restore(p)
      }
    }
    // Members taken out for an earlier choice only (their provider excluded then) come back when they are in.
    for (const p of line.outs()) if (!this.out.has(p) && !ctx.isOut(this.members[p] as M)) line.restore(p)
    if (ctx.outProviders !== undefined) for (const id of ctx.outProviders) for (const p of this.byProvider.get(id) ?? []) line.takeOut(p)
    const turn = Number.isSafeInteger(state.turn) && (state.turn as number) > 0 ? state.turn as number : 0
    for (;;) {
      const total = line.total
      if (total <= 0) return undefined
      const t = turn % total
      const p = line.at(mulMod(t, line.stride(total), total))
      if (this.outAt(p, ctx)) {
        line.takeOut(p)
        continue
      }
      const chosen = this.members[p] as M
      return { member: chosen, state: { ...state, last_member_id: chosen.id, turn: (t + 1) % total } }
    }
  }

  private weightLine: WeightLine | undefined
}

/** 1/φ: the stride's share of the line. */
const GOLDEN = (Math.sqrt(5) - 1) / 2

function gcd (a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b]
  return a
}

/** (a · b) mod m for 0 ≤ a, b < m, exactly (beyond 2^53 through BigInt). */
function mulMod (a: number, b: number, m: number): number {
  const product = a * b
  if (product <= Number.MAX_SAFE_INTEGER) return product % m
  return Number((BigInt(a) * BigInt(b)) % BigInt(m))
}

/** How many totals' strides a weight line keeps. */
const STRIDES_KEPT = 16
/** How far from total/φ the stride is looked for. */
const STRIDE_WINDOW = 32

/** The largest partial quotient of the continued fraction of s/total: the smaller, the more evenly a stride of s spreads. */
function largestQuotient (s: number, total: number): number {
  let [a, b] = [s, total]
  let largest = 0
  while (a !== 0) {
    largest = Math.max(largest, Math.floor(b / a));
    [a, b] = [b % a, a]
  }
  return largest
}

/**
 * The stride for a line of `total` positions: of the integers within 32 of total/φ
 * that share no factor with `total`, the one whose ratio to it is the most like the
 * golden ratio's (the smallest largest partial quotient; the nearest on ties), 1 for
 * a line of 1 or 2. The golden ratio's partial quotients are all 1, which is what
 * makes its multiples the most evenly spread; near-golden integers can be poor ones.
 */
function goldenStride (total: number): number {
  if (total <= 2) return 1
  const near = Math.round(total * GOLDEN)
  let best = 0
  let bestQuotient = Infinity
  for (let d = 0; d <= STRIDE_WINDOW; d++) {
    for (const s of d === 0 ? [near] : [near - d, near + d]) {
      if (s < 1 || s >= total || gcd(s, total) !== 1) continue
      const quotient = largestQuotient(s, total)
      if (quotient < bestQuotient) [best, bestQuotient] = [s, quotient]
    }
  }
  // A window of 65 integers always holds one sharing no factor with totals this size (Jacobsthal's function); 1 always does.
  return best === 0 ? 1 : best
}

/** The members' weights end to end, as a Fenwick tree: the member at a position, the total, a member taken out or back. */
class WeightLine {
  private readonly tree: Float64Array
  private readonly weights: readonly number[]
  private readonly taken = new Set<number>()
  private highBit = 1
  private readonly strides = new Map<number, number>()
  total = 0

  constructor (weights: readonly number[]) {
    this.weights = weights
    const n = weights.length
    this.tree = new Float64Array(n + 1)
    for (let i = 1; i <= n; i++) {
      this.tree[i] = (this.tree[i] as number) + (weights[i - 1] as number)
      const parent = i + (i & -i)
      if (parent <= n) this.tree[parent] = (this.tree[parent] as number) + (this.tree[i] as number)
      this.total += weights[i - 1] as number
    }
    while (this.highBit * 2 <= n) this.highBit *= 2
  }

  outs (): number[] { return [...this.taken] }

  takeOut (p: number): void {
    if (this.taken.has(p)) return
    this.taken.add(p)
    this.add(p, -(this.weights[p] as number))
  }

  restore (p: number): void {
    if (!this.taken.delete(p)) return
    this.add(p, this.weights[p] as number)
  }

  private add (p: number, delta: number): void {
    this.total += delta
    for (let i = p + 1; i < this.tree.length; i += i & -i) this.tree[i] = (this.tree[i] as number) + delta
  }

  /** The position of the member covering `offset` (0 ≤ offset < total). */
  at (offset: number): number {
    let p = 0
    let left = offset
    for (let step = this.highBit; step > 0; step >>= 1) {
      const next = p + step
      if (next < this.tree.length && (this.tree[next] as number) <= left) {
        p = next
        left -= this.tree[next] as number
      }
    }
    return p
  }

  /** The stride for `total`, kept for the last few totals (members out and back, failovers excluding one, move it to and fro). */
  stride (total: number): number {
    let stride = this.strides.get(total)
    if (stride === undefined) {
      if (this.strides.size >= STRIDES_KEPT) this.strides.delete(this.strides.keys().next().value as number)
      this.strides.set(total, stride = goldenStride(total))
    }
    return stride
  }
}
