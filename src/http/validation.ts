/**
 * Request validation: two ajv instances (strict JSON types for bodies, string
 * coercion for path and query values) and the translation of ajv's errors into
 * the `detail` list FastAPI 0.104 answers with pydantic 2.5 (types, messages,
 * `ctx` and `url` as pydantic writes them: docs/decisions.md, "Validation"),
 * which clients of the original service parse.
 *
 * Rules every route gets without asking for them: path and query text a
 * database cannot store exactly is refused (bodies are checked as they are
 * parsed, in json-parser.ts); an integer in the path or query is plain decimal
 * digits (ajv's coercion alone reads `0x10`, `1e1`, `+1`, `1.0` and ` 1` as
 * integers); and a `date-time` is an instant the service can hold and write back.
 *
 * Every 422 entry, whoever made it, is answered through answeredIssues: the
 * `input` it echoes never shows a credential and never exceeds a few kilobytes.
 */
import { Ajv, type ErrorObject } from 'ajv'
import * as ajvFormats from 'ajv-formats'
import type { FormatsPlugin } from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import { pydanticIssue, type ValidationIssue } from '../errors.js'
import { MASK, maskRequestTarget, maskUrl, SECRET_NAME } from './redact.js'

/** Why text a database cannot store exactly is refused (see isStorableText); a `value_error`'s sentence. */
export const UNSTORABLE_TEXT = 'text contains a NUL character or an unpaired surrogate, which cannot be stored'

/**
 * Whether PostgreSQL and SQLite both store `text` exactly: PostgreSQL refuses a
 * NUL character outright, and both write an unpaired surrogate as U+FFFD.
 */
export function isStorableText (text: string): boolean {
  return !text.includes('\u0000') && (text as unknown as { isWellFormed: () => boolean }).isWellFormed()
}

/** The instants `toISOString` writes as `YYYY-MM-DDTHH:mm:ss.sssZ` (four-digit years), the form stored and compared. */
const EARLIEST_INSTANT = Date.parse('0000-01-01T00:00:00.000Z')
const LATEST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z')

/** ajv-formats' RFC 3339 check of a date-time (set by makeAjv), for the words of a refusal. */
let isRfc3339 = (_text: string): boolean => false

function makeAjv (coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: true,
    allErrors: true,
    strict: false,
    // Errors carry the value they are about (`data`) and the schema that refused it: the 422's `input` and words.
    verbose: true
  })
  addFormats(ajv)
  // RFC 3339 allows a leap second (`23:59:60`), which Date cannot hold: a route
  // reading the value would fail with a 500. A date-time must also be one Date reads.
  const rfc3339 = ajv.formats['date-time'] as { validate: (text: string) => boolean, compare: (a: string, b: string) => number | undefined }
  isRfc3339 = rfc3339.validate
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => {
      if (!rfc3339.validate(text)) return false
      const instant = Date.parse(text)
      return instant >= EARLIEST_INSTANT && instant <= LATEST_INSTANT
    },
    compare: rfc3339.compare
  })
  return ajv
}

// ajv-formats is CommonJS; its plugin sits behind `default` when imported from ESM.
const addFormats = ((ajvFormats as unknown as { default: FormatsPlugin }).default)

const bodyAjv = makeAjv(false)
const parameterAjv = makeAjv(true)

type PropertySchema = { type?: unknown } | undefined

/** Whether a value of `schema` may only be an integer (so must be digits when it arrives as text). */
function isIntegerOnly (schema: PropertySchema): boolean {
  const types = ([] as unknown[]).concat(schema?.type)
  return types.includes('integer') && !types.includes('string') && !types.includes('number')
}

/** An integer as text: decimal digits, with a minus sign for a negative (whether one is allowed is the schema's `minimum`). */
const DECIMAL_INTEGER = /^-?\d+$/

