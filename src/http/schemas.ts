/**
 * Schema pieces shared by every feature: error bodies, nullable fields, id params.
 */
import { Type, type TSchema } from 'typebox'

/** `{"detail": "<sentence>"}`: every non-validation error. */
export const ErrorBody = Type.Object({ detail: Type.String() }, { $id: undefined, description: 'Error' })

/** FastAPI 0.104's 422 body: pydantic 2.5's errors, keys in its order. */
export const ValidationErrorBody = Type.Object({
  detail: Type.Array(Type.Object({
    type: Type.String({ description: "pydantic 2's error type, e.g. missing, int_parsing, string_too_long, value_error" }),
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
    msg: Type.String(),
    input: Type.Unknown({ description: 'the value refused (for missing, the object lacking the field); credentials masked, long values cut' }),
    ctx: Type.Optional(Type.Object({}, { additionalProperties: true })),
    url: Type.Optional(Type.String({ description: "pydantic's page on the error type" }))
  }))
}, { description: 'Validation error' })

/** The error responses every operation may give, for its schema. */
export const errorResponses = {
  404: ErrorBody,
  413: ErrorBody,
  422: ValidationErrorBody,
  500: ErrorBody
} as const

/** `T | null` as a JSON-schema type list (no anyOf, so ajv reports one clear error). */
export function Nullable<T extends TSchema> (schema: T) {
  const base = schema as unknown as { type: string | string[], enum?: unknown[] }
  return Type.Unsafe<import('typebox').Static<T> | null>({
    ...schema,
    type: [base.type as string, 'null'],
    ...(base.enum !== undefined ? { enum: [...base.enum, null] } : {})
  })
}

/**
 * `limit` and `offset` of a list that answers everything unless asked for a page
 * (`GET /api/pools`, `GET /api/providers`): `things` by `key`, as the descriptions say.
 */
export function wholeListPage (things: string, key: string) {
  return {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: `at most this many ${things} (by ${key}, after offset); every one when left out` })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 2147483647, default: 0, description: `${things} skipped first, by ${key}` }))
  }
}

/** An ISO 8601 UTC timestamp string. */
export const Timestamp = Type.String({ description: 'ISO 8601 UTC, e.g. 2026-11-22T10:17:43.818Z' })

/** A database id in a path segment. */
export const Id = Type.Integer({ minimum: 1, maximum: 2147483647 })

/** The current time as the service writes it. */
export function nowIso (): string {
  return new Date().toISOString()
}
