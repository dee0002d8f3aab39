/**
 * A chunk batch's body read without holding the event loop (issue #26): a batch
 * may be 64 MiB of JSON, and parsing, checking and validating it in one go held
 * the loop for seconds. Here the body's bytes are put together in slices (as
 * Fastify would, in one go), its `chunks` list is cut into runs of records
 * by a byte scan, each run parsed and checked on its own (json-parser.ts's rules:
 * UTF-8, prototype-poisoning keys, unstorable text, nesting), and the records are
 * validated one at a time against the record's schema, yielding to the event
 * loop every few milliseconds.
 *
 * Every answer stays what parsing and validating the whole body at once gives:
 * a body of any other shape (another key, a BOM, not JSON…) or a run that does not
 * parse or nests too deep is parsed whole by json-parser.ts (so its 422 names the
 * exact position), and the validation's findings are listed in the order, and with
 * the `loc`, ajv gives them for the whole body.
 */
import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import type { ValidateFunction } from 'ajv'
import { errorCodes } from 'fastify'
import { RequestValidationError, type ValidationIssue } from '../errors.js'
import { enoughIssues } from '../http/answered-issues.js'
import { parseBody, parsePiece, walkText } from '../http/json-parser.js'
import { toValidationIssues } from '../http/pydantic-errors.js'
import { validatorCompiler } from '../http/validation.js'
import { ChunkBatchBody, ChunkRecord } from './chunk.schemas.js'
import { checkChunk } from './chunk.validation.js'

/** Longest stretch of work between two yields to the event loop (ms). */
const SLICE_MS = 8
/** About the most bytes of records parsed in one piece (a single larger record is parsed alone). */
const PIECE_BYTES = 256 * 1024

/** Lets other work run when the current stretch has lasted SLICE_MS; returns the new stretch's start. */
async function pause (since: number): Promise<number> {
  if (performance.now() - since < SLICE_MS) return since
  await new Promise((resolve) => setImmediate(resolve))
  return performance.now()
}

const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09

function skipSpace (bytes: Buffer, at: number): number {
  while (isSpace(bytes[at])) at++
  return at
}

const OPENING = Buffer.from('"chunks"')

/** Where the records of `{"chunks":[` start (after the `[`), or -1 for a body of another shape. */
function recordsStart (bytes: Buffer): number {
  let at = skipSpace(bytes, 0)
  if (bytes[at] !== 0x7b) return -1
  at = skipSpace(bytes, at + 1)
  if (!bytes.subarray(at, at + OPENING.length).equals(OPENING)) return -1
  at = skipSpace(bytes, at + OPENING.length)
  if (bytes[at] !== 0x3a) return -1
  at = skipSpace(bytes, at + 1)
  return bytes[at] === 0x5b ? at + 1 : -1
}

/**
 * The end (exclusive) of the object starting at `start` (a `{`): where its brackets
 * close, strings skipped; -1 when they never do. Only a guess for a body that is
 * not JSON: the piece holding it then fails to parse.
 */
function objectEnd (bytes: Buffer, start: number): number {
  let depth = 0
  for (let at = start; at < bytes.length; at++) {
    const byte = bytes[at]
    if (byte === 0x22) {
      at++
      while (at < bytes.length && bytes[at] !== 0x22) at += bytes[at] === 0x5c ? 2 : 1
      if (at >= bytes.length) return -1
    } else if (byte === 0x7b || byte === 0x5b) {
      depth++
    } else if (byte === 0x7d || byte === 0x5d) {
      if (--depth === 0) return at + 1
    }
  }
  return -1
}

/**
 * The body's bytes, read from `payload` as Fastify's own reader does for a parser
 * of `parseAs: 'buffer'` (the same 413 beyond `limit`, 400 when fewer or more bytes
 * came than content-length said, or the stream failed), except that the bytes are
 * put together in slices, yielding between them: Fastify copies a 64 MiB body in
 * one go.
 */
