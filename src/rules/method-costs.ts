/**
 * What a call costs in a provider's credits (issue 36 item 8): a provider's
 * `method_costs` maps JSON-RPC method names, or patterns where `*` stands for any run
 * of characters (as `methods` writes them: rules/rpc-methods.ts), to a whole number
 * of credits. A call costs its exact name's entry, else the entry of the most
 * specific pattern that matches it (the most characters besides `*`; between equally
 * specific ones, the dearer), else `"*"`'s, else 1. A request that is not a JSON-RPC
 * call (an `http` pool's, a GET, a rotation) costs `"*"`'s, else 1. Only a
 * `rate_limit` counted in credits spends them (rules/quota.ts); with one counted in
 * requests every call is 1 and the costs only inform. Compiled once per stored value
 * (compileCosts) so a call's cost is a lookup, memoised per method up to a bound. Pure.
 */
import { matchesGlob } from './rpc-methods.js'

/** Most entries in one provider's `method_costs`. */
export const MAX_METHOD_COSTS = 256

/** The dearest a call may be said to cost, in credits (a call's cost is 1 to this). */
export const MAX_METHOD_COST = 1_000_000

/** A provider's costs compiled: exact names, patterns (most specific first), and the default. */
export interface CompiledCosts {
  readonly exact: ReadonlyMap<string, number>
  readonly patterns: ReadonlyArray<{ readonly pieces: readonly string[], readonly cost: number }>
  /** `"*"`'s cost, else 1. */
  readonly fallback: number
  /** method → cost, for the methods asked so far (at most MAX_REMEMBERED). */
  readonly known: Map<string, number>
}

/** Methods remembered per compiled value: a caller sending made-up names fills no more than this. */
const MAX_REMEMBERED = 256

/** Compiles a provider's `method_costs` (as stored: method or pattern → credits). */
export function compileCosts (costs: Readonly<Record<string, number>>): CompiledCosts {
  const exact = new Map<string, number>()
  const patterns: Array<{ pieces: string[], cost: number, literal: number }> = []
  let fallback = 1
  for (const [key, cost] of Object.entries(costs)) {
    if (!key.includes('*')) exact.set(key, cost)
    else if (/^\*+$/.test(key)) fallback = cost
    else patterns.push({ pieces: key.split('*'), cost, literal: key.replace(/\*/g, '').length })
  }
  // The most specific first; equally specific, the dearer first (order-free: the stored object's key order never matters).
  patterns.sort((a, b) => b.literal - a.literal || b.cost - a.cost)
  return { exact, patterns: patterns.map(({ pieces, cost }) => ({ pieces, cost })), fallback, known: new Map() }
}

/** What a call of `method` costs (undefined: a request that is not a JSON-RPC call: the default). */
export function costOf (costs: CompiledCosts, method: string | undefined): number {
  if (method === undefined) return costs.fallback
  const direct = costs.exact.get(method) ?? costs.known.get(method)
  if (direct !== undefined) return direct
  let cost = costs.fallback
  for (const pattern of costs.patterns) {
    if (matchesGlob(method, pattern.pieces)) {
      cost = pattern.cost
      break
    }
  }
  if (costs.known.size < MAX_REMEMBERED && method.length <= 200) costs.known.set(method, cost)
  return cost
}

/** Each holder's (a member's, a provider's row) costs compiled, while it lives. */
const compiled = new WeakMap<object, CompiledCosts>()

/**
 * What a call of `method` costs at the provider of `holder` (its stored `method_costs`,
 * JSON), compiled once per holder object: 1 without costs.
 */
export function callCost (holder: { readonly method_costs: string | null }, method: string | undefined): number {
  if (holder.method_costs === null) return 1
  let costs = compiled.get(holder)
  if (costs === undefined) {
    costs = compileCosts(JSON.parse(holder.method_costs) as Record<string, number>)
    compiled.set(holder, costs)
  }
  return costOf(costs, method)
}
