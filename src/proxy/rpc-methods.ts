/**
 * An RPC pool's method routing (issue 36 item 7), the stage after rpc-admit.ts for
 * a single call and for each call of a batch (rpc-batch.ts runs them through it): a
 * call whose method no member's provider allows (their `methods`,
 * rules/rpc-methods.ts) is answered -32601 with the call's id, HTTP 200, before the
 * cache and coalescing and without a provider; any other call goes on, and its
 * choice leaves out the members that do not allow it (runtime/method-routing.ts).
 * A member that allows it but is cooling down still counts: the call goes on to the
 * usual answer when no member is available. Only in an RPC pool's pipeline.
 */
import type { PoolRuntime } from '../runtime/pool-runtime.js'
import { errorAnswer } from '../rules/jsonrpc.js'
import type { ServedAnswer } from './cache-answer.js'
import type { ProxyRequest } from './forward.js'
import { jsonAnswer, METHOD_NOT_FOUND } from './rpc-admit.js'

type Run = (poolId: number, incoming: ProxyRequest) => Promise<ServedAnswer>

/** What the stage asks the runtime: whether any member allows a method. */
export type MethodRouting = Pick<PoolRuntime, 'methodUnservedNow' | 'methodUnserved'>

/** The answer to a call no member allows. */
const notFound = (poolId: number, id: string | number | null | undefined): ServedAnswer =>
  jsonAnswer(errorAnswer({ code: METHOD_NOT_FOUND, message: `Method not found: no provider of pool ${poolId} is allowed this method` }, id ?? null))

/**
 * `next` behind the method check: a call no member allows is answered here. The pool
 * held current answers at once; no promise of its own is made for a call that goes on.
 */
export function methodRouted (next: Run, routing: MethodRouting): Run {
  return (poolId, incoming) => {
    const rpc = incoming.rpc
    if (rpc === undefined) return next(poolId, incoming)
    const unserved = routing.methodUnservedNow(poolId, rpc.method)
    if (unserved === false) return next(poolId, incoming)
    if (unserved === true) return Promise.resolve(notFound(poolId, rpc.call.id))
    return routing.methodUnserved(poolId, rpc.method).then(async (none) => none ? notFound(poolId, rpc.call.id) : await next(poolId, incoming))
  }
}
