/**
 * What an upstream batch's answer gives each of its calls (issue 36 item 2; the list
 * is sent by rpc-batch-send.ts): each call's own outcome, as if it had been sent
 * alone, for the attempt loop to judge (rpc-answer.ts), or word that the calls must
 * be sent again.
 *
 * - A list is cut by id (rules/jsonrpc-batch.ts): each call gets the provider's own
 *   bytes for its id, and a call whose id is missing or answered more than once gets
 *   an error answer (-32603, judged `server`: a failure, and a read moves on), so no
 *   call is ever given another's answer.
 * - What is not about the batch form is every call's, and `shared`: one failure of the
 *   list, which the member's health hears of once (rpc-batch-send.ts): an error of the
 *   send (a timeout, a refused connection), a status about the provider or after calls
 *   may have run (401/403/429, a 5xx but 501: rules/jsonrpc-batch.ts refusesBatch), one
 *   error object saying the key is rate limited; and an answer that is no list of
 *   answers to these calls (not JSON-RPC, more elements than calls, or none of their
 *   ids), which each call gets as a -32603 error answer. The scan of a list stops at
 *   the element past the calls' count, so a flood of elements costs no more than that.
 * - A refusal of the batch (another 4xx, a 501, or one other object where a list was
 *   due: nothing of it ran): `refused`, the calls to be resent one by one.
 * - A 413 (the list too large; nothing of it ran): `halve`, the calls to be resent as
 *   two lists of half of them.
 * - An answer that cannot be held (over MAX_LIST_ANSWER_BYTES, past the bytes all reads
 *   may hold, or slower than body-read.ts READ_LIMIT_MS): `too_big`; the calls ran, and
 *   only those that may be repeated are to be resent, one by one.
 */
import type { Readable } from 'node:stream'
import { halvesBatch, idKeyOf, readBatchAnswer, refusesBatch } from '../rules/jsonrpc-batch.js'
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

/** Each call's outcome, in the calls' order (`shared`: the list's own, one failure for health); or the calls to be sent again, and why. */
export type ListOutcome =
  | { readonly each: readonly SentUpstream[], readonly shared?: true }
  | { readonly alone: 'refused' | 'too_big' | 'halve', readonly why: string }

/** What the answer `sent` to a list of calls with `ids` gives each (see the file's header). */
export async function outcomeOfList (sent: SentUpstream, ids: ReadonlyArray<string | number | null>): Promise<ListOutcome> {
  const every = (one: SentUpstream): ListOutcome => ({ each: ids.map(() => one), shared: true })
  if (!('response' in sent)) return every(sent)
  const { response } = sent
  const status = response.statusCode
  // Each call gets its own body: each is read, judged and let go on its own.
  const answerWith = (bytes: Buffer): SentUpstream => ({ ...sent, response: { ...response, headers: withoutLength(response.headers), body: bodyOf(bytes) as never } })
  if (status < 200 || status >= 300) {
    const again = halvesBatch(status) ? 'halve' : refusesBatch(status) ? 'refused' : undefined
    if (again !== undefined) {
      response.body.on('error', () => {}).destroy()
      return { alone: again, why: `HTTP ${status}` }
    }
    const shared = await readSmall(response.body as unknown as Readable)
    return { each: ids.map(() => answerWith(shared)), shared: true }
  }
  let read: Buffer | Readable
  try {
    read = await readBounded(response.body as unknown as Readable, MAX_LIST_ANSWER_BYTES)
  } catch (error) {
    return every({ error, timedOut: false, latencyMs: sent.latencyMs, secrets: sent.secrets })
  }
  if (!Buffer.isBuffer(read)) {
    read.on('error', () => {}).destroy()
    return { alone: 'too_big', why: `whose answer was over ${MAX_LIST_ANSWER_BYTES} bytes or too slow to hold` }
  }
  const answer = readBatchAnswer(read.toString('utf8'), ids.length)
  if (answer.kind === 'list') {
    const byId = new Map<string | undefined, string[]>()
    for (const one of answer.answers) {
      const found = byId.get(one.id)
      if (found === undefined) byId.set(one.id, [one.text])
      else found.push(one.text)
    }
    const each = ids.map((id) => {
      const found = byId.get(idKeyOf(id)) ?? []
      return found.length === 1 ? found[0] as string : missing(id, found.length)
    })
    // Not one call answered: the list's failure, not each call's.
    if (ids.some((id) => byId.get(idKeyOf(id))?.length === 1)) return { each: each.map((text) => answerWith(Buffer.from(text))) }
  }
  // One object where a list was due: a rate limit is every call's own; anything else refuses the batch.
  if (answer.kind === 'single' && !isRateLimit(answer.text)) return { alone: 'refused', why: 'one object where a list was due' }
  if (answer.kind === 'single') return { each: ids.map(() => answerWith(read as Buffer)), shared: true }
  return { each: ids.map((id) => answerWith(Buffer.from(notAList(id)))), shared: true }
}

/** The error answer of a call whose list's answer was no list of answers to its calls. */
const notAList = (id: string | number | null): string =>
  errorAnswer({ code: NO_ANSWER, message: 'The provider\'s batch answer was not a list of answers to the calls sent' }, id)

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
