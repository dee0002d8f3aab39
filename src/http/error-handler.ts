/**
 * The one error handler: domain errors become their status with `{"detail"}`,
 * validation failures become FastAPI's 422 (pydantic 2's entries, each `input`
 * masked and bounded), a body cut off by its client is logged as routine, and
 * anything unexpected is logged with the request id and answered with the
 * operation's `Failed to …: <sentence>`.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { isNotAnswering, isReadOnly } from '../db/errors.js'
import { DomainError, RequestValidationError } from '../errors.js'
import { answeredIssues } from './answered-issues.js'
import { toValidationIssues } from './pydantic-errors.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation's failure prefix, e.g. `Failed to list pools`. */
    failure?: string
    /** The spec reports every failure of this operation, expected ones too, as 500. */
    everyFailureIs500?: boolean
  }
}

const CLIENT_ERRORS: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'Request body is too large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported media type: send application/json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Request body length does not match Content-Length'
}

/** Explains an unexpected failure without leaking driver text, SQL or stack traces. */
export function sentenceFor (error: unknown, requestId: string): string {
  if (isNotAnswering(error)) return `the database is not answering; retry shortly (request id ${requestId})`
  if (isReadOnly(error)) return `the database is read-only and refuses writes (request id ${requestId})`
  return `an unexpected internal error occurred; the server log has details under request id ${requestId}`
}

/** Fastify error handler implementing the contract above. */
export function handleError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const config = request.routeOptions.config
  const failure = config.failure ?? 'Request failed'

  if (error.validation !== undefined) {
    const part = error.validationContext === 'body' ? request.body : undefined
    return reply.code(422).send({ detail: answeredIssues(toValidationIssues(error.validation as never, error.validationContext, part)) })
  }
  if (error instanceof RequestValidationError) {
    return reply.code(422).send({ detail: answeredIssues(error.issues) })
  }
  if (error instanceof DomainError) {
    if (config.everyFailureIs500 === true) return reply.code(500).send({ detail: `${failure}: ${error.message}` })
    return reply.code(error.status).send({ detail: error.message, ...error.extra })
  }
  if (error.statusCode === 429) return reply.code(429).send({ detail: error.message })
  // The client left (or was cut off by a timeout, connections.ts) while its body was arriving:
  // routine, and any client can cause it, so not an error of ours. Nothing can reach it now.
  if (error.code === 'ECONNRESET' && request.raw.destroyed) {
    request.log.info({ code: error.code }, 'the connection closed before the request body arrived')
    return reply.code(400).send({ detail: 'Malformed request: the connection closed before the body arrived' })
  }
  // Fastify's own refusals of a request (4xx, FST_ codes) are the client's to fix, never a 500;
  // their messages describe the request and hold nothing internal.
  if (error.code?.startsWith('FST_') === true && error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return reply.code(error.statusCode).send({ detail: CLIENT_ERRORS[error.code] ?? error.message })
  }
  request.log.error({ err: error }, 'request failed unexpectedly')
  return reply.code(500).send({ detail: `${failure}: ${sentenceFor(error, request.id)}` })
}
