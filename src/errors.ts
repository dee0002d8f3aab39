/**
 * The domain errors services throw, and the FastAPI-shaped bodies the one error
 * handler (see http/error-handler.ts) turns them into.
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

/** One entry of a 422 body, as FastAPI (pydantic v1) writes it. */
export interface ValidationIssue {
  loc: Array<string | number>
  msg: string
  type: string
  ctx?: Record<string, unknown>
}

/** Thrown for a request FastAPI would reject with 422 (for example malformed JSON). */
export class RequestValidationError extends Error {
  readonly statusCode = 422
  constructor (readonly issues: ValidationIssue[]) {
    super(issues.map((i) => i.msg).join('; '))
  }
}
