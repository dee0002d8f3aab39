/**
 * Upstream JSON-RPC batches (issue 36 item 2), the pure parts: how many calls a
 * provider is sent at once (`max_batch_size`), which answers to an upstream batch
 * mean the provider refuses batches, and how a batch's answer is cut into its calls'
 * answers. The answer is cut by scanning its text, not by parsing and writing it
 * again: each call's answer is handed on as the provider's own bytes (a big number
 * stays exact), and a big answer is never parsed whole (that would hold the event
 * loop). The data plane's part is proxy/rpc-batch-group.ts and rpc-batch-send.ts.
 */

/** Default `max_batch_size`: calls of one client batch sent to one provider as one upstream batch. */
export const DEFAULT_BATCH_SIZE = 10

/** Largest `max_batch_size`: a client batch holds at most 1,000 calls (jsonrpc.ts MAX_BATCH_CALLS), so no upstream batch could be bigger. */
export const MAX_BATCH_SIZE = 1000

/**
 * Statuses that say something about the provider or our key rather than about the batch
 * form (credentials, a rate limit, a timeout): each call of the batch takes them as its
 * own answer, as a single call would.
 */
const NOT_ABOUT_THE_BATCH: ReadonlySet<number> = new Set([401, 402, 403, 407, 408, 429])

/** 413 Content Too Large: nothing of the list ran, and it says the list was too big, not that lists are refused. */
const TOO_LARGE = 413

/**
 * True when an upstream batch answered `status` is refused as a batch (its calls then go
 * one by one): a 4xx about the request (400, 404, 405, 415, 422…; a 413 halves the list
 * instead: halvesBatch) or 501 Not Implemented, which say the list was not taken, so no
 * call of it ran. Any other 5xx may have come after some calls ran: it is the calls'
 * failure, as for a single call (a read moves on, a call that may not be repeated does not).
 */
export const refusesBatch = (status: number): boolean => status === 501 || (status >= 400 && status <= 499 && status !== TOO_LARGE && !NOT_ABOUT_THE_BATCH.has(status))

/** True when an upstream batch answered `status` is to be sent again as two lists of half its calls (down to single calls). */
export const halvesBatch = (status: number): boolean => status === TOO_LARGE

/** What an upstream batch's answer body holds. */
export type BatchAnswer =
  /** A list: each element's text, and its id's JSON text (undefined when it has none, or it is not a primitive). */
  | { readonly kind: 'list', readonly answers: ReadonlyArray<{ readonly text: string, readonly id: string | undefined }> }
  /** One object where a list was due (its text). */
  | { readonly kind: 'single', readonly text: string }
  /** A list of more elements than the bound it was read with (the calls sent): the scan stopped there. */
  | { readonly kind: 'too_many' }
  /** Not JSON, or not an object or a list of them. */
  | { readonly kind: 'garbage' }

const GARBAGE: BatchAnswer = { kind: 'garbage' }
const TOO_MANY: BatchAnswer = { kind: 'too_many' }

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_LIST = 0x5b
const CLOSE_LIST = 0x5d
const COMMA = 0x2c
const COLON = 0x3a

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
/** What ends a bare value (a number, true, false, null). */
const endsValue = (c: number): boolean => isSpace(c) || c === COMMA || c === CLOSE_OBJECT || c === CLOSE_LIST || c === COLON

/** The index just past the string that starts at `at` (its opening quote), or -1 when it never ends. */
function stringEnd (text: string, at: number): number {
  let i = at + 1
  for (;;) {
    const quote = text.indexOf('"', i)
    if (quote === -1) return -1
    // An escaped quote is preceded by an odd run of backslashes.
    let slashes = 0
    for (let j = quote - 1; text.charCodeAt(j) === BACKSLASH; j--) slashes++
    if (slashes % 2 === 0) return quote + 1
    i = quote + 1
  }
}

/**
 * Reads an upstream batch's answer (see BatchAnswer). A list's elements are found by
 * their nesting, each kept as its text; an element's top-level `id` is kept as its
 * JSON text, read by JSON.parse from that short slice only. The structure is checked
 * as far as cutting needs (balanced brackets, strings closed, commas between
 * elements); an element's own text is judged later, as a single answer is. The scan
 * stops at element `maxElements` + 1 (`too_many`): a list longer than the calls sent
 * cannot be their answer, and a provider's million empty objects cost no more than that.
 */
