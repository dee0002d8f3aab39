/**
 * A cached answer as Redis keeps it (one binary value), and the check that a value
 * read back is one of ours, whole and valid, before the proxy replays it. Anything
 * can happen to a value outside this process (a cut write, a hand edit, another
 * program on the same prefix), and a replayed header holding CR/LF or a status no
 * answer has breaks the client's connection; such a value is damaged, never served.
 * The check is what a HIT pays: two length compares, a type test per field, and a
 * pattern test per stored header (a handful). The memory store needs none: its
 * entries are objects this process made and nothing else can reach.
 */
import { CACHEABLE_STATUSES } from '../rules/cache-policy.js'
import type { CachedAnswer } from './cache-store.js'

/** The first byte of every stored value: this layout. */
const FORMAT = 2
/** The layout before the body's length was recorded: another version's entry, a plain miss (the next answer stored replaces it). */
const EARLIER_FORMAT = 1
/** FORMAT, then the JSON head's length and the body's, 4 bytes each, big-endian. */
const PREFIX_BYTES = 9

/** A header name as the store writes it: a lower-case HTTP token (RFC 9110 5.6.2). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/
/** A character Node refuses in a header value (CR, LF, NUL and the other controls but tab). */
const BAD_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/
/** Headers that frame the connection, never stored (dropped with the hop-by-hop ones before an answer is). */
const FRAMING = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-connection'])

/** An entry as one value: FORMAT, the JSON head's length, the body's length, the head, then the body bytes. */
export function encodeAnswer (entry: CachedAnswer): Buffer {
  const { status, headers, provider, storedAt, freshUntil, staleUntil, vary } = entry
  const head = Buffer.from(JSON.stringify({ status, headers, provider, storedAt, freshUntil, staleUntil, vary }))
  const prefix = Buffer.alloc(PREFIX_BYTES)
  prefix[0] = FORMAT
  prefix.writeUInt32BE(head.length, 1)
  prefix.writeUInt32BE(entry.body.length, 5)
  return Buffer.concat([prefix, head, entry.body])
}

/**
 * The entry `value` holds; undefined for an earlier version's layout (a miss, nothing
 * wrong); otherwise why it is damaged, in words that quote none of its content.
 */
export function decodeAnswer (value: Buffer): CachedAnswer | string | undefined {
  if (value.length > 0 && value[0] === EARLIER_FORMAT) return undefined
  if (value.length < PREFIX_BYTES || value[0] !== FORMAT) return 'its layout is unknown'
  const headEnd = PREFIX_BYTES + value.readUInt32BE(1)
  const bodyLength = value.readUInt32BE(5)
  if (headEnd + bodyLength !== value.length) return `it is ${value.length} bytes where it records ${headEnd + bodyLength}`
  let head: unknown
  try {
    head = JSON.parse(value.toString('utf8', PREFIX_BYTES, headEnd))
  } catch {
    return 'its head is not JSON'
  }
  const problem = headProblem(head, bodyLength)
  if (problem !== null) return problem
  return { ...(head as Omit<CachedAnswer, 'body'>), body: value.subarray(headEnd) }
}

/** What is wrong with a decoded head of an entry whose body is `bodyLength` bytes, or null. */
function headProblem (head: unknown, bodyLength: number): string | null {
  if (!isRecord(head)) return 'its head is not an object'
  if (typeof head.status !== 'number' || !CACHEABLE_STATUSES.has(head.status)) return 'its status is not one the cache stores'
  if (!Number.isFinite(head.storedAt) || !Number.isFinite(head.freshUntil) || !Number.isFinite(head.staleUntil)) return 'its times are not numbers'
  if (head.provider !== null && typeof head.provider !== 'string') return 'its provider is not a name'
  if (head.vary !== null && !(isRecord(head.vary) && Object.values(head.vary).every((v) => typeof v === 'string'))) return 'its Vary values are not strings'
  if (!isRecord(head.headers)) return 'its headers are not an object'
  return headersProblem(head.headers, bodyLength)
}

/** What is wrong with stored headers that the proxy would send as they are, or null. */
function headersProblem (headers: Record<string, unknown>, bodyLength: number): string | null {
  for (const name in headers) {
    if (!HEADER_NAME.test(name)) return 'a header name is not a lower-case HTTP token'
    if (FRAMING.has(name)) return 'it holds a header that frames the connection'
    const value = headers[name]
    if (typeof value === 'string') {
      if (BAD_VALUE_CHAR.test(value)) return 'a header value holds a control character'
      if (name === 'content-length' && value !== String(bodyLength)) return 'its Content-Length is not its body\'s length'
    } else if (Array.isArray(value) && name !== 'content-length') {
      for (const one of value) {
        if (typeof one !== 'string') return 'a header value is not text'
        if (BAD_VALUE_CHAR.test(one)) return 'a header value holds a control character'
      }
    } else return 'a header value is not text'
  }
  return null
}

function isRecord (value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
