/**
 * Request validation: two ajv instances (strict JSON types for bodies, string
 * coercion for path and query values) and the compiler Fastify validates every
 * route with. Its errors are answered in pydantic 2.5's words by
 * pydantic-errors.ts, each `input` masked and bounded by answered-issues.ts.
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
import { segmentsOf } from './pydantic-errors.js'

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

/** A JSON pointer segment for `key`, as ajv writes them (segmentsOf turns it back). */
const pointer = (key: string) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`

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
