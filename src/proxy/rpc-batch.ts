/**
 * An RPC pool's batch (issue 36 item 2), answered call by call: each call of the
 * batch runs through the pool's pipeline as a request of its own (its own choice,
 * quota, failover and judged answer: rpc-answer.ts), and the answers are put back in
 * the client's order, each call's error its own. The calls that reach the same member
 * are sent to it as one upstream batch, up to its `max_batch_size`
 * (rpc-batch-group.ts). At most CALLS_PER_UPSTREAM_REQUEST × the largest
 * `max_batch_size` among the pool's members are on their way at once (16 when every
 * member takes single calls), so that a batch's calls to a member go in full upstream
 * batches; their upstream requests open at once, lists and calls sent alone alike,
 * are 16 at most (rpc-batch-permits.ts). A call that ends without a provider's answer
 * (none available, all failed, the deadline) gets a JSON-RPC error with the proxy's
 * sentence; a notification (no id) gets no answer, as the specification says (a batch
 * of notifications alone: 204, no body). In an evm pool a read asked twice in one
 * batch runs once. Bounded: the answers gathered stop at 32 MiB (the calls left get an
 * error saying so), and a client that leaves stops the calls not yet sent. A
 * provider's answer is passed on as its bytes (a big number stays exact).
 */
import { isCoalescible } from '../rules/evm-methods.js'
import { canonicalParams, errorAnswer, MAX_BATCH_CALLS, type RpcCall } from '../rules/jsonrpc.js'
import type { ServedAnswer } from './cache-answer.js'
import { readBounded } from './body-read.js'
import type { ProxyRequest } from './forward.js'
import { callRequest, jsonAnswer } from './rpc-admit.js'
import { BatchGathering } from './rpc-batch-group.js'

/** Upstream requests' worth of a batch's calls on their way at once (each up to the largest member's max_batch_size calls; the requests themselves: rpc-batch-permits.ts). */
const CALLS_PER_UPSTREAM_REQUEST = 16

/** Largest answer of one call put in a batch's answer. */
const MAX_CALL_ANSWER_BYTES = 16 * 1024 * 1024

/** The JSON-RPC error code the service answers a call with when no provider's answer came back. */
export const UNSERVED = -32603

type Run = (poolId: number, incoming: ProxyRequest) => Promise<ServedAnswer>

/** How a batch is answered: `evm`, in an evm pool (its reads known, a repeated read run once); `largestBatch`, the pool's largest member max_batch_size (null: no member). */
export interface BatchOptions {
  readonly evm?: boolean
  readonly largestBatch?: number | null
}

/**
 * Answers a batch: every call through `run`, in the client's order. In an evm pool
 * (`evm`), a read asked twice in one batch (the same method and params, rules/jsonrpc.ts
 * canonicalParams) is run once and its answer given to each, with its id.
 * The calls are gathered into upstream batches where members take more than one call
 * at once, and their sends bounded together (rpc-batch-group.ts).
 */
export async function answerBatch (poolId: number, incoming: ProxyRequest, calls: readonly RpcCall[], run: Run, { evm = false, largestBatch = null }: BatchOptions = {}): Promise<ServedAnswer> {
  // One budget for every call of the batch (a log split's range calls: rpc-logs.ts).
  incoming.budget ??= { rangeCalls: 0 }
  const perRequest = Math.max(1, largestBatch ?? 1)
  const gathering = new BatchGathering()
  const inFlight = Math.min(CALLS_PER_UPSTREAM_REQUEST * perRequest, MAX_BATCH_CALLS)
  const firstOf = evm ? sameAs(calls) : new Map<number, number>()
  const answers: Array<string | undefined> = new Array(calls.length)
  const todo = calls.map((_, i) => i).filter((i) => !firstOf.has(i))
  let next = 0
  let bytes = 0
  const worker = async (): Promise<void> => {
    while (next < todo.length) {
      const i = todo[next++] as number
      const call = calls[i] as RpcCall
      // The client left, or the answer grew past its bound: the calls left are not sent.
      if (incoming.gone?.() === true) answers[i] = errorText(call.id ?? null, 'The client left before this call was sent')
      else if (bytes > MAX_BATCH_ANSWER_BYTES) answers[i] = errorText(call.id ?? null, TOO_BIG)
      else bytes += (answers[i] = await answerCall(poolId, callRequest(incoming, call, evm, inFlight * 4), gathering, run)).length
    }
  }
  await Promise.all(Array.from({ length: Math.min(inFlight, todo.length) }, worker))
  for (const [i, first] of firstOf) {
    const id = (calls[i] as RpcCall).id ?? null
    answers[i] = bytes > MAX_BATCH_ANSWER_BYTES ? errorText(id, TOO_BIG) : withId(answers[first] as string, id)
    bytes += (answers[i] as string).length
  }
  const listed = answers.filter((a, i) => a !== undefined && (calls[i] as RpcCall).id !== undefined)
  // Notifications alone: nothing to answer, and the specification wants no empty list.
  return listed.length === 0 ? NOTHING : jsonAnswer(`[${listed.join(',')}]`)
}

