/**
 * JSON body parsing as FastAPI does it: an empty body is no body (so `curl -X POST
 * …/rotate` works), malformed JSON is FastAPI 0.104's 422 `json_invalid` entry
 * (`loc: ["body", <character position>]`, `ctx.error` in Python's json words), and
 * prototype-poisoning keys are refused.
 *
 * Every parsed body is then walked once, so that no route has to think about
 * it again: text a database cannot store exactly (a NUL character or an unpaired
 * surrogate, in a key or a value) is a 422 naming where it is, and nesting deeper
 * than MAX_DEPTH is a 422, so nothing recursive later (ajv, JSON.stringify, the
 * audit's masking) can overflow the stack. Bytes that are not UTF-8 are refused
 * too: decoding them would quietly turn them into U+FFFD.
 */
import { isUtf8 } from 'node:buffer'
import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { RequestValidationError, valueError, type ValidationIssue } from '../errors.js'
import { enoughIssues } from './answered-issues.js'
import { isStorableText, UNSTORABLE_TEXT } from './validation.js'

/** Deepest nesting of arrays and objects a body may have (the body itself is level 1). */
export const MAX_DEPTH = 64

/**
 * A body without these can hold no `__proto__` or `constructor` key (an escaped
 * spelling needs a backslash-u), so the plain parser is safe for it; searching the
 * raw bytes is much cheaper than secure-json-parse's regular-expression scans of
 * the text, which matters for large bodies (a chunk batch is megabytes).
 */
const SUSPECT = ['__proto__', 'constructor', '\\u']

/** secure-json-parse's words for a prototype-poisoning key. */
const FORBIDDEN_KEY = 'Object contains forbidden prototype property'

/**
 * FastAPI 0.104's answer to a body that is not JSON: one `json_invalid` entry at the
 * position (in characters, as Python counts them) where reading stopped, `input` {}
 * and the reason in `ctx.error` (no `url`: FastAPI writes this entry itself).
 */
const jsonInvalid = (position: number, error: string) =>
  new RequestValidationError([{ type: 'json_invalid', loc: ['body', position], msg: 'JSON decode error', input: {}, ctx: { error } }])

/** The character position (code points, as Python's json counts) of the UTF-16 `index` in `text`. */
function codePointPosition (text: string, index: number): number {
  let position = index
  for (let i = 0; i < index - 1; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      position--
      i++
    }
  }
  return position
}

/** V8's words for JSON that does not parse, and Python's json module's for the same. */
const PYTHON_WORDS: Array<[RegExp, string]> = [
  [/^Expected (property name or '}'|double-quoted property name)/, 'Expecting property name enclosed in double quotes'],
  [/^Expected ',' or '[\]}]'/, "Expecting ',' delimiter"],
  [/^Expected ':' after property name/, "Expecting ':' delimiter"],
  [/^Unterminated string/, 'Unterminated string starting at'],
  [/^Unexpected non-whitespace character after JSON/, 'Extra data'],
  [/^Bad control character in string literal/, 'Invalid control character at'],
  [/^Bad Unicode escape/, 'Invalid \\uXXXX escape'],
  [/^Bad escaped character/, 'Invalid \\escape']
]

/** A JSON.parse failure as FastAPI answers Python's: where it stopped, in Python's words ("Expecting value" otherwise). */
function syntaxError (text: string, error: Error): RequestValidationError {
  const at = /at position (\d+)/.exec(error.message)
  const index = at === null ? text.length : Number(at[1])
  const words = PYTHON_WORDS.find(([v8]) => v8.test(error.message))?.[1] ?? 'Expecting value'
  return jsonInvalid(codePointPosition(text, index), words)
}

/** The position (in characters) of the first byte of `body` that is not UTF-8. */
function invalidUtf8Position (body: Buffer): number {
  // Decoding turns each invalid sequence into U+FFFD; the first one that was not sent as U+FFFD is it.
  const text = body.toString('utf8')
  let bytes = 0
  let from = 0
  for (let i = text.indexOf('\ufffd'); i !== -1; i = text.indexOf('\ufffd', i + 1)) {
    bytes += Buffer.byteLength(text.slice(from, i))
    if (body[bytes] !== 0xef || body[bytes + 1] !== 0xbf || body[bytes + 2] !== 0xbd) return codePointPosition(text, i)
    bytes += 3
    from = i + 1
  }
  return codePointPosition(text, text.length)
}

/**
 * Where in `text` (JSON that parses) a container opens deeper than MAX_DEPTH
 * (`depth`), or a prototype-poisoning key sits (`prototype`: `__proto__`, or
 * `prototype` inside `constructor`, what secure-json-parse refuses): a UTF-16 index.
 * Only run for a body already refused, so its cost is only ever paid by that request.
 */
function offendingIndex (text: string, what: 'depth' | 'prototype'): number {
  const holders: Array<string | undefined> = []
  let key: string | undefined
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === '"') {
      let end = i + 1
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1
      let next = end + 1
      while (next < text.length && ' \t\n\r'.includes(text[next] as string)) next++
      if (text[next] === ':') {
        key = JSON.parse(text.slice(i, end + 1)) as string
        if (what === 'prototype' && (key === '__proto__' || (key === 'prototype' && holders.at(-1) === 'constructor'))) return i
      }
      i = end
    } else if (c === '{' || c === '[') {
      holders.push(key)
      key = undefined
      if (what === 'depth' && holders.length > MAX_DEPTH) return i
    } else if (c === '}' || c === ']') {
      holders.pop()
      key = undefined
    } else if (c === ',') {
      key = undefined
    }
  }
  return 0
}

