/**
 * JSON body parsing as FastAPI does it: an empty body is no body (so `curl -X POST
 * …/rotate` works), malformed JSON is a 422 `value_error.jsondecode`, and
 * prototype-poisoning keys are refused.
 */
import type { FastifyInstance } from 'fastify'
import secureJson from 'secure-json-parse'
import { RequestValidationError } from '../errors.js'

function parseJson (text: string): unknown {
  if (text.trim() === '') return undefined
  try {
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
  const parser = (_request: unknown, body: string | Buffer, done: (err: Error | null, value?: unknown) => void) => {
    try {
      done(null, parseJson(body.toString()))
    } catch (error) {
      done(error as Error)
    }
  }
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, parser)
  app.addContentTypeParser(/^application\/[\w.-]+\+json$/, { parseAs: 'string', bodyLimit }, parser)
}