/** A JSON pointer segment for `key`, as ajv writes them (toValidationIssues turns it back). */
const pointer = (key: string) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`

/** A JSON pointer (`/a/0/b~1c`) as a `loc` tail (`['a', 0, 'b/c']`). */
const segmentsOf = (instancePath: string): Array<string | number> =>
  instancePath.split('/').slice(1).map((part) => /^\d+$/.test(part) ? Number(part) : part.replace(/~1/g, '/').replace(/~0/g, '~'))

/** An error in ajv's shape, so that it is reported like ajv's own (also through `attachValidation`). */
function ajvError (instancePath: string, keyword: string, params: Record<string, unknown>, message: string, data: unknown, parentSchema?: object): ErrorObject {
  return { instancePath, schemaPath: '#', keyword, params, message, data, ...(parentSchema !== undefined ? { parentSchema } : {}) }
}

/**
 * A path or query validator: the checks above on the values as they arrived
 * (text, or lists of text for a repeated query key), then ajv with coercion.
 * ajv's findings about a value already refused here are left out, and each
 * finding carries the value as it arrived (ajv's coercion changes it in place:
 * `"5000"` is 5000 by the time `maximum` refuses it), as pydantic's `input` does. The `*`
 * parameter of a wildcard route is the rest of the path, passed on as it is,
 * never stored, so it is not checked.
 */
function parameterValidator (schema: object) {
  const validate = parameterAjv.compile(schema)
  const properties = (schema as { properties?: Record<string, PropertySchema> }).properties ?? {}
  const integers = new Set(Object.keys(properties).filter((key) => isIntegerOnly(properties[key])))

  return (data: unknown, context?: unknown) => {
    const errors: ErrorObject[] = []
    const refused = new Set<string>()
    const sent = new Map<string, unknown>()
    if (data !== null && typeof data === 'object') {
      for (const [key, value] of Object.entries(data)) {
        if (key === '*') continue
        sent.set(key, Array.isArray(value) ? [...value] : value)
        const at = pointer(key)
        if (!isStorableText(key)) {
          errors.push(ajvError(at, 'unstorable', {}, UNSTORABLE_TEXT, key))
          refused.add(key)
          continue
        }
        const values: unknown[] = Array.isArray(value) ? value : [value]
        values.forEach((item, index) => {
          if (typeof item !== 'string') return
          const itemAt = Array.isArray(value) ? `${at}/${index}` : at
          if (!isStorableText(item)) {
            errors.push(ajvError(itemAt, 'unstorable', {}, UNSTORABLE_TEXT, item))
            refused.add(key)
          } else if (integers.has(key) && !DECIMAL_INTEGER.test(item)) {
            errors.push(ajvError(itemAt, 'type', { type: 'integer' }, 'must be integer', item, properties[key]))
            refused.add(key)
          }
        })
      }
    }
    if (!(validate as (data: unknown, context?: unknown) => boolean)(data, context)) {
      for (const error of validate.errors ?? []) {
        const [key, index] = segmentsOf(error.instancePath)
        if (key !== undefined && refused.has(String(key))) continue
        if (key !== undefined && error.keyword !== 'required' && sent.has(String(key))) {
          const value = sent.get(String(key))
          error.data = Array.isArray(value) && typeof index === 'number' ? value[index] : value
        }
        errors.push(error)
      }
    }
    return errors.length === 0 ? true : { error: errors }
  }
}

/**
 * Compiles body schemas without type coercion and path/query schemas with it
 * (and the checks of parameterValidator). A body whose fields are all optional
 * may be left out entirely, as in FastAPI.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'params' || httpPart === 'querystring') return parameterValidator(schema as object)
  if (httpPart !== 'body') return parameterAjv.compile(schema as object)
  const validate = bodyAjv.compile(schema as object)
  const required = (schema as { required?: unknown[] }).required
  if (required !== undefined && required.length > 0) return validate
  return (data: unknown) => {
    if (data === null || data === undefined) return { value: {} }
    return validate(data) ? true : { error: validate.errors ?? [] }
  }
}

const LOCATIONS: Record<string, string> = { body: 'body', params: 'path', querystring: 'query', headers: 'header' }

/** An issue's type, message and context, before its place and input are known. */
interface Words { type: string, msg: string, ctx?: Record<string, unknown>, custom?: boolean }

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

/** A schema that holds a URL: a string whose pattern starts `^https?://` (as providers' `base_url`). */
const isUrlSchema = (schema: { pattern?: unknown } | undefined) => typeof schema?.pattern === 'string' && schema.pattern.startsWith('^https?://')

