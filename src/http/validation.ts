/**
 * Request validation: two ajv instances (strict JSON types for bodies, string
 * coercion for path and query values) and the translation of ajv's errors into
 * the FastAPI/pydantic v1 `detail` list that clients of the original service parse.
 */
import { Ajv, type ErrorObject } from 'ajv'
import * as ajvFormats from 'ajv-formats'
import type { FormatsPlugin } from 'ajv-formats'
import type { FastifySchemaCompiler } from 'fastify'
import type { ValidationIssue } from '../errors.js'

function makeAjv (coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes,
    useDefaults: true,
    removeAdditional: true,
    allErrors: true,
    strict: false
  })
  addFormats(ajv)
  return ajv
}

// ajv-formats is CommonJS; its plugin sits behind `default` when imported from ESM.
const addFormats = ((ajvFormats as unknown as { default: FormatsPlugin }).default)

const bodyAjv = makeAjv(false)
const parameterAjv = makeAjv(true)

/**
 * Compiles body schemas without type coercion and path/query schemas with it.
 * A body whose fields are all optional may be left out entirely, as in FastAPI.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
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
