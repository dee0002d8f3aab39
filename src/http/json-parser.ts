/**
 * JSON body parsing as FastAPI does it: an empty body is no body (so `curl -X POST
 * …/rotate` works), malformed JSON is a 422 `value_error.jsondecode`, and
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
import { RequestValidationError, type ValidationIssue } from '../errors.js'
import { isStorableText, UNSTORABLE_TEXT } from './validation.js'

/** Deepest nesting of arrays and objects a body may have (the body itself is level 1). */
export const MAX_DEPTH = 64

/** Most unstorable-text findings listed in one 422 (a body may hold millions of strings). */
const MAX_ISSUES = 100

/**
 * A body without these can hold no `__proto__` or `constructor` key (an escaped
 * spelling needs a backslash-u), so the plain parser is safe for it; searching the
 * raw bytes is much cheaper than secure-json-parse's regular-expression scans of
 * the text, which matters for large bodies (a chunk batch is megabytes).
 */
const SUSPECT = ['__proto__', 'constructor', '\\u']

const jsonDecodeError = (msg: string, type = 'value_error.jsondecode') => new RequestValidationError([{ loc: ['body'], msg, type }])

function parseJson (body: Buffer): unknown {
  if (!isUtf8(body)) throw jsonDecodeError('Invalid JSON: the body is not valid UTF-8')
  const suspect = SUSPECT.some((word) => body.includes(word))
  let text = body.toString('utf8')
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  if (text.trim() === '') return undefined
  try {
    if (!suspect) return JSON.parse(text)
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    throw jsonDecodeError(`Invalid JSON: ${(error as Error).message}`)
  }
}

/**
 * Throws the 422 for a parsed body nested deeper than MAX_DEPTH (at once) or
 * holding unstorable text (listing each place, up to MAX_ISSUES). One pass,
 * recursive but never deeper than MAX_DEPTH; numbers, booleans and nulls cost a
 * `typeof` each, so a batch of embeddings is cheap to walk.
 */
export function checkBody (value: unknown): void {
  const issues: ValidationIssue[] = []
  const path: Array<string | number> = ['body']
  const text = (s: string) => {
    if (!isStorableText(s) && issues.length < MAX_ISSUES) issues.push({ loc: [...path], ...UNSTORABLE_TEXT })
  }
  const visit = (container: object, depth: number): void => {
    if (depth > MAX_DEPTH) {
      throw jsonDecodeError(`JSON is nested more than ${MAX_DEPTH} levels deep`, 'value_error.jsondecode.depth')
    }
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
  if (typeof value === 'string') text(value)
  else if (typeof value === 'object' && value !== null) visit(value, 1)
  if (issues.length > 0) throw new RequestValidationError(issues)
}

/** Makes JSON the only accepted body type (anything else is a 415). */
export function registerJsonParser (app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers()
  const parser = (_request: unknown, body: Buffer, done: (err: Error | null, value?: unknown) => void) => {
    try {
      const value = parseJson(body)
      checkBody(value)
      done(null, value)
    } catch (error) {
      done(error as Error)
    }
  }
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, parser)
  app.addContentTypeParser(/^application\/[\w.-]+\+json$/, { parseAs: 'buffer', bodyLimit }, parser)
}
