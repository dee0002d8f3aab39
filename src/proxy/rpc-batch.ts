/**
 * An RPC pool's batch (issue 36 item 2), answered call by call: each call of the
 * batch runs through the pool's pipeline as a request of its own (its own choice,
 * quota, failover and judged answer: rpc-answer.ts), at most BATCH_CONCURRENCY at
 * once, and the answers are put back in the client's order, each call's error its
 * own. A call that ends without a provider's answer (none available, all failed,
 * the deadline) gets a JSON-RPC error with the proxy's sentence; a notification (no
 * id) gets no answer, as the specification says. In an evm pool a read asked twice
 * in one batch runs once. Not yet: calls to one member sent to it as one upstream
 * batch (`max_batch_size`).
 */
import { isCoalescible } from '../rules/evm-methods.js'
import { canonicalParams, type RpcCall } from '../rules/jsonrpc.js'
import type { ServedAnswer } from './cache-answer.js'
import { readUpTo, type ReadBudget } from './cache-fill.js'
import type { ProxyRequest } from './forward.js'
import { callInfo, jsonAnswer } from './rpc-admit.js'

/** Calls of one batch in flight at once. */
const BATCH_CONCURRENCY = 16

/** Largest answer of one call put in a batch's answer. */
const MAX_CALL_ANSWER_BYTES = 16 * 1024 * 1024

/** Bytes of call answers all batches may hold at once. */
const budget: ReadBudget = { left: 256 * 1024 * 1024 }

/** The JSON-RPC error code the service answers a call with when no provider's answer came back. */
export const UNSERVED = -32603

type Run = (poolId: number, incoming: ProxyRequest) => Promise<ServedAnswer>

/**
 * Answers a batch: every call through `run`, in the client's order. With `dedupe` (an
 * evm pool), a read asked twice in one batch (the same method and params,
 * rules/jsonrpc.ts canonicalParams) is run once and its answer given to each, with its id.
 */
export async function answerBatch (poolId: number, incoming: ProxyRequest, calls: readonly RpcCall[], run: Run, dedupe = false): Promise<ServedAnswer> {
  const firstOf = dedupe ? sameAs(calls) : new Map<number, number>()
  const answers: Array<string | undefined> = new Array(calls.length)
  const todo = calls.map((_, i) => i).filter((i) => !firstOf.has(i))
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      const i = todo[next++] as number
      answers[i] = await answerCall(poolId, incoming, calls[i] as RpcCall, run)
    }
  }
  await Promise.all(Array.from({ length: Math.min(BATCH_CONCURRENCY, todo.length) }, worker))
  for (const [i, first] of firstOf) answers[i] = withId(answers[first] as string, (calls[i] as RpcCall).id ?? null)
  const listed = answers.filter((a, i) => a !== undefined && (calls[i] as RpcCall).id !== undefined)
  return jsonAnswer(`[${listed.join(',')}]`)
}

/** For each call of the batch that repeats an earlier read, the index of that earlier one. */
function sameAs (calls: readonly RpcCall[]): Map<number, number> {
  const seen = new Map<string, number>()
  const firstOf = new Map<number, number>()
  for (const [i, call] of calls.entries()) {
    if (call.id === undefined || !isCoalescible(call.method)) continue
    const key = `${call.method}:${canonicalParams(call.params ?? [])}`
    const first = seen.get(key)
    if (first === undefined) seen.set(key, i)
    else firstOf.set(i, first)
  }
  return firstOf
}

/** An answer's JSON text with another id. */
const withId = (text: string, id: string | number | null): string => JSON.stringify({ ...(JSON.parse(text) as object), id })

/** One call's answer as JSON text: the provider's, or an error of the service's. */
async function answerCall (poolId: number, incoming: ProxyRequest, call: RpcCall, run: Run): Promise<string> {
  const id = call.id ?? null
  let served: ServedAnswer
  try {
    served = await run(poolId, callRequest(incoming, call))
  } catch (error) {
    return errorText(id, error instanceof Error ? error.message : 'The call failed')
  }
  if (served.kind === 'unavailable') return errorText(id, `No available providers in pool ${poolId}`)
  if (served.kind === 'deadline') return errorText(id, `Deadline of ${served.deadlineMs} ms exceeded for pool ${poolId}`)
  if (served.kind === 'failed') return errorText(id, `All providers failed for pool ${poolId}`)
  const body = served.body === null ? Buffer.alloc(0) : Buffer.isBuffer(served.body) ? served.body : await readUpTo(served.body, MAX_CALL_ANSWER_BYTES, budget, new AbortController().signal)
  if (!Buffer.isBuffer(body)) {
    body.destroy()
    return errorText(id, `The answer to this call is over ${MAX_CALL_ANSWER_BYTES} bytes: send it on its own`)
  }
  return singleAnswer(body, id)
}

/** A provider's answer to one call, as the batch lists it: its object, with the client's id. */
function singleAnswer (body: Buffer, id: string | number | null): string {
  try {
    const answer = JSON.parse(body.toString('utf8')) as unknown
    if (typeof answer === 'object' && answer !== null && !Array.isArray(answer)) return JSON.stringify({ ...answer, id })
  } catch {}
  return errorText(id, 'The provider\'s answer was not JSON-RPC')
}

const errorText = (id: string | number | null, message: string): string => JSON.stringify({ jsonrpc: '2.0', id, error: { code: UNSERVED, message } })

/** The request one call of the batch makes: the batch's own, with the call alone as its body. */
function callRequest (incoming: ProxyRequest, call: RpcCall): ProxyRequest {
  return {
    method: incoming.method,
    url: incoming.url,
    headers: incoming.headers,
    body: Buffer.from(JSON.stringify(call)),
    peer: incoming.peer,
    protocol: incoming.protocol,
    requestId: incoming.requestId,
    log: incoming.log,
    gone: incoming.gone,
    get signal () { return incoming.signal },
    rpc: callInfo(call)
  }
}
