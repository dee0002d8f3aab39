/**
 * The RPC pools' classify stage (issue 36 item 3): a provider answers a JSON-RPC
 * call's failure inside a 200 as often as not, so for a single call the answer's
 * body is read (body-read.ts: up to 16 MiB, past it streamed on unjudged) and its
 * `error`, if any, judged by rules/jsonrpc-errors.ts (a body over 64 KiB is a result:
 * errors are small, and parsing megabytes would hold the event loop). What the attempt loop
 * (forwarding.ts) then does with the verdict:
 *
 * - `rate_limited`: the member cools down for the pool's `cooldown_seconds`, as
 *   `rate_limited`, and the call moves on;
 * - `unsupported`: the member is refused the method (`/{method}` in the refusal
 *   list, for `forbidden_ttl_seconds`) and the call moves on;
 * - `missing_state`: the call moves on, with no health failure;
 * - `caller` (reverted, bad params, a range too large) or no error: the answer goes back;
 * - `server`: a failure for health; a read moves on.
 *
 * Moving on after a rate limit, a refused method or missing state spends no retry
 * budget (the member did no work, as after a 403): the budget bounds retries that
 * add load, and these add none to the member that answered.
 *
 * The body is handed on as read, so the answer that goes back is the provider's own;
 * but a node saying a sent transaction is "already known" has it, and the client
 * gets the transaction's hash (its Keccak-256), as a first acceptance answers.
 * An answer that is not a 2xx is classified by its status, as in any pool.
 */
import type { Readable } from 'node:stream'
import { isWrite, saysKnownTransaction, transactionHash } from '../rules/evm-methods.js'
import { rpcVerdict, type RpcVerdict } from '../rules/jsonrpc-errors.js'
import { bodyOf, readBounded } from './body-read.js'
import type { AttemptResult, RpcCallInfo } from './forward.js'
import type { SentUpstream } from './upstream-client.js'

/** Largest answer body judged (a bigger one streams through unjudged: an eth_getLogs of many blocks). */
const MAX_JUDGED_BYTES = 16 * 1024 * 1024

/**
 * Largest body parsed to find its error: an error answer is small, and parsing megabytes
 * of a result would hold the event loop; a bigger body is judged a result (`ok`).
 */
const MAX_PARSED_BYTES = 64 * 1024

/** An attempt's result with the verdict on its answer's JSON-RPC error (`ok` for none). */
export type JudgedSent = SentUpstream & { readonly rpc?: RpcVerdict | 'ok' }

/**
 * Reads a 2xx answer's body and judges its JSON-RPC error; any other outcome is passed on
 * as it is. `learn` is given the result of an answer judged `ok` (an `eth_blockNumber`'s
 * tells its node's head: rpc-heads.ts).
 */
export async function judgeRpcAnswer (sent: SentUpstream, rpc?: RpcCallInfo, learn?: (result: unknown) => void): Promise<JudgedSent> {
  if (!('response' in sent) || sent.response.statusCode < 200 || sent.response.statusCode >= 300) return sent
  const { response } = sent
  let read: Buffer | Readable
  try {
    read = await readBounded(response.body as unknown as Readable, MAX_JUDGED_BYTES)
  } catch (error) {
    return { error, timedOut: false, latencyMs: sent.latencyMs, secrets: sent.secrets }
  }
  if (!Buffer.isBuffer(read)) return { ...sent, response: { ...response, body: read as never } }
  const known = rpc?.method === 'eth_sendRawTransaction' ? knownTransaction(read, rpc) : undefined
  // A write's error is its caller's answer (the node refused that transaction): never a refusal of the method, never the member's failure.
  const verdict = known !== undefined ? 'ok' : rpc?.repeatable !== true && rpc !== undefined && isWrite(rpc.method) ? 'caller' : verdictOf(read)
  if (learn !== undefined && verdict === 'ok') learn(resultOf(read))
  return { ...sent, response: { ...response, body: bodyOf(known ?? read) as never }, rpc: verdict }
}

/**
 * A node saying it has the transaction already (a retry of one it accepted, or the same
 * transaction sent by another client) has accepted it: the answer is the transaction's
 * hash, as the first acceptance said. Undefined for any other answer.
 */
function knownTransaction (body: Buffer, rpc: RpcCallInfo): Buffer | undefined {
  if (body.length > MAX_PARSED_BYTES) return undefined
  let answer: { id?: unknown, error?: { message?: unknown } }
  try { answer = JSON.parse(body.toString('utf8')) } catch { return undefined }
  const message = answer?.error?.message
  if (typeof message !== 'string' || !saysKnownTransaction(message)) return undefined
  const params = rpc.call.params
  const hash = transactionHash(Array.isArray(params) ? params[0] : undefined)
  return hash === undefined ? undefined : Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: answer.id ?? null, result: hash }))
}

/** A small answer's result (undefined for anything else). */
function resultOf (body: Buffer): unknown {
  if (body.length > MAX_PARSED_BYTES) return undefined
  try { return (JSON.parse(body.toString('utf8')) as { result?: unknown } | null)?.result } catch { return undefined }
}

/** The verdict on a body: its error's, `ok` for a result (or a batch, judged per call later), `server` for a body that is not JSON-RPC. */
function verdictOf (body: Buffer): RpcVerdict | 'ok' {
  if (body.length > MAX_PARSED_BYTES) return 'ok'
  let answer: unknown
  try {
    answer = JSON.parse(body.toString('utf8'))
  } catch {
    return 'server'
  }
  if (Array.isArray(answer)) return 'ok'
  if (typeof answer !== 'object' || answer === null) return 'server'
  const { error } = answer as { error?: { code?: number, message?: string } }
  return error === undefined || error === null ? 'ok' : rpcVerdict(error)
}

/** What the attempt loop makes of a verdict (see the file's header); undefined: classify by status, as any pool. */
export function rpcResult (verdict: RpcVerdict | 'ok' | undefined, pool: { readonly cooldown_seconds: number }): AttemptResult | undefined {
  switch (verdict) {
    case undefined: return undefined
    // Its status and headers say the rest (a 2xx's rate-limit headers still pause the member).
    case 'ok': case 'caller': return undefined
    case 'rate_limited': return { kind: 'failure', reason: 'rate_limited', pauseS: pool.cooldown_seconds, pauseSource: 'jsonrpc', free: true }
    case 'unsupported': return { kind: 'forbidden', statusCode: 403 }
    case 'missing_state': return { kind: 'failure', reason: 'missing_state', neutral: true }
    case 'server': return { kind: 'failure', reason: 'rpc_error' }
  }
}