export function readBatchAnswer (text: string, maxElements = Infinity): BatchAnswer {
  let start = 0
  while (start < text.length && isSpace(text.charCodeAt(start))) start++
  let end = text.length
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--
  const first = text.charCodeAt(start)
  if (first === OPEN_OBJECT && text.charCodeAt(end - 1) === CLOSE_OBJECT) return { kind: 'single', text: text.slice(start, end) }
  if (first !== OPEN_LIST || text.charCodeAt(end - 1) !== CLOSE_LIST) return GARBAGE
  return new ListScan(text, end, maxElements).read(start)
}

/** What a step of the scan gives: the index it stopped at, or how the scan ends early. */
type Step = number | BatchAnswer

/** One scan of a list's text, from its `[` to `end` (past its `]`): its elements, and where each stands. */
class ListScan {
  private readonly answers: Array<{ text: string, id: string | undefined }> = []
  private depth = 0
  /** Where the element being read starts (-1: between elements). */
  private element = -1
  private id: string | undefined
  /** At depth 2 (an element's own members): the next string is a key. */
  private keyNext = false
  /** At depth 2: the next value is the element's id. */
  private idValueNext = false

  constructor (private readonly text: string, private readonly end: number, private readonly maxElements: number) {}

  read (start: number): BatchAnswer {
    const { text, end } = this
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i)
      if (isSpace(c) || c === COLON) continue
      const step = c === QUOTE
        ? this.string(i)
        : c === OPEN_OBJECT || c === OPEN_LIST
          ? this.open(c, i)
          : c === CLOSE_OBJECT || c === CLOSE_LIST ? this.close(i) : c === COMMA ? this.comma(i) : this.bare(i)
      if (typeof step !== 'number') return step
      i = step
    }
    if (this.depth !== 0) return GARBAGE
    return { kind: 'list', answers: this.answers.map((a) => ({ text: a.text, id: a.id === undefined ? undefined : idKey(a.id) })) }
  }

  /** A string: a key of an element (is it `id`?), the element's id, or anything else skipped. */
  private string (i: number): Step {
    const after = stringEnd(this.text, i)
    if (after === -1 || this.depth === 1) return GARBAGE
    if (this.depth === 2 && this.keyNext) {
      this.idValueNext = this.text.slice(i, after) === '"id"'
      this.keyNext = false
    } else if (this.depth === 2 && this.idValueNext) {
      this.id = this.text.slice(i, after)
      this.idValueNext = false
    }
    return after - 1
  }

  /** An object or list opens: at depth 1, a new element (an object, or the answer is garbage). */
  private open (c: number, i: number): Step {
    if (this.depth === 1) {
      if (this.element !== -1 || c !== OPEN_OBJECT) return GARBAGE
      if (this.answers.length >= this.maxElements) return TOO_MANY
      this.element = i
      this.id = undefined
    }
    this.depth++
    this.keyNext = this.depth === 2 && c === OPEN_OBJECT
    this.idValueNext = false
    return i
  }

  /** An object or list closes: back at depth 1, the element is complete. */
  private close (i: number): Step {
    this.depth--
    if (this.depth < 0 || (this.depth === 0 && i !== this.end - 1)) return GARBAGE
    if (this.depth === 1) {
      this.answers.push({ text: this.text.slice(this.element, i + 1), id: this.id })
      this.element = -1
    }
    return i
  }

  private comma (i: number): Step {
    if (this.depth === 2) this.keyNext = true
    return i
  }

  /** A bare value (a number, true, false, null): an element's id, or anything else skipped. */
  private bare (i: number): Step {
    let stop = i
    while (stop < this.end && !endsValue(this.text.charCodeAt(stop))) stop++
    if (this.depth === 1) return GARBAGE
    if (this.depth === 2 && this.idValueNext) {
      this.id = this.text.slice(i, stop)
      this.idValueNext = false
    }
    return stop - 1
  }
}

/** An id's JSON text as written canonically (`1.0` and `1` alike), undefined when it is not JSON. */
function idKey (raw: string): string | undefined {
  try {
    const value: unknown = JSON.parse(raw)
    return value === null || typeof value === 'string' || typeof value === 'number' ? JSON.stringify(value) : undefined
  } catch {
    return undefined
  }
}

/** A call's id as the cut answers' ids are compared with it. */
export const idKeyOf = (id: string | number | null): string => JSON.stringify(id)