/** What the URL parser pydantic uses (the `url` crate) says of an http(s) URL that does not parse. */
function hostProblem (afterScheme: string): string {
  const authority = (/^[/\\]*([^/?#\\]*)/.exec(afterScheme) as RegExpExecArray)[1] as string
  const host = authority.slice(authority.lastIndexOf('@') + 1)
  if (host === '' || host.startsWith(':')) return 'empty host'
  const bracket = host.startsWith('[') ? host.indexOf(']') : -1
  if (host.startsWith('[') && (bracket === -1 || !/^\[[0-9A-Fa-f:.]+\]$/.test(host.slice(0, bracket + 1)))) return 'invalid IPv6 address'
  const port = /:([^:\]]*)$/.exec(host)?.[1]
  if (port !== undefined && (!/^\d*$/.test(port) || Number(port) > 65535)) return 'invalid port number'
  if (/^[\d.]+$/.test(port === undefined ? host : host.slice(0, -port.length - 1))) return 'invalid IPv4 address'
  return 'invalid domain character'
}

/**
 * What pydantic's `HttpUrl` says of `text` when this service refuses it as a URL:
 * `url_parsing` with the URL parser's reason, or `url_scheme`. Never the pattern a
 * schema checks it with: a person is told what is wrong with the URL. (This
 * service is stricter than HttpUrl in two ways, said in the same words: no
 * whitespace anywhere, and the scheme written `http://` or `https://`.)
 */
function urlWords (text: string): Words {
  const parsing = (error: string): Words => ({ type: 'url_parsing', msg: `Input should be a valid URL, ${error}`, ctx: { error } })
  if (text === '') return parsing('input is empty')
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text)
  if (scheme === null) return parsing('relative URL without a base')
  if (!/^https?$/i.test(scheme[1] as string)) {
    return { type: 'url_scheme', msg: "URL scheme should be 'http' or 'https'", ctx: { expected_schemes: "'http' or 'https'" } }
  }
  try {
    new URL(text) // eslint-disable-line no-new -- whether it parses is the question
  } catch {
    return parsing(hostProblem(text.slice(scheme[0].length)))
  }
  if (/\s/.test(text)) return parsing('whitespace is not allowed in a URL')
  return parsing('a URL starts with http:// or https://')
}

/** A URL refused at `loc`, in pydantic's URL words (for the rules a schema cannot state, such as provider.rules.ts's). */
export function urlIssue (loc: ReadonlyArray<string | number>, text: string): ValidationIssue {
  const { type, msg, ctx } = urlWords(text)
  return pydanticIssue(type, loc, msg, text, ctx)
}

/** speedate's reasons (pydantic 2's date-time parser), as `datetime_parsing` gives them. */
const SPEEDATE = {
  tooShort: 'input is too short',
  extra: 'unexpected extra characters at the end of the input',
  dateTimeSep: 'invalid datetime separator, expected `T`, `t`, `_` or space',
  dateSep: 'invalid date separator, expected `-`',
  year: 'invalid character in year',
  month: 'invalid character in month',
  day: 'invalid character in day',
  timeSep: 'invalid time separator, expected `:`',
  hour: 'invalid character in hour',
  minute: 'invalid character in minute',
  second: 'invalid character in second',
  fraction: 'second fraction digits missing after `.`',
  tzSign: 'invalid timezone sign',
  tzHour: 'invalid timezone hour',
  tzMinute: 'invalid timezone minute',
  monthRange: 'month value is outside expected range of 1-12',
  dayRange: 'day value is outside expected range',
  hourRange: 'hour value is outside expected range of 0-23',
  minuteRange: 'minute value is outside expected range of 0-59',
  secondRange: 'second value is outside expected range of 0-59',
  tzMinuteRange: 'timezone minute value is outside expected range of 0-59',
  tzRange: 'timezone offset must be less than 24 hours'
} as const

/** The first thing speedate (0.13, pydantic-core 2.14's) finds wrong with `text` as a date-time, in its order; undefined when it reads it. */
function speedateProblem (text: string): string | undefined {
  const digits = (from: number, to: number) => /^\d+$/.test(text.slice(from, to)) && text.length >= to
  if (text.length < 10) return SPEEDATE.tooShort
  if (!digits(0, 4)) return SPEEDATE.year
  if (text[4] !== '-') return SPEEDATE.dateSep
  if (!digits(5, 7)) return SPEEDATE.month
  if (text[7] !== '-') return SPEEDATE.dateSep
  if (!digits(8, 10)) return SPEEDATE.day
  const [year, month, day] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))]
  if (month < 1 || month > 12) return SPEEDATE.monthRange
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
  if (day < 1 || day > ([31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number)) return SPEEDATE.dayRange
  if (text.length === 10 || !'Tt_ '.includes(text[10] as string)) return SPEEDATE.dateTimeSep
  if (text.length < 16) return SPEEDATE.tooShort
  if (!digits(11, 13)) return SPEEDATE.hour
  if (text[13] !== ':') return SPEEDATE.timeSep
  if (!digits(14, 16)) return SPEEDATE.minute
  if (Number(text.slice(11, 13)) > 23) return SPEEDATE.hourRange
  if (Number(text.slice(14, 16)) > 59) return SPEEDATE.minuteRange
  let at = 16
  if (text[at] === ':') {
    if (!digits(at + 1, at + 3)) return SPEEDATE.second
    if (Number(text.slice(at + 1, at + 3)) > 59) return SPEEDATE.secondRange
    at += 3
    if (text[at] === '.' || text[at] === ',') {
      const fraction = /^\d*/.exec(text.slice(at + 1)) as RegExpExecArray
      if (fraction[0] === '') return SPEEDATE.fraction
      at += 1 + fraction[0].length
    }
  }
  if (at === text.length) return undefined
  if (text[at] === 'Z' || text[at] === 'z') {
    at += 1
  } else {
    if (text[at] !== '+' && text[at] !== '-') return SPEEDATE.tzSign
    if (!digits(at + 1, at + 3)) return SPEEDATE.tzHour
    const hours = Number(text.slice(at + 1, at + 3))
    at += 3
    if (text[at] === ':') at += 1
    else if (!/\d/.test(text[at] ?? '')) return SPEEDATE.tzMinute
    if (!digits(at, at + 2)) return SPEEDATE.tzMinute
    if (Number(text.slice(at, at + 2)) > 59) return SPEEDATE.tzMinuteRange
    if (hours > 23) return SPEEDATE.tzRange
    at += 2
  }
  return at === text.length ? undefined : SPEEDATE.extra
}

