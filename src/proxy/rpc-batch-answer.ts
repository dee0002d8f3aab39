/**
 * What an upstream batch's answer gives each of its calls (issue 36 item 2; the list
 * is sent by rpc-batch-send.ts): each call's own outcome, as if it had been sent
 * alone, for the attempt loop to judge (rpc-answer.ts), or word that the calls must
 * be sent again one by one.
 *
 * - A list is cut by id (rules/jsonrpc-batch.ts): each call gets the provider's own
 *   bytes for its id, and a call whose id is missing or answered more than once gets
 *   an error answer (-32603, judged `server`: a failure, and a read moves on), so no
 *   call is ever given another's answer.
 * - What is not about the batch form is every call's own: an error of the send (a
 *   timeout, a refused connection), a status about the provider or after calls may have
 *   run (401/403/429, a 5xx but 501: rules/jsonrpc-batch.ts refusesBatch), a 2xx body
 *   that is not JSON-RPC, one error object saying the key is rate limited.
 * - A refusal of the batch (another 4xx, a 501, or one other object where a list was
 *   due: nothing of it ran): `refused`, the calls to be resent one by one (and the
 *   provider remembered).
 * - An answer that cannot be held (over MAX_LIST_ANSWER_BYTES, past the bytes all reads
 *   may hold, or slower than body-read.ts READ_LIMIT_MS): `too_big`, the calls to be
 *   resent one by one, each then answered as a single call is (streamed if it must be).
 */
import type { Readable } from 'node:stream'
import { idKeyOf, readBatchAnswer, refusesBatch } from '../rules/jsonrpc-batch.js'
import { rpcVerdict } from '../rules/jsonrpc-errors.js'
import { errorAnswer } from '../rules/jsonrpc.js'
import { bodyOf, readBounded } from './body-read.js'
import type { SentUpstream } from './upstream-client.js'

/** Largest answer to one upstream batch held to be cut (a client batch's answer stops at the same bound: rpc-batch.ts). */
const MAX_LIST_ANSWER_BYTES = 32 * 1024 * 1024

/** Largest body read of an answer that is every call's own (an error status's, a rate-limit object's). */
const MAX_SHARED_BODY_BYTES = 64 * 1024

/** The JSON-RPC code of the error a call gets when the list has no single answer for its id. */
const NO_ANSWER = -32603

/** Each call's outcome, in the calls' order; or the calls to be resent one by one, and why. */
export type ListOutcome =
  | { readonly each: readonly SentUpstream[] }
  | { readonly alone: 'refused' | 'too_big', readonly why: string }

/** What the answer `sent` to a list of calls with `ids` gives each (see the file's header). */
export async function outcomeOfList (sent: SentUpstream, ids: ReadonlyArray<string | number | null>): Promise<ListOutcome> {
  const every = (one: SentUpstream): ListOutcome => ({ each: ids.map(() => one) })
  if (!('response' in sent)) return every(sent)
  const { response } = sent
  const status = response.statusCode
  // Each call gets its own body: each is read, judged and let go on its own.
  const answerWith = (bytes: Buffer): SentUpstream => ({ ...sent, response: { ...response, headers: withoutLength(response.headers), body: bodyOf(bytes) as never } })
  if (status < 200 || status >= 300) {
    if (refusesBatch(status)) {
      response.body.on('error', () => {}).destroy()
      return { alone: 'refused', why: `HTTP ${status}` }
    }
    const shared = await readSmall(response.body as unknown as Readable)
    return { each: ids.map(() => answerWith(shared)) }
  }
  let read: Buffer | Readable
  try {
    read = await readBounded(response.body as unknown as Readable, MAX_LIST_ANSWER_BYTES)
  } catch (error) {
    return every({ error, timedOut: false, latencyMs: sent.latencyMs, secrets: sent.secrets })
  }
  if (!Buffer.isBuffer(read)) {
    read.on('error', () => {}).destroy()
    return { alone: 'too_big', why: `an answer over ${MAX_LIST_ANSWER_BYTES} bytes or too slow to hold` }
  }
  const answer = readBatchAnswer(read.toString('utf8'))
  if (answer.kind === 'list') {
    const byId = new Map<string | undefined, string[]>()
    for (const one of answer.answers) byId.set(one.id, [...(byId.get(one.id) ?? []), one.text])
    return {
      each: ids.map((id) => {
        const found = byId.get(idKeyOf(id)) ?? []
        return answerWith(Buffer.from(found.length === 1 ? found[0] as string : missing(id, found.length)))
      })
    }
  }
  // One object where a list was due: a rate limit is every call's own; anything else refuses the batch.
  if (answer.kind === 'single' && !isRateLimit(answer.text)) return { alone: 'refused', why: 'one object where a list was due' }
  return { each: ids.map(() => answerWith(read as Buffer)) }
}

/** The error answer of a call the list did not answer exactly once (`found`: how many answers had its id). */
function missing (id: string | number | null, found: number): string {
  const message = found === 0 ? 'The provider\'s batch answer had no answer for this call' : `The provider's batch answer had ${found} answers for this call's id`
  return errorAnswer({ code: NO_ANSWER, message }, id)
}

/** True for one error object saying the key is rate limited (rules/jsonrpc-errors.ts): every call's own answer, not a refusal of batches. */
function isRateLimit (text: string): boolean {
  if (text.length > MAX_SHARED_BODY_BYTES) return false
  try {
    const answer = JSON.parse(text) as { error?: { code?: number, message?: string } } | null
    return answer?.error != null && rpcVerdict(answer.error) === 'rate_limited'
  } catch {
    return false
  }
}

/** A small body read whole; a bigger one (or one that fails) is let go and read as empty. */
async function readSmall (body: Readable): Promise<Buffer> {
  const read = await readBounded(body, MAX_SHARED_BODY_BYTES).catch(() => Buffer.alloc(0))
  if (Buffer.isBuffer(read)) return read
  read.on('error', () => {}).destroy()
  return Buffer.alloc(0)
}

/** The list's headers without its length (each call's answer is a part of it). */
function withoutLength (headers: Record<string, string | string[] | undefined>): Record<string, string | string[] | undefined> {
  const { 'content-length': _length, ...rest } = headers
  return rest
}
