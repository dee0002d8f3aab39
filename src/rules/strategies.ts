/**
 * Rotation strategies as pure functions: given the eligible members and the pool's
 * stored cursor state, each returns the chosen member and the next state. They
 * touch no database and no clock, so they are unit-tested directly.
 */

export const STRATEGIES = ['round_robin', 'weighted', 'priority', 'least_used', 'random'] as const
export type Strategy = typeof STRATEGIES[number]

/** What a strategy may look at for one member. */
export interface Candidate {
  readonly member_id: number
  readonly priority: number
  readonly weight: number
  readonly use_count: number
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

type Chooser = (sorted: readonly Candidate[], state: RotationState, random: () => number) => Choice

/** The member after `last` in member_id order, wrapping around. */
function nextAfter (sorted: readonly Candidate[], last: number | undefined): Candidate {
  const next = last === undefined ? undefined : sorted.find((c) => c.member_id > last)
  return next ?? (sorted[0] as Candidate)
}

const roundRobin: Chooser = (sorted, state) => {
  const chosen = nextAfter(sorted, state.last_member_id)
  return { member_id: chosen.member_id, state: { ...state, last_member_id: chosen.member_id } }
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
  return roundRobin(sorted.filter((c) => c.priority === top), state, Math.random)
}

/** The smallest use_count wins; ties go to the lowest member_id. */
const leastUsed: Chooser = (sorted, state) => {
  let chosen = sorted[0] as Candidate
  for (const c of sorted) if (c.use_count < chosen.use_count) chosen = c
  return { member_id: chosen.member_id, state: { ...state, last_member_id: chosen.member_id } }
}

/** Uniform among the candidates. */
const uniform: Chooser = (sorted, state, random) => {
  const index = Math.min(sorted.length - 1, Math.floor(random() * sorted.length))
  const chosen = sorted[index] as Candidate
  return { member_id: chosen.member_id, state: { ...state, last_member_id: chosen.member_id } }
}

const CHOOSERS: Record<Strategy, Chooser> = {
  round_robin: roundRobin,
  weighted,
  priority,
  least_used: leastUsed,
  random: uniform
}

/**
 * Chooses among `candidates` (already filtered to the eligible ones) by `strategy`.
 * Returns undefined when there is no candidate. `random` is injectable for tests.
 */
export function chooseMember (
  strategy: Strategy,
  candidates: readonly Candidate[],
  state: RotationState,
  random: () => number = Math.random
): Choice | undefined {
  if (candidates.length === 0) return undefined
  const sorted = [...candidates].sort((a, b) => a.member_id - b.member_id)
  return CHOOSERS[strategy](sorted, state, random)
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