/** The answer to a batch of notifications alone: 204, no body (JSON-RPC 2.0 section 6: nothing at all). */
const NOTHING: ServedAnswer = { kind: 'answer', status: 204, headers: {}, body: null, provider: null, attempts: 0 }

/** Largest answer a batch gathers (its calls' answers together); past it, the calls left get TOO_BIG. */
const MAX_BATCH_ANSWER_BYTES = 32 * 1024 * 1024
const TOO_BIG = `The batch's answer is over ${MAX_BATCH_ANSWER_BYTES} bytes: send fewer calls at once`

/** For each call of the batch that repeats an earlier read, the index of that earlier one. */
function sameAs (calls: readonly RpcCall[]): Map<number, number> {
  const seen = new Map<string, number>()
  const firstOf = new Map<number, number>()
  for (const [i, call] of calls.entries()) {
    if (call.id === undefined || !isCoalescible(call.method)) continue
    const params = canonicalParams(call.params ?? [])
    if (params === undefined) continue
    const key = `${call.method}\n${params}`
    const first = seen.get(key)
    if (first === undefined) seen.set(key, i)
    else firstOf.set(i, first)
  }
  return firstOf
}

/** An answer's JSON text with another id. */
const withId = (text: string, id: string | number | null): string => JSON.stringify({ ...(JSON.parse(text) as object), id })

/** One call's answer as JSON text: the provider's, or an error of the service's. */
async function answerCall (poolId: number, request: ProxyRequest, gathering: BatchGathering, run: Run): Promise<string> {
  const id = request.rpc?.call.id ?? null
  let served: ServedAnswer
  // Its slot is open until it sends (or leaves on its way); at its end at the latest.
  const slot = request.upstreamBatch = gathering.slot()
  try {
    served = await run(poolId, request)
  } catch (error) {
    return errorText(id, error instanceof Error ? error.message : 'The call failed')
  } finally {
    slot.leave()
  }
  if (served.kind === 'unavailable') return errorText(id, `No available providers in pool ${poolId}`)
  if (served.kind === 'deadline') return errorText(id, `Deadline of ${served.deadlineMs} ms exceeded for pool ${poolId}`)
  if (served.kind === 'failed') return errorText(id, `All providers failed for pool ${poolId}`)
  const body = served.body === null ? Buffer.alloc(0) : Buffer.isBuffer(served.body) ? served.body : await readBounded(served.body, MAX_CALL_ANSWER_BYTES)
  if (!Buffer.isBuffer(body)) {
    body.destroy()
    return errorText(id, `The answer to this call is over ${MAX_CALL_ANSWER_BYTES} bytes: send it on its own`)
  }
  return singleAnswer(body, id)
}

/**
 * A provider's answer to one call, as the batch lists it: its bytes as they came (a
 * big number stays exact) when it is the answer to this id, read as JSON only when
 * small; a big body is taken as it is when it is an object (the call was sent with
 * the client's own id). Anything else is an error in its place.
 */
function singleAnswer (body: Buffer, id: string | number | null): string {
  const text = body.toString('utf8').trim()
  if (!text.startsWith('{') || !text.endsWith('}')) return errorText(id, NOT_JSON_RPC)
  if (text.length > MAX_CHECKED_CHARS) return text
  try {
    const answer = JSON.parse(text) as { id?: unknown }
    if (typeof answer === 'object' && answer !== null && !Array.isArray(answer)) return answer.id === id ? text : JSON.stringify({ ...answer, id })
  } catch {}
  return errorText(id, NOT_JSON_RPC)
}

/** Longest answer read as JSON to check it (a bigger one is taken as it is). */
const MAX_CHECKED_CHARS = 64 * 1024
const NOT_JSON_RPC = 'The provider\'s answer was not JSON-RPC'

const errorText = (id: string | number | null, message: string): string => errorAnswer({ code: UNSERVED, message }, id)
