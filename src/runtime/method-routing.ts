/**
 * Method routing in the runtime (issue 36 item 7): for one read of a pool (a
 * PoolState), the members whose provider's `methods` (rules/rpc-methods.ts) do not
 * allow an RPC call's method. The rules are compiled once per read of the pool (a
 * provider's change makes a new read: pool-loader.ts) and only when an RPC call asks;
 * what each method finds is remembered with the read, so a call's check is a lookup.
 * A pool whose members have no rules answers at once, with nothing to leave out.
 */
import { compileMethods, methodAllowed, type CompiledMethods, type MethodRules } from '../rules/rpc-methods.js'
import type { PoolState } from './runtime-state.js'

/** What one read of a pool knows of its members' method rules. */
interface Routing {
  /** Provider ids of the members with rules, and the rules compiled; empty when no member has any. */
  readonly ruled: ReadonlyArray<readonly [number, CompiledMethods]>
  /** method → the providers that do not allow it, for the methods asked so far (at most MAX_REMEMBERED). */
  readonly refusing: Map<string, ReadonlySet<number>>
}

const NONE: ReadonlySet<number> = new Set()

/** Methods remembered per read of a pool: a caller sending made-up names fills no more memory than this. */
const MAX_REMEMBERED = 256

/** Longest method name remembered (a longer one is looked at each time). */
const MAX_REMEMBERED_CHARS = 200

const routings = new WeakMap<PoolState, Routing>()

function routingOf (state: PoolState): Routing {
  let routing = routings.get(state)
  if (routing === undefined) {
    const ruled: Array<readonly [number, CompiledMethods]> = []
    for (const m of state.members) if (m.methods !== null) ruled.push([m.provider_id, compileMethods(JSON.parse(m.methods) as MethodRules)])
    routing = { ruled, refusing: new Map() }
    routings.set(state, routing)
  }
  return routing
}

/** The provider ids of the pool's members whose provider does not allow `method` (left out of its choice: choosing.ts). */
export function refusersOf (state: PoolState, method: string): ReadonlySet<number> {
  const routing = routingOf(state)
  if (routing.ruled.length === 0) return NONE
  const known = routing.refusing.get(method)
  if (known !== undefined) return known
  let found: Set<number> | undefined
  for (const [providerId, rules] of routing.ruled) {
    if (!methodAllowed(rules, method)) (found ??= new Set()).add(providerId)
  }
  const refusing = found ?? NONE
  if (routing.refusing.size < MAX_REMEMBERED && method.length <= MAX_REMEMBERED_CHARS) routing.refusing.set(method, refusing)
  return refusing
}

/**
 * True when the pool has members and none of them allows `method`, whatever their
 * state (one cooling down, disabled or without a URL still allows it): the call is
 * answered -32601 without a provider (proxy/rpc-methods.ts).
 */
export function noMemberAllows (state: PoolState, method: string): boolean {
  if (state.members.length === 0) return false
  const refusing = refusersOf(state, method)
  if (refusing.size === 0) return false
  for (const m of state.members) if (!refusing.has(m.provider_id)) return false
  return true
}
