/**
 * Rotation strategies as pure functions: given the eligible members and the pool's
 * stored cursor state, each returns the chosen member and the next state. They
 * touch no database and no clock, so they are unit-tested directly.
 */

export const STRATEGIES = ['round_robin', 'weighted', 'priority', 'least_used', 'random', 'least_latency', 'least_outstanding', 'consistent_hash'] as const
export type Strategy = typeof STRATEGIES[number]

/** What a strategy may look at for one member. */
export interface Candidate {
  readonly member_id: number
  readonly priority: number
  readonly weight: number
  readonly use_count: number
  /** The member's moving average latency (reports, proxied requests), null before any. */
  readonly latency_ms?: number | null
  /** Requests in flight to the member through this process's proxy; absent outside the proxy. */
  readonly outstanding?: number
}

/** The cursor kept per pool (stored as JSON): the last choice, and smooth-WRR weights. */
export interface RotationState {
  readonly last_member_id?: number
  /** member_id → current weight (smooth weighted round robin). */
  readonly weights?: Readonly<Record<string, number>>
}

export interface Choice {
  readonly member_id: number
  readonly state: RotationState
}

type Chooser = (sorted: readonly Candidate[], state: RotationState, random: () => number, key: string | undefined) => Choice

/** The choice of `chosen`, remembered as the cursor's last member. */
function chose (chosen: Candidate, state: RotationState): Choice {
  return { member_id: chosen.member_id, state: { ...state, last_member_id: chosen.member_id } }
}

/** The member after `last` in member_id order, wrapping around. */
function nextAfter (sorted: readonly Candidate[], last: number | undefined): Candidate {
  const next = last === undefined ? undefined : sorted.find((c) => c.member_id > last)
  return next ?? (sorted[0] as Candidate)
}

const roundRobin: Chooser = (sorted, state) => {
  const chosen = nextAfter(sorted, state.last_member_id)
  return chose(chosen, state)
}

/**
 * NGINX's smooth weighted round robin: every candidate gains its weight, the
 * largest current weight wins (the lowest member_id on ties) and pays back the total.
 * Over any sum(weights) consecutive picks each member is chosen exactly `weight` times.
 */
const weighted: Chooser = (sorted, state) => {
  const weights: Record<string, number> = { ...state.weights }
  let total = 0
  let best: Candidate | undefined
  for (const c of sorted) {
    const current = (weights[c.member_id] ?? 0) + c.weight
    weights[c.member_id] = current
    total += c.weight
    if (best === undefined || current > (weights[best.member_id] as number)) best = c
  }
  const chosen = best as Candidate
  weights[chosen.member_id] = (weights[chosen.member_id] as number) - total
  return { member_id: chosen.member_id, state: { ...state, last_member_id: chosen.member_id, weights } }
}

/** The highest priority number wins; members sharing it take turns round-robin. */
const priority: Chooser = (sorted, state) => {
  const top = Math.max(...sorted.map((c) => c.priority))
  return roundRobin(sorted.filter((c) => c.priority === top), state, Math.random, undefined)
}

/** The smallest use_count wins; ties go to the lowest member_id. */
const leastUsed: Chooser = (sorted, state) => {
  let chosen = sorted[0] as Candidate
  for (const c of sorted) if (c.use_count < chosen.use_count) chosen = c
  return chose(chosen, state)
}

/** Uniform among the candidates. */
const uniform: Chooser = (sorted, state, random) => {
  const index = Math.min(sorted.length - 1, Math.floor(random() * sorted.length))
  const chosen = sorted[index] as Candidate
  return chose(chosen, state)
}

/**
 * The share of least_latency picks made uniformly at random: enough for a slow member
 * to keep being measured (so its average can recover), little enough to cost nothing.
 */
export const LATENCY_EXPLORE = 0.05

/** Two distinct candidates drawn uniformly at random (there are at least two). */
function drawPair (sorted: readonly Candidate[], random: () => number): [Candidate, Candidate] {
  const first = Math.min(sorted.length - 1, Math.floor(random() * sorted.length))
  let second = Math.min(sorted.length - 2, Math.floor(random() * (sorted.length - 1)))
  if (second >= first) second++
  return [sorted[first] as Candidate, sorted[second] as Candidate]
}

