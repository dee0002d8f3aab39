/**
 * The chunk rules a JSON schema cannot state, checked on every record of a
 * request so one 422 lists every problem (with the record's index in a batch):
 * the embedding's length equals `embedding_dim`, every number is finite, and
 * dates are ISO 8601. (Text both databases store exactly is checked for every
 * body as it is parsed: http/json-parser.ts.)
 */
import { RequestValidationError, type ValidationIssue } from '../errors.js'
import { toValidationIssues } from '../http/validation.js'
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
    if (bad !== -1) issues.push({ loc: [...loc, 'embedding', bad], msg: 'value is not a finite number', type: 'value_error.number.not_finite' })
    if (Number.isInteger(dim) && (dim as number) >= 1 && (dim as number) <= MAX_DIM && embedding.length !== dim) {
      issues.push({
        loc: [...loc, 'embedding'],
        msg: `embedding has ${embedding.length} numbers but embedding_dim is ${String(dim)}`,
        type: 'value_error.embedding.length',
        ctx: { embedding_length: embedding.length, embedding_dim: dim }
      })
    }
  }

  const metadata = value.metadata
  if (isObject(metadata)) {
    const created = metadata.created_timestamp
    if (typeof created === 'string' && !isIsoDate(created)) {
      issues.push({ loc: [...loc, 'metadata', 'created_timestamp'], msg: 'value is not a valid ISO 8601 date or date-time', type: 'value_error.datetime' })
    }
  }
  return issues
}

/**
 * Throws one 422 listing the schema's findings (routes validate with
 * `attachValidation`) and the rules above for every record, or returns when
 * there are none.
 */
export function assertValidChunks (validationError: { validation?: unknown, validationContext?: string } | undefined, records: Array<{ value: unknown, loc: Array<string | number> }>, body: unknown): void {
  const issues: ValidationIssue[] = []
  if (validationError !== undefined) {
    issues.push(...toValidationIssues(validationError.validation as never, validationError.validationContext, validationError.validationContext === 'body' ? body : undefined))
  }
  for (const { value, loc } of records) issues.push(...checkChunk(value, loc))
  if (issues.length > 0) throw new RequestValidationError(issues)
}
