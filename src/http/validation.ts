/**
 * Request validation: two ajv instances (strict JSON types for bodies, string
 * coercion for path and query values) and the translation of ajv's errors into
 * the FastAPI/pydantic v1 `detail` list that clients of the original service parse.
 *
 * Rules every route gets without asking for them: path and query text a
 * database cannot store exactly is refused (bodies are checked as they are
 * parsed, in json-parser.ts); an integer in the path or query is plain decimal
 * digits (ajv's coercion alone reads `0x10`, `1e1`, `+1`, `1.0` and ` 1` as
 * integers); and a `date-time` is an instant the service can hold and write back.
 */
import { Ajv, type ErrorObject } from 'ajv'
import * as ajvFormats from 'ajv-formats'
import type { FormatsPlugin } from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import type { ValidationIssue } from '../errors.js'

/** The 422 entry's text for text a database cannot store exactly (see isStorableText). */
export const UNSTORABLE_TEXT = {
  msg: 'text contains a NUL character or an unpaired surrogate, which cannot be stored',
  type: 'value_error.str.unstorable'
} as const

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

function makeAjv (coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: true,
    allErrors: true,
    strict: false
  })
  addFormats(ajv)
  // RFC 3339 allows a leap second (`23:59:60`), which Date cannot hold: a route
  // reading the value would fail with a 500. A date-time must also be one Date reads.
  const rfc3339 = ajv.formats['date-time'] as { validate: (text: string) => boolean, compare: (a: string, b: string) => number | undefined }
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

/** An error in ajv's shape, so that it is reported like ajv's own (also through `attachValidation`). */
function ajvError (instancePath: string, keyword: string, params: Record<string, unknown>, message: string): ErrorObject {
  return { instancePath, schemaPath: '#', keyword, params, message }
}

/**
 * A path or query validator: the checks above on the values as they arrived
 * (text, or lists of text for a repeated query key), then ajv with coercion.
 * ajv's findings about a value already refused here are left out. The `*`
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
    if (data !== null && typeof data === 'object') {
      for (const [key, value] of Object.entries(data)) {
        if (key === '*') continue
        const at = pointer(key)
        if (!isStorableText(key)) {
          errors.push(ajvError(at, 'unstorable', {}, UNSTORABLE_TEXT.msg))
          refused.add(key)
          continue
        }
        const values: unknown[] = Array.isArray(value) ? value : [value]
        values.forEach((item, index) => {
          if (typeof item !== 'string') return
          const itemAt = Array.isArray(value) ? `${at}/${index}` : at
          if (!isStorableText(item)) {
            errors.push(ajvError(itemAt, 'unstorable', {}, UNSTORABLE_TEXT.msg))
            refused.add(key)
          } else if (integers.has(key) && !DECIMAL_INTEGER.test(item)) {
            errors.push(ajvError(itemAt, 'type', { type: 'integer' }, 'must be integer'))
            refused.add(key)
          }
        })
      }
    }
    if (!(validate as (data: unknown, context?: unknown) => boolean)(data, context)) {
      for (const error of validate.errors ?? []) {
        const key = error.instancePath.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~')
        if (key === undefined || !refused.has(key)) errors.push(error)
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

const TYPE_MESSAGES: Record<string, [string, string]> = {
  integer: ['value is not a valid integer', 'type_error.integer'],
  number: ['value is not a valid float', 'type_error.float'],
  string: ['str type expected', 'type_error.str'],
  boolean: ['value could not be parsed to a boolean', 'type_error.bool'],
  object: ['value is not a valid dict', 'type_error.dict'],
  array: ['value is not a valid list', 'type_error.list']
}

function describe (error: ErrorObject): Omit<ValidationIssue, 'loc'> {
  const p = error.params as Record<string, unknown>
  switch (error.keyword) {
    case 'required':
      return { msg: 'field required', type: 'value_error.missing' }
    case 'type': {
      const types = ([] as unknown[]).concat(p.type).filter((t) => t !== 'null')
      const [msg, type] = TYPE_MESSAGES[String(types[0])] ?? [`value is not a valid ${String(types[0])}`, 'type_error']
      return { msg, type }
    }
    case 'unstorable':
      return { ...UNSTORABLE_TEXT }
    case 'minimum':
      return { msg: `ensure this value is greater than or equal to ${String(p.limit)}`, type: 'value_error.number.not_ge', ctx: { limit_value: p.limit } }
    case 'maximum':
      return { msg: `ensure this value is less than or equal to ${String(p.limit)}`, type: 'value_error.number.not_le', ctx: { limit_value: p.limit } }
    case 'minLength':
      return { msg: `ensure this value has at least ${String(p.limit)} characters`, type: 'value_error.any_str.min_length', ctx: { limit_value: p.limit } }
    case 'maxLength':
      return { msg: `ensure this value has at most ${String(p.limit)} characters`, type: 'value_error.any_str.max_length', ctx: { limit_value: p.limit } }
    case 'minItems':
      return { msg: `ensure this value has at least ${String(p.limit)} items`, type: 'value_error.list.min_items', ctx: { limit_value: p.limit } }
    case 'maxItems':
      return { msg: `ensure this value has at most ${String(p.limit)} items`, type: 'value_error.list.max_items', ctx: { limit_value: p.limit } }
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]).filter((v) => v !== null)
      return {
        msg: `value is not a valid enumeration member; permitted: ${allowed.map((v) => `'${String(v)}'`).join(', ')}`,
        type: 'type_error.enum',
        ctx: { enum_values: allowed }
      }
    }
    case 'format':
      return { msg: `value is not a valid ${String(p.format)}`, type: `value_error.${String(p.format)}` }
    default:
      return { msg: error.message ?? 'invalid value', type: `value_error.${error.keyword}` }
  }
}

/** Turns ajv errors for one request part into FastAPI's `detail` entries. */
export function toValidationIssues (errors: ErrorObject[], context: string | undefined, value: unknown): ValidationIssue[] {
  const where = LOCATIONS[context ?? 'body'] ?? 'body'
  return errors.map((error) => {
    const path = error.instancePath.split('/').slice(1).map((part) => /^\d+$/.test(part) ? Number(part) : part.replace(/~1/g, '/').replace(/~0/g, '~'))
    if (error.keyword === 'required') path.push(String((error.params as { missingProperty: string }).missingProperty))
    // A missing body is reported as FastAPI does: the body itself is a missing field.
    if (where === 'body' && path.length === 0 && value === undefined) {
      return { loc: ['body'], msg: 'field required', type: 'value_error.missing' }
    }
    return { loc: [where, ...path], ...describe(error) }
  })
}
