/**
 * The RPC pools' first stage (issue 36): in a pool whose `protocol` is `jsonrpc`
 * or `evm`, a POST's body is a JSON-RPC call or batch (rules/jsonrpc.ts), and one
 * that is neither is answered here with the standard error object (-32700, -32600)
 * and spends no provider's quota. The answer is HTTP 200, as Ethereum nodes (geth,
 * ganache's own JSON errors aside) answer a JSON-RPC error, so that clients (viem,
 * ethers) read its code rather than a transport failure. Other methods (a GET of a
 * health path, say) go on as in an `http` pool. A batch is answered call by call
 * (rpc-batch.ts). Only in an RPC pool's pipeline (pipeline.ts): an `http` pool's
 * requests never reach this file.
 */
import { getMaxListeners, setMaxListeners } from 'node:events'
import { isCoalescible, isWrite } from '../rules/evm-methods.js'
import { errorAnswer, parseBody, type ParsedBody, type RpcCall } from '../rules/jsonrpc.js'
import type { ServedAnswer } from './cache-answer.js'
import { requestCopy, type ProxyRequest, type RpcCallInfo } from './forward.js'

/** The protocols whose POSTs are JSON-RPC. */
export const RPC_PROTOCOLS: ReadonlySet<string> = new Set(['jsonrpc', 'evm'])

/** What the RPC stage makes of a request: an answer at once, the calls of a batch (rpc-batch.ts), or on as it is. */
export type RpcAdmitted = { readonly answer: ServedAnswer } | { readonly batch: readonly RpcCall[] } | undefined

/** A single call's marks for the stages after this one: its method, and whether it may be sent again (a read an evm pool knows: yes; a transaction: no; else a POST's rule). */
export const callInfo = (call: RpcCall, evm: boolean): RpcCallInfo =>
  ({ method: call.method, repeatable: isWrite(call.method) ? false : evm && isCoalescible(call.method) ? true : undefined, call })

/**
 * The request one call makes on its own behalf (a batch's call, a log split's range or
 * head read): the client's, with the call alone as its body. Up to `listeners` such
 * requests may wait on the client's one signal at once: its listener bound is raised to
 * that, never lowered (a batch's calls and their ranges share it).
 */
export function callRequest (incoming: ProxyRequest, call: RpcCall, evm: boolean, listeners: number): ProxyRequest {
  return {
    ...requestCopy(incoming),
    body: Buffer.from(JSON.stringify(call)),
    gone: incoming.gone,
    get signal () {
      const signal = incoming.signal
      if (signal !== undefined && getMaxListeners(signal) < listeners) setMaxListeners(listeners, signal)
      return signal
    },
    rpc: callInfo(call, evm)
  }
}

/**
 * Reads a POST's body: one that is not JSON-RPC is answered at once (`answer`); a
 * single call is marked on the request (`rpc`) and goes on; a batch's calls are
 * handed back (`batch`) to be answered each on its own. Other methods go on as they are.
 */
export function rpcAdmit (incoming: Pick<ProxyRequest, 'method' | 'body' | 'rpc' | 'headers'>, evm: boolean): RpcAdmitted {
  if (incoming.method !== 'POST') return undefined
  const parsed: ParsedBody = parseBody(incoming.body)
  // Answers are read to be judged: asked uncompressed (a provider's gzip would read as garbage).
  if (parsed.kind !== 'invalid' && incoming.headers['accept-encoding'] !== undefined) incoming.headers = { ...incoming.headers, 'accept-encoding': undefined }
  if (parsed.kind === 'call') { incoming.rpc = callInfo(parsed.call, evm); return undefined }
  if (parsed.kind === 'batch') return { batch: parsed.calls }
  return { answer: jsonAnswer(errorAnswer(parsed.error)) }
}

/** A JSON-RPC answer the service writes itself (HTTP 200, no provider). */
export function jsonAnswer (text: string): ServedAnswer {
  return { kind: 'answer', status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(text), provider: null, attempts: 0 }
}

/** JSON-RPC's code for a method the server does not have. */
export const METHOD_NOT_FOUND = -32601

/**
 * A call that every member it reached refused as a method it does not have (each now
 * refuses `/{method}`, rpc-answer.ts), or that every member left out refuses so, and
 * nothing else failed: answered as a node answers it, -32601 in a 200, rather than the
 * proxy's 502. Undefined for any other answer.
 */
export function refusedByAll (answer: ServedAnswer, rpc: RpcCallInfo): ServedAnswer | undefined {
  if (answer.kind !== 'failed' || answer.attempts.length + answer.refusals.length === 0) return undefined
  const resource = `/${rpc.method}`
  if (!answer.refusals.every((refusal) => refusal.resource === resource)) return undefined
  if (!answer.attempts.every((attempt) => attempt.jsonrpc_error === 'unsupported')) return undefined
  const message = `The method ${rpc.method} is not supported by any provider of this pool`
  return jsonAnswer(errorAnswer({ code: METHOD_NOT_FOUND, message }, rpc.call.id ?? null))
}