/**
 * What pydantic 2 says of a refused date-time: speedate's reason (`datetime_parsing`),
 * or, for one it reads but this service does not take, that it has no offset
 * (`timezone_aware`, as for pydantic's AwareDatetime), is not RFC 3339 (speedate also
 * reads `_` between date and time), or lies outside the years the service writes.
 */
function dateTimeWords (text: string): Words {
  const offset = /(?:[Zz]|[+-]\d\d(?::?\d\d)?)$/.test(text)
  const error = speedateProblem(text) ??
    (!offset ? undefined : isRfc3339(text) ? 'the instant is outside the years 0000 to 9999' : 'not an RFC 3339 date-time')
  if (error === undefined) return { type: 'timezone_aware', msg: 'Input should have timezone info' }
  return { type: 'datetime_parsing', msg: `Input should be a valid datetime, ${error}`, ctx: { error } }
}

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
      return { type: 'value_error', msg: `Value error, ${UNSTORABLE_TEXT}`, ctx: { error: {} } }
    case 'minimum':
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${String(p.limit)}`, ctx: { ge: p.limit } }
    case 'exclusiveMinimum':
      return { type: 'greater_than', msg: `Input should be greater than ${String(p.limit)}`, ctx: { gt: p.limit } }
    case 'maximum':
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${String(p.limit)}`, ctx: { le: p.limit } }
    case 'exclusiveMaximum':
      return { type: 'less_than', msg: `Input should be less than ${String(p.limit)}`, ctx: { lt: p.limit } }
    case 'minLength':
      if (isUrlSchema(schema)) return urlWords(String(data))
      return { type: 'string_too_short', msg: `String should have at least ${String(p.limit)} character${plural(p.limit)}`, ctx: { min_length: p.limit } }
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
    case 'pattern':
      if (isUrlSchema(schema)) return urlWords(String(data))
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${String(p.pattern)}'`, ctx: { pattern: p.pattern } }
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
 * pydantic's do; `anyOf` and `propertyNames` themselves add nothing.
 */
