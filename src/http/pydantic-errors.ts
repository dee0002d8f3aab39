/**
 * ajv's errors in the words of FastAPI 0.104 with pydantic 2.5 (types, messages,
 * `ctx` and `url` as pydantic writes them: docs/decisions.md, "Validation"),
 * which clients of the original service parse: toValidationIssues turns the
 * errors of one request part into `detail` entries. URLs and date-times have
 * words of their own (url-words.ts, date-time-words.ts).
 */
import type { ErrorObject } from 'ajv'
import { pydanticIssue, type ValidationIssue } from '../errors.js'
import { enoughIssues } from './answered-issues.js'
import { dateTimeWords } from './date-time-words.js'
import { isUrlSchema, urlSchemes, urlWords } from './url-words.js'

/** A JSON pointer (`/a/0/b~1c`) as a `loc` tail (`['a', 0, 'b/c']`). */
export const segmentsOf = (instancePath: string): Array<string | number> =>
  instancePath.split('/').slice(1).map((part) => /^\d+$/.test(part) ? Number(part) : part.replace(/~1/g, '/').replace(/~0/g, '~'))

const LOCATIONS: Record<string, string> = { body: 'body', params: 'path', querystring: 'query', headers: 'header' }

/** An issue's type, message and context, before its place and input are known. */
export interface Words { type: string, msg: string, ctx?: Record<string, unknown>, custom?: boolean }

/** A text as Python's `repr` writes it, as pydantic quotes allowed values (`'round_robin'`). */
function pythonRepr (value: unknown): string {
  if (typeof value !== 'string') return typeof value === 'boolean' ? (value ? 'True' : 'False') : value === null ? 'None' : String(value)
  if (value.includes("'") && !value.includes('"')) return `"${value.replace(/\\/g, '\\\\')}"`
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
}

/** Allowed values as pydantic lists them: `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`. */
function expectedList (values: unknown[]): string {
  const reprs = values.map(pythonRepr)
  return reprs.length <= 1 ? (reprs[0] ?? '') : `${reprs.slice(0, -1).join(', ')} or ${reprs.at(-1) as string}`
}

const plural = (n: unknown) => n === 1 ? '' : 's'

/** The type word pydantic uses for a schema's JSON type (`int`, `str`…), as it labels a union's members. */
function memberLabel (schema: Record<string, unknown> | undefined): string | undefined {
  const type = ([] as unknown[]).concat(schema?.type).find((t) => t !== 'null')
  const word = ({ integer: 'int', number: 'float', string: 'str', boolean: 'bool', array: 'list', object: 'dict' } as Record<string, string>)[String(type)]
  if (word === undefined) return undefined
  const constrained = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minLength', 'maxLength', 'pattern', 'minItems', 'maxItems']
    .some((keyword) => schema?.[keyword] !== undefined)
  return constrained ? `constrained-${word}` : word
}

/**
 * pydantic 2.5's words for an ajv error. A body is typed strictly (no coercion):
 * a value of the wrong JSON type is reported with the `*_type` error pydantic
 * gives in strict mode (`int_type`, `string_type`…), the one exception being a
 * fractional number for an integer (`int_from_float`, pydantic's words in any mode).
 * Path and query values arrive as text, so theirs are the `*_parsing` errors.
 */
