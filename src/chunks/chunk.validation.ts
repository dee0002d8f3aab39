/**
 * The chunk rules a JSON schema cannot state, checked on every record of a
 * request so one 422 lists every problem (with the record's index in a batch):
 * the embedding's length equals `embedding_dim`, every number is finite, and
 * dates are ISO 8601. (Text both databases store exactly is checked for every
 * body as it is parsed: http/json-parser.ts.)
 */
import { pydanticIssue, RequestValidationError, valueError, type ValidationIssue } from '../errors.js'
import { enoughIssues } from '../http/answered-issues.js'
import { toValidationIssues } from '../http/pydantic-errors.js'
import { MAX_DIM } from './chunk.schemas.js'

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2})(?::?(\d{2}))?)?)?$/

/** True for an ISO 8601 calendar date (`2026-11-22`) or date-time (`2026-11-22T10:17:43.818Z`, offsets allowed). */
export function isIsoDate (text: string): boolean {
  const match = ISO_DATE.exec(text)
  if (match === null) return false
  const [, year, month, day, hour, minute, second, offsetHours, offsetMinutes] = match.map((part) => part === undefined ? undefined : Number(part))
  const daysInMonth = new Date(Date.UTC(year as number, month as number, 0)).getUTCDate()
  if ((month as number) < 1 || (month as number) > 12 || (day as number) < 1 || (day as number) > daysInMonth) return false
  if (hour !== undefined && (hour > 23 || (minute as number) > 59 || (second ?? 0) > 59)) return false
  if (offsetHours !== undefined && (offsetHours > 23 || (offsetMinutes ?? 0) > 59)) return false
  return true
}

/** pydantic 2's words for a number JSON cannot hold (`1e999` reads as infinity): `finite_number`. */
export const finiteNumberIssue = (loc: ReadonlyArray<string | number>, input: unknown): ValidationIssue =>
  pydanticIssue('finite_number', loc, 'Input should be a finite number', input)

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The rule violations of one record at `loc` (fields of the wrong type are left to the schema). */
export function checkChunk (value: unknown, loc: Array<string | number>): ValidationIssue[] {
  if (!isObject(value)) return []
  const issues: ValidationIssue[] = []

  const { embedding, embedding_dim: dim } = value
  if (Array.isArray(embedding)) {
    let bad = -1
    for (let i = 0; i < embedding.length && bad === -1; i++) {
      const x: unknown = embedding[i]
      if (typeof x === 'number' && !Number.isFinite(x)) bad = i
    }
    if (bad !== -1) issues.push(finiteNumberIssue([...loc, 'embedding', bad], embedding[bad]))
    if (Number.isInteger(dim) && (dim as number) >= 1 && (dim as number) <= MAX_DIM && embedding.length !== dim) {
      issues.push(valueError([...loc, 'embedding'], embedding, `embedding has ${embedding.length} numbers but embedding_dim is ${String(dim)}`))
    }
  }

  const metadata = value.metadata
  if (isObject(metadata)) {
    const created = metadata.created_timestamp
    if (typeof created === 'string' && !isIsoDate(created)) {
      issues.push(valueError([...loc, 'metadata', 'created_timestamp'], created, 'not an ISO 8601 date or date-time'))
    }
  }
  return issues
}

/**
 * Throws one 422 listing the schema's findings (routes validate with
 * `attachValidation`) and the rules above for every record (until there are more
 * than an answer lists: enoughIssues), or returns when there are none.
 */
export function assertValidChunks (validationError: { validation?: unknown, validationContext?: string } | undefined, records: Array<{ value: unknown, loc: Array<string | number> }>, body: unknown): void {
  const issues: ValidationIssue[] = []
  if (validationError !== undefined) {
    issues.push(...toValidationIssues(validationError.validation as never, validationError.validationContext, validationError.validationContext === 'body' ? body : undefined))
  }
  for (const { value, loc } of records) {
    if (enoughIssues(issues)) break
    issues.push(...checkChunk(value, loc))
  }
  if (issues.length > 0) throw new RequestValidationError(issues)
}