export function toValidationIssues (errors: ErrorObject[], context: string | undefined, value: unknown): ValidationIssue[] {
  const where = LOCATIONS[context ?? 'body'] ?? 'body'
  if (where === 'body' && (value === undefined || value === null)) return [pydanticIssue('missing', ['body'], 'Field required', null)]
  const issues: ValidationIssue[] = []
  for (const error of errors) {
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

/** Most characters of one string echoed in an `input`, and about the most JSON one `input` echoes. */
const MAX_INPUT_STRING = 1024
const INPUT_BUDGET = 4096

/** Text as shown to a caller: credentials inside URLs and secret-looking query values masked (as the audit trail does). */
function maskText (text: string): string {
  if (/^https?:\/\//i.test(text)) return maskUrl(text)
  return text.startsWith('/') ? maskRequestTarget(text) : text
}

/**
 * A copy of `value` fit to answer: every string and number under a secret-looking
 * key (`auth_headers`, `api_key`…) masked (booleans and null are settings, kept:
 * `forward_client_auth`), credentials in URLs masked, a string cut after MAX_INPUT_STRING
 * characters (`…` marks the cut), and once about INPUT_BUDGET characters are
 * spent the rest of a list or object left out, saying how much (`"… 1536 more items"`).
 */
function echo (value: unknown, secret: boolean, budget: { left: number }): unknown {
  if (typeof value === 'string') {
    const shown = secret ? MASK : maskText(value)
    const room = Math.max(16, Math.min(MAX_INPUT_STRING, budget.left))
    let cut = shown
    if (shown.length > room) {
      const end = /[\ud800-\udbff]/.test(shown.charAt(room - 1)) ? room - 1 : room
      cut = `${shown.slice(0, end)}…`
    }
    budget.left -= cut.length + 2
    return cut
  }
  if (typeof value === 'number') {
    budget.left -= 8
    // A number under a secret key may be the secret (a numeric API key); JSON has no infinity (`1e999`): its name says what was sent.
    return secret ? MASK : Number.isFinite(value) ? value : String(value)
  }
  if (value === null || value === undefined || typeof value !== 'object') {
    budget.left -= 4
    return typeof value === 'boolean' ? value : null
  }
  if (Array.isArray(value)) {
    const items: unknown[] = []
    for (let i = 0; i < value.length; i++) {
      if (budget.left <= 0) {
        items.push(`… ${value.length - i} more item${plural(value.length - i)}`)
        break
      }
      items.push(echo(value[i], secret, budget))
    }
    return items
  }
  const entries: Array<[string, unknown]> = []
  const keys = Object.keys(value)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    if (budget.left <= 0) {
      entries.push(['…', `${keys.length - i} more key${plural(keys.length - i)}`])
      break
    }
    budget.left -= key.length + 4
    entries.push([key, echo((value as Record<string, unknown>)[key], secret || SECRET_NAME.test(key), budget)])
  }
  return Object.fromEntries(entries)
}

/** Whether the input of `issue` sits under a secret-looking key (a key checked at `[key]` is a name, not a secret). */
function isSecretPlace (issue: ValidationIssue): boolean {
  const path = issue.loc.slice(1, issue.type === 'missing' ? -1 : undefined)
  if (path.at(-1) === '[key]') return false
  return path.some((segment) => typeof segment === 'string' && SECRET_NAME.test(segment))
}

/**
 * The 422 entries as answered: each `input` masked and bounded (see echo), so a
 * 422 never shows a credential, and never answers more than a few kilobytes per
 * entry, whatever was sent (pydantic would echo the value whole).
 */
export function answeredIssues (issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues.map((issue) => ({ ...issue, input: echo(issue.input, isSecretPlace(issue), { left: INPUT_BUDGET }) }))
}