function describe (error: ErrorObject, text: boolean): Words {
  const p = error.params as Record<string, unknown>
  const schema = error.parentSchema as Record<string, unknown> | undefined
  const data = error.data
  switch (error.keyword) {
    case 'required':
      return { type: 'missing', msg: 'Field required' }
    case 'type': {
      const type = ([] as unknown[]).concat(p.type).find((t) => t !== 'null')
      switch (type) {
        case 'integer':
          if (text) return { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' }
          if (typeof data === 'number') return { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' }
          return { type: 'int_type', msg: 'Input should be a valid integer' }
        case 'number':
          return text
            ? { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' }
            : { type: 'float_type', msg: 'Input should be a valid number' }
        case 'boolean':
          return text
            ? { type: 'bool_parsing', msg: 'Input should be a valid boolean, unable to interpret input' }
            : { type: 'bool_type', msg: 'Input should be a valid boolean' }
        case 'string':
          return { type: 'string_type', msg: 'Input should be a valid string' }
        case 'array':
          return { type: 'list_type', msg: 'Input should be a valid list' }
        case 'object':
          // A schema with fields is a model (FastAPI validates with from_attributes); one without, a dict.
          return schema?.properties !== undefined
            ? { type: 'model_attributes_type', msg: 'Input should be a valid dictionary or object to extract fields from' }
            : { type: 'dict_type', msg: 'Input should be a valid dictionary' }
        case 'null':
          return { type: 'none_required', msg: 'Input should be None' }
        default:
          return { type: 'value_error', msg: `Value error, must be of type ${String(type)}`, ctx: { error: {} } }
      }
    }
    case 'unstorable':
      // validation.ts's refusal of text a database cannot store: its message is the sentence.
      return { type: 'value_error', msg: `Value error, ${error.message ?? ''}`, ctx: { error: {} } }
    case 'minimum':
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${String(p.limit)}`, ctx: { ge: p.limit } }
    case 'exclusiveMinimum':
      return { type: 'greater_than', msg: `Input should be greater than ${String(p.limit)}`, ctx: { gt: p.limit } }
    case 'maximum':
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${String(p.limit)}`, ctx: { le: p.limit } }
    case 'exclusiveMaximum':
      return { type: 'less_than', msg: `Input should be less than ${String(p.limit)}`, ctx: { lt: p.limit } }
    case 'minLength': {
      const schemes = urlSchemes(schema)
      if (schemes !== undefined) return urlWords(String(data), schemes)
      return { type: 'string_too_short', msg: `String should have at least ${String(p.limit)} character${plural(p.limit)}`, ctx: { min_length: p.limit } }
    }
    case 'maxLength':
      if (isUrlSchema(schema)) return { type: 'url_too_long', msg: `URL should have at most ${String(p.limit)} character${plural(p.limit)}`, ctx: { max_length: p.limit } }
      return { type: 'string_too_long', msg: `String should have at most ${String(p.limit)} character${plural(p.limit)}`, ctx: { max_length: p.limit } }
    case 'minItems':
    case 'minProperties': {
      const fieldType = error.keyword === 'minItems' ? 'List' : 'Dictionary'
      const actual = lengthOf(data)
      return {
        type: 'too_short',
        msg: `${fieldType} should have at least ${String(p.limit)} item${plural(p.limit)} after validation, not ${actual}`,
        ctx: { field_type: fieldType, min_length: p.limit, actual_length: actual }
      }
    }
    case 'maxItems':
    case 'maxProperties': {
      const fieldType = error.keyword === 'maxItems' ? 'List' : 'Dictionary'
      const actual = lengthOf(data)
      return {
        type: 'too_long',
        msg: `${fieldType} should have at most ${String(p.limit)} item${plural(p.limit)} after validation, not ${actual}`,
        ctx: { field_type: fieldType, max_length: p.limit, actual_length: actual }
      }
    }
    case 'enum': {
      // pydantic 2.5 checks an Enum with a PydanticCustomError: type `enum`, no URL.
      const expected = expectedList((p.allowedValues as unknown[]).filter((v) => v !== null))
      return { type: 'enum', msg: `Input should be ${expected}`, ctx: { expected }, custom: true }
    }
    case 'const': {
      const expected = expectedList([p.allowedValue])
      return { type: 'literal_error', msg: `Input should be ${expected}`, ctx: { expected } }
    }
    case 'pattern': {
      const schemes = urlSchemes(schema)
      if (schemes !== undefined) return urlWords(String(data), schemes)
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${String(p.pattern)}'`, ctx: { pattern: p.pattern } }
    }
    case 'format':
      if (p.format === 'date-time') return dateTimeWords(String(data))
      return { type: 'value_error', msg: `Value error, not a valid ${String(p.format)}`, ctx: { error: {} } }
    case 'additionalProperties':
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' }
    default:
      return { type: 'value_error', msg: `Value error, ${error.message ?? 'invalid value'}`, ctx: { error: {} } }
  }
}

const lengthOf = (value: unknown) => Array.isArray(value) ? value.length : value !== null && typeof value === 'object' ? Object.keys(value).length : 0

/**
 * Turns ajv errors for one request part into FastAPI's `detail` entries, in
 * pydantic 2.5's words. `value` is the part as parsed (the body: a missing body is
 * one `missing` entry at `["body"]` with input null, as FastAPI 0.104 answers).
 * A union's members each report under their label (`constrained-int`), as
 * pydantic's do; `anyOf` and `propertyNames` themselves add nothing. ajv lists
 * every error of a large body (`allErrors`): translating stops once there are
 * more than an answer lists (enoughIssues).
 */
export function toValidationIssues (errors: ErrorObject[], context: string | undefined, value: unknown): ValidationIssue[] {
  const where = LOCATIONS[context ?? 'body'] ?? 'body'
  if (where === 'body' && (value === undefined || value === null)) return [pydanticIssue('missing', ['body'], 'Field required', null)]
  const issues: ValidationIssue[] = []
  for (const error of errors) {
    if (enoughIssues(issues)) break
    if (error.keyword === 'anyOf' || error.keyword === 'propertyNames') continue
    const loc: Array<string | number> = [where, ...segmentsOf(error.instancePath)]
    let input: unknown = error.data
    const p = error.params as { missingProperty?: string, additionalProperty?: string }
    if (error.keyword === 'required') {
      loc.push(String(p.missingProperty))
      // FastAPI reports a missing path, query or header value itself (input None); pydantic, the object lacking the field.
      if (where !== 'body') input = null
    } else if (error.keyword === 'additionalProperties') {
      loc.push(String(p.additionalProperty))
      input = error.data !== null && typeof error.data === 'object' ? (error.data as Record<string, unknown>)[String(p.additionalProperty)] : null
    } else if (error.propertyName !== undefined) {
      // A key refused by propertyNames: pydantic checks a dict's keys at `[key]` under the key.
      loc.push(error.propertyName, '[key]')
      input = error.propertyName
    }
    const member = /\/anyOf\/\d+\/[^/]+$/.test(error.schemaPath) ? memberLabel(error.parentSchema as Record<string, unknown>) : undefined
    if (member !== undefined) loc.push(member)
    const { type, msg, ctx, custom } = describe(error, where !== 'body')
    if (custom === true) issues.push({ type, loc, msg, input, ...(ctx !== undefined ? { ctx } : {}) })
    else issues.push(pydanticIssue(type, loc, msg, input, ctx))
  }
  return issues
}