/**
 * Power of two choices over latency: two distinct members drawn at random, the lower
 * average wins (ties: the lower member_id). Members without a measurement are tried
 * first, in turn. One pick in 20 goes to any member at random, so even in a pool of two
 * (where the better of two distinct members is always the same one) the slower member
 * still gets a little traffic and its average follows what it does now.
 */
const leastLatency: Chooser = (sorted, state, random) => {
  const unmeasured = sorted.filter((c) => c.latency_ms == null)
  if (unmeasured.length > 0) return roundRobin(unmeasured, state, random, undefined)
  if (sorted.length === 1 || random() < LATENCY_EXPLORE) return uniform(sorted, state, random, undefined)
  const [a, b] = drawPair(sorted, random)
  const la = a.latency_ms as number
  const lb = b.latency_ms as number
  const chosen = la < lb || (la === lb && a.member_id < b.member_id) ? a : b
  return chose(chosen, state)
}

/**
 * Envoy's least request: two distinct members drawn at random, the one with fewer
 * requests in flight through this process's proxy wins (ties: the smaller use_count,
 * then the lower member_id). Outside the proxy nothing is in flight: least_used.
 */
const leastOutstanding: Chooser = (sorted, state, random) => {
  if (sorted.length === 1 || sorted.some((c) => c.outstanding === undefined)) return leastUsed(sorted, state, random, undefined)
  const [a, b] = drawPair(sorted, random)
  const ao = a.outstanding as number
  const bo = b.outstanding as number
  const chosen = ao !== bo
    ? (ao < bo ? a : b)
    : a.use_count !== b.use_count ? (a.use_count < b.use_count ? a : b) : (a.member_id < b.member_id ? a : b)
  return chose(chosen, state)
}

/** Longest key consistent_hash takes (the rotate body's `key`, the proxy's `x-sourcepool-key`). */
export const MAX_HASH_KEY_LENGTH = 256

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

/**
 * Rendezvous (highest random weight) hashing: the member with the highest score for
 * the key wins (ties: the lower member_id). A key stays on its member while the
 * membership is stable; when a member leaves only its keys move, and when one joins
 * it takes about 1/N of them. Without a key: round robin.
 */
const consistentHash: Chooser = (sorted, state, random, key) => {
  if (key === undefined) return roundRobin(sorted, state, random, key)
  let chosen = sorted[0] as Candidate
  let best = hashScore(key, chosen.member_id)
  for (const c of sorted) {
    const score = hashScore(key, c.member_id)
    if (score > best) {
      best = score
      chosen = c
    }
  }
  return chose(chosen, state)
}

/** Whether a least_latency choice among `candidates` is a draw (every one measured, two or more). */
export function latencyChoiceIsDrawn (candidates: ReadonlyArray<{ readonly latency_ms?: number | null }>): boolean {
  return candidates.length > 1 && candidates.every((c) => c.latency_ms != null)
}

const CHOOSERS: Record<Strategy, Chooser> = {
  round_robin: roundRobin,
  weighted,
  priority,
  least_used: leastUsed,
  random: uniform,
  least_latency: leastLatency,
  least_outstanding: leastOutstanding,
  consistent_hash: consistentHash
}

/**
 * Chooses among `candidates` (already filtered to the eligible ones) by `strategy`.
 * Returns undefined when there is no candidate. `random` is injectable for tests.
 */
export function chooseMember (
  strategy: Strategy,
  candidates: readonly Candidate[],
  state: RotationState,
  random: () => number = Math.random,
  key?: string
): Choice | undefined {
  if (candidates.length === 0) return undefined
  const sorted = [...candidates].sort((a, b) => a.member_id - b.member_id)
  return CHOOSERS[strategy](sorted, state, random, key)
}

/** Parses a stored cursor; anything unreadable starts the strategy afresh. */
export function parseRotationState (text: string | null | undefined): RotationState {
  if (!text) return {}
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value as RotationState : {}
  } catch {
    return {}
  }
}

/** Drops cursor entries of members that no longer exist, so the state stays small. */
export function pruneRotationState (state: RotationState, memberIds: readonly number[]): RotationState {
  if (state.weights === undefined) return state
  const keep = new Set(memberIds.map(String))
  const weights = Object.fromEntries(Object.entries(state.weights).filter(([id]) => keep.has(id)))
  return { ...state, weights }
}
