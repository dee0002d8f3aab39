/**
 * Rotation strategies: their names, the cursor kept per pool, and `chooseAmong`,
 * the choice among a list of candidates. The choosing itself is in choice-index.ts,
 * whose index of a pool makes one choice cost O(log n) rather than a pass over every
 * member; this module touches no database and no clock, so it is unit-tested directly.
 */
import { ChoiceIndex, type Chooseable, type IndexedChoice, type RotationState } from './choice-index.js'

export { hashScore, LATENCY_EXPLORE, type RotationState } from './choice-index.js'

export const STRATEGIES = ['round_robin', 'weighted', 'priority', 'least_used', 'random', 'least_latency', 'least_outstanding', 'consistent_hash'] as const
export type Strategy = typeof STRATEGIES[number]

/** Longest key consistent_hash takes (the rotate body's `key`, the proxy's `x-sourcepool-key`). */
export const MAX_HASH_KEY_LENGTH = 256

/** Whether a least_latency choice among `candidates` is a draw (every one measured, two or more). */
export function latencyChoiceIsDrawn (candidates: ReadonlyArray<{ readonly latency_ms?: number | null }>): boolean {
  return candidates.length > 1 && candidates.every((c) => c.latency_ms != null)
}

const NEVER_OUT = (): boolean => false

/**
 * Chooses among `candidates` (already filtered to the eligible ones) by `strategy`,
 * through a one-off index of them; undefined when there is none. Least_outstanding
 * counts what is in flight when every candidate says.
 */
export function chooseAmong<M extends Chooseable & { readonly outstanding?: number }> (
  strategy: string,
  candidates: readonly M[],
  state: RotationState,
  random: () => number = Math.random,
  key?: string
): IndexedChoice<M> | undefined {
  if (candidates.length === 0) return undefined
  const counted = candidates.every((c) => c.outstanding !== undefined)
  return new ChoiceIndex(candidates).choose(strategy, state, {
    isOut: NEVER_OUT,
    random,
    key,
    outstanding: counted ? (m) => m.outstanding as number : undefined
  })
}

/**
 * Parses a stored cursor; anything unreadable starts the strategy afresh. The
 * per-member weights an earlier version kept for the weighted strategy are dropped.
 */
export function parseRotationState (text: string | null | undefined): RotationState {
  if (!text) return {}
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return {}
    const { weights: _earlier, ...state } = value as RotationState & { weights?: unknown }
    return state
  } catch {
    return {}
  }
}
