/**
 * The domain errors services throw, and the FastAPI-shaped bodies the one error
 * handler (see http/error-handler.ts) turns them into: 422 entries in pydantic 2's
 * words (docs/decisions.md, "Validation").
 */

/** A failure a service expects and can name; `status` is its HTTP status. */
export class DomainError extends Error {
  /** `extra` adds fields to the `{"detail"}` body (for example the offending indexes of a batch). */
  constructor (readonly status: number, message: string, readonly extra?: Record<string, unknown>) {
    super(message)
    this.name = new.target.name
  }
}

/** Something addressed by the request does not exist (404). */
export class NotFoundError extends DomainError {
  constructor (message: string) { super(404, message) }
}

/** The request collides with existing state, such as a unique name (409). */
export class ConflictError extends DomainError {
  constructor (message: string, extra?: Record<string, unknown>) { super(409, message, extra) }
}

/**
 * One entry of a 422 body, as FastAPI 0.104 writes pydantic 2.5's errors
 * (`jsonable_encoder(exc.errors())`): keys in pydantic's order.
 */
export interface ValidationIssue {
  type: string
  loc: Array<string | number>
  msg: string
  /**
   * The value at `loc` as sent (for `missing`, the object that lacks the field; null
   * when there is none); masked and bounded when answered (http/answered-issues.ts).
   */
  input: unknown
  ctx?: Record<string, unknown>
  /** pydantic's page on the type: its own errors have one; custom ones (`enum`) and FastAPI's `json_invalid` none. */
  url?: string
}

/** Where pydantic 2.5's `errors()` points for an error type (major.minor of the pinned version). */
export const PYDANTIC_ERRORS_URL = 'https://errors.pydantic.dev/2.5/v/'

/** An issue of one of pydantic 2.5's own error types, with the URL `errors()` gives it. */
export function pydanticIssue (type: string, loc: ReadonlyArray<string | number>, msg: string, input: unknown, ctx?: Record<string, unknown>): ValidationIssue {
  const issue: ValidationIssue = { type, loc: [...loc], msg, input }
  if (ctx !== undefined) issue.ctx = ctx
  issue.url = `${PYDANTIC_ERRORS_URL}${type}`
  return issue
}

/**
 * A rule of this service broken, as pydantic 2 reports a validator's ValueError:
 * `value_error`, `Value error, <sentence>`, and `ctx.error` as FastAPI 0.104 encodes the
 * exception object (`{}`: jsonable_encoder falls back to its empty `vars()`).
 */
export function valueError (loc: ReadonlyArray<string | number>, input: unknown, sentence: string): ValidationIssue {
  return pydanticIssue('value_error', loc, `Value error, ${sentence}`, input, { error: {} })
}

/**
 * An issue's words for a person: its message without pydantic's `Value error, `
 * prefix, and for JSON that does not parse the reason (`ctx.error`) rather than
 * FastAPI's bare `JSON decode error`.
 */
export function issueText (issue: Pick<ValidationIssue, 'type' | 'msg' | 'ctx'>): string {
  if (issue.type === 'json_invalid' && typeof issue.ctx?.error === 'string') return issue.ctx.error
  return issue.msg.startsWith('Value error, ') ? issue.msg.slice('Value error, '.length) : issue.msg
}

/** Thrown for a request FastAPI would reject with 422 (for example malformed JSON). */
export class RequestValidationError extends Error {
  readonly statusCode = 422
  constructor (readonly issues: ValidationIssue[]) {
    super(issues.map((i) => i.msg).join('; '))
  }
}