export async function receiveBody (headers: IncomingHttpHeaders, payload: Readable & { receivedEncodedLength?: number }, limit: number): Promise<Buffer> {
  const contentLength = Number(headers['content-length'])
  if (contentLength > limit) throw new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE()
  const chunks = await new Promise<Buffer[]>((resolve, reject) => {
    const received: Buffer[] = []
    let length = 0
    const stop = () => {
      payload.removeListener('data', onData)
      payload.removeListener('end', onEnd)
      payload.removeListener('error', onEnd)
    }
    function onData (chunk: Buffer | string) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      length += bytes.length
      if (length > limit || (payload.receivedEncodedLength ?? 0) > limit) {
        stop()
        reject(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE())
        return
      }
      received.push(bytes)
    }
    function onEnd (error?: Error & { statusCode?: number }) {
      stop()
      if (error != null) {
        if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400
        reject(error)
      } else if (!Number.isNaN(contentLength) && ((payload.receivedEncodedLength ?? 0) || length) !== contentLength) {
        reject(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH())
      } else {
        resolve(received)
      }
    }
    payload.on('data', onData)
    payload.on('end', onEnd)
    payload.on('error', onEnd)
    payload.resume()
  })
  const body = Buffer.allocUnsafe(chunks.reduce((sum, chunk) => sum + chunk.length, 0))
  let at = 0
  let since = performance.now()
  for (const chunk of chunks) {
    at += chunk.copy(body, at)
    since = await pause(since)
  }
  return body
}

const OPEN = Buffer.from('[')
const CLOSE = Buffer.from(']')

/**
 * The body of `POST /api/chunks/batch`, parsed and checked as json-parser.ts's
 * parseBody does (the same value, or the same 422), yielding as it goes.
 */
export async function readBatchBody (bytes: Buffer): Promise<unknown> {
  let at = recordsStart(bytes)
  if (at === -1) return parseBody(bytes)
  const records: unknown[] = []
  const issues: ValidationIssue[] = []
  let since = performance.now()
  at = skipSpace(bytes, at)
  if (bytes[at] === 0x5d) return parseBody(bytes)
  for (;;) {
    // A piece: records and the commas between them, up to about PIECE_BYTES.
    const start = at
    let end = -1
    let last = false
    for (;;) {
      if (bytes[at] !== 0x7b) return parseBody(bytes)
      end = objectEnd(bytes, at)
      if (end === -1) return parseBody(bytes)
      at = skipSpace(bytes, end)
      if (bytes[at] === 0x5d) {
        last = true
        break
      }
      if (bytes[at] !== 0x2c) return parseBody(bytes)
      at = skipSpace(bytes, at + 1)
      if (end - start >= PIECE_BYTES) break
    }
    const parsed = parsePiece(Buffer.concat([OPEN, bytes.subarray(start, end), CLOSE]))
    if (parsed === undefined) return parseBody(bytes)
    for (const record of parsed.value as unknown[]) {
      // The body is level 1, its list 2, a record 3.
      if (!walkText(record, ['body', 'chunks', records.length], 3, issues)) return parseBody(bytes)
      records.push(record)
    }
    since = await pause(since)
    if (last) break
  }
  // After the list's `]`: the body's `}`, then nothing but white space.
  at = skipSpace(bytes, at + 1)
  if (bytes[at] !== 0x7d || skipSpace(bytes, at + 1) !== bytes.length) return parseBody(bytes)
  if (issues.length > 0) throw new RequestValidationError(issues)
  return { chunks: records }
}

const compile = (schema: object) =>
  validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/api/chunks/batch' }) as ValidateFunction

/** The batch's schema without its records' (ajv checks the list's length before its items). */
const { items: _items, ...listSchema } = ChunkBatchBody.properties.chunks
const validateOuter = compile({ ...ChunkBatchBody, properties: { chunks: listSchema } })
const validateRecord = compile(ChunkRecord)

/**
 * Throws the 422 that validating the whole batch against its schema and then the
 * chunk rules (chunk.validation.ts's assertValidChunks) gives, or returns when
 * `body` is a valid batch; one record at a time, yielding as it goes.
 */
export async function assertValidBatch (body: unknown): Promise<void> {
  let since = performance.now()
  const issues: ValidationIssue[] = validateOuter(body) === true ? [] : toValidationIssues(validateOuter.errors ?? [], 'body', body)
  const records: unknown[] = Array.isArray((body as { chunks?: unknown } | null)?.chunks) ? (body as { chunks: unknown[] }).chunks : []
  // ajv's findings for the whole body are its findings for each record in turn, at the record's place.
  for (let i = 0; i < records.length && !enoughIssues(issues); i++) {
    if (validateRecord(records[i]) !== true) {
      const errors = (validateRecord.errors ?? []).map((error) => ({ ...error, instancePath: `/chunks/${i}${error.instancePath}` }))
      issues.push(...toValidationIssues(errors, 'body', body))
    }
    since = await pause(since)
  }
  for (let i = 0; i < records.length && !enoughIssues(issues); i++) {
    issues.push(...checkChunk(records[i], ['body', 'chunks', i]))
    since = await pause(since)
  }
  if (issues.length > 0) throw new RequestValidationError(issues)
}