function parseJson (body: Buffer): { value: unknown, text: string } {
  if (!isUtf8(body)) throw jsonInvalid(invalidUtf8Position(body), 'the body is not valid UTF-8')
  const suspect = SUSPECT.some((word) => body.includes(word))
  let text = body.toString('utf8')
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  if (text.trim() === '') return { value: undefined, text }
  let value: unknown
  try {
    value = suspect ? secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }) : JSON.parse(text)
  } catch (error) {
    const message = (error as Error).message
    if (message === FORBIDDEN_KEY) throw jsonInvalid(codePointPosition(text, offendingIndex(text, 'prototype')), message)
    throw syntaxError(text, error as Error)
  }
  return { value, text }
}

/** Thrown by walkText when a container is nested deeper than MAX_DEPTH. */
class TooDeep extends Error {}

/**
 * Walks `value`, found at `path` and nesting level `depth` (the body itself is
 * level 1; a container inside it is at level 2), adding a `value_error` to
 * `issues` for each text a database cannot store (until there are more than an
 * answer lists: enoughIssues), its input the text refused (a key's own text for a
 * key). Returns false, at once, when a container in it is nested deeper than
 * MAX_DEPTH. Recursive but never deeper than MAX_DEPTH; numbers, booleans and nulls
 * cost a `typeof` each, so a batch of embeddings is cheap to walk.
 */
export function walkText (value: unknown, path: Array<string | number>, depth: number, issues: ValidationIssue[]): boolean {
  const text = (s: string) => {
    if (!enoughIssues(issues) && !isStorableText(s)) issues.push(valueError(path, s, UNSTORABLE_TEXT))
  }
  const visit = (container: object, depth: number): void => {
    if (depth > MAX_DEPTH) throw new TooDeep()
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const item: unknown = container[i]
        if (typeof item === 'object') {
          if (item === null) continue
          path.push(i)
          visit(item, depth + 1)
          path.pop()
        } else if (typeof item === 'string') {
          path.push(i)
          text(item)
          path.pop()
        }
      }
      return
    }
    for (const key of Object.keys(container)) {
      const item: unknown = (container as Record<string, unknown>)[key]
      path.push(key)
      // An unstorable key is reported at its own place, once, whatever its value.
      if (typeof item === 'string') text(isStorableText(key) ? item : key)
      else text(key)
      if (typeof item === 'object' && item !== null) visit(item, depth + 1)
      path.pop()
    }
  }
  const length = path.length
  try {
    if (typeof value === 'string') text(value)
    else if (typeof value === 'object' && value !== null) visit(value, depth)
  } catch (error) {
    if (!(error instanceof TooDeep)) throw error
    path.length = length
    return false
  }
  return true
}

/**
 * Throws the 422 for a parsed body nested deeper than MAX_DEPTH (at once: a
 * `json_invalid` entry at the bracket that goes too deep in `source`, the body's
 * text, when there is one) or holding unstorable text (a `value_error` at each place,
 * until there are more than an answer lists (enoughIssues: a body may hold millions
 * of strings), its input the text refused: a key's own text for a key): walkText
 * over the whole body.
 */
export function checkBody (value: unknown, source?: string): void {
  const issues: ValidationIssue[] = []
  if (!walkText(value, ['body'], 1, issues)) {
    const reason = `JSON is nested more than ${MAX_DEPTH} levels deep`
    if (source === undefined) throw new RequestValidationError([{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error', input: {}, ctx: { error: reason } }])
    throw jsonInvalid(codePointPosition(source, offendingIndex(source, 'depth')), reason)
  }
  if (issues.length > 0) throw new RequestValidationError(issues)
}

/**
 * A JSON body as every route receives it: parsed (an empty one is undefined),
 * then checked by checkBody; throws the 422 for one that is not JSON, not UTF-8,
 * holds a prototype-poisoning key, unstorable text or nesting too deep.
 */
export function parseBody (body: Buffer): unknown {
  const { value, text } = parseJson(body)
  checkBody(value, text)
  return value
}

/**
 * Parses one piece of a body (a JSON value on its own, in `bytes`) as parseJson
 * parses a whole one, or returns undefined when the piece is not UTF-8, not JSON,
 * or holds a prototype-poisoning key: the caller then parses the whole body with
 * parseBody, for the answer's exact words and position.
 */
export function parsePiece (bytes: Buffer): { value: unknown } | undefined {
  if (!isUtf8(bytes)) return undefined
  const text = bytes.toString('utf8')
  try {
    const suspect = SUSPECT.some((word) => bytes.includes(word))
    return { value: suspect ? secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }) : JSON.parse(text) }
  } catch {
    return undefined
  }
}

/** Makes JSON the only accepted body type (anything else is a 415). */
export function registerJsonParser (app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers()
  const parser = (_request: unknown, body: Buffer, done: (err: Error | null, value?: unknown) => void) => {
    try {
      done(null, parseBody(body))
    } catch (error) {
      done(error as Error)
    }
  }
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, parser)
  app.addContentTypeParser(/^application\/[\w.-]+\+json$/, { parseAs: 'buffer', bodyLimit }, parser)
}
