/**
 * JSON body parsing as FastAPI does it: an empty body is no body (so `curl -X POST
 * …/rotate` works), malformed JSON is a 422 `value_error.jsondecode`, and
 * prototype-poisoning keys are refused.
 */
import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { RequestValidationError } from '../errors.js'

/**
 * A body without these can hold no `__proto__` or `constructor` key (an escaped
 * spelling needs a backslash-u), so the plain parser is safe for it; searching the
 * raw bytes is much cheaper than secure-json-parse's regular-expression scans of
 * the text, which matters for large bodies (a chunk batch is megabytes).
 */
const SUSPECT = ['__proto__', 'constructor', '\\u']

function parseJson (body: Buffer): unknown {
  const suspect = SUSPECT.some((word) => body.includes(word))
  let text = body.toString('utf8')
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  if (text.trim() === '') return undefined
  try {
    if (!suspect) return JSON.parse(text)
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' })
  } catch (error) {
    throw new RequestValidationError([{
      loc: ['body'],
      msg: `Invalid JSON: ${(error as Error).message}`,
      type: 'value_error.jsondecode'
    }])
  }
}

/** Makes JSON the only accepted body type (anything else is a 415). */
export function registerJsonParser (app: FastifyInstance, bodyLimit: number): void {
  app.removeAllContentTypeParsers()
  const parser = (_request: unknown, body: Buffer, done: (err: Error | null, value?: unknown) => void) => {
    try {
      done(null, parseJson(body))
    } catch (error) {
      done(error as Error)
    }
  }
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, parser)
  app.addContentTypeParser(/^application\/[\w.-]+\+json$/, { parseAs: 'buffer', bodyLimit }, parser)
}
