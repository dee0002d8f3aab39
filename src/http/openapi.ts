/**
 * What every operation of the OpenAPI document carries, filled in as routes are
 * registered so no route can forget it: an `operationId` derived from its method
 * and path (stable, unique, URL-safe: `getPoolsPoolIdHistory`), and the error
 * answers it can give, each with its body's schema — 401/403/429 wherever a token
 * may be required, 413/415 where a body is read, 404/422 where the path or query
 * is validated, 502/503 through the proxy, 500 everywhere; and whether its body
 * may be left out. The typed client (src/client) is generated from this document.
 */
import type { RouteOptions } from 'fastify'
import { Type, type TSchema } from 'typebox'
import { ValidationErrorBody } from './schemas.js'

/** An error body: `detail`, and for some answers more fields (the proxy's attempts). */
const errorBody = (description: string): TSchema => Type.Object({ detail: Type.String() }, { additionalProperties: true, description })

const ERRORS: Record<number, TSchema> = {
  401: errorBody('No bearer token, or one that is not configured'),
  403: errorBody("The token's scope does not allow this operation"),
  404: errorBody('Not found'),
  405: errorBody('TRACE and CONNECT are never forwarded (Allow lists the methods that are)'),
  413: errorBody('The body is larger than allowed'),
  415: errorBody('The body is not JSON'),
  422: ValidationErrorBody,
  429: errorBody('Too many requests (failed authentications, or the admin rate limit); see Retry-After'),
  500: errorBody('An error of the service'),
  502: errorBody('Every provider tried failed'),
  503: errorBody('No provider is available now; see Retry-After'),
  504: errorBody("The request's deadline passed before an answer started")
}

/**
 * Set by documentRoute on a route whose body may be left out, turned into
 * `requestBody.required: false` by validOpenApi (@fastify/swagger marks every body
 * required, and copies a schema's `x-` keys onto its operation).
 */
const OPTIONAL_BODY = 'x-sourcepool-optional-body'

/**
 * Whether a request may leave the body out: when its schema requires no field (the
 * validator takes a missing body as `{}` then, as FastAPI does: validation.ts), unless
 * a preValidation hook reads the body first (the declared state's strict shape
 * check), which sees no body and refuses it.
 */
function bodyOptional (route: RouteOptions, body: unknown): boolean {
  const required = (body as { required?: unknown[] }).required ?? []
  return required.length === 0 && route.preValidation === undefined
}

/** `GET /api/pools/:pool_id/history` → `getPoolsPoolIdHistory`. */
export function operationIdOf (method: string, url: string): string {
  const words = url.split('/').filter((part) => part !== '' && part !== 'api' && part !== '*')
    .flatMap((part) => part.replace(/^:/, '').split(/[^A-Za-z0-9]+/)).filter((word) => word !== '')
  return [method.toLowerCase(), ...words.map((word) => word.charAt(0).toUpperCase() + word.slice(1))].join('')
}

/** Fills in the route's operationId and error answers (those it documents itself are kept). */
export function documentRoute (route: RouteOptions): void {
  const schema = route.schema as (Record<string, unknown> & { response?: Record<string | number, unknown> }) | undefined
  if (schema === undefined || schema.hide === true) return
  const method = (Array.isArray(route.method) ? route.method[0] : route.method) as string
  schema.operationId ??= operationIdOf(method, route.url)
  if (schema.body !== undefined && bodyOptional(route, schema.body)) schema[OPTIONAL_BODY] = true
  const codes = [500]
  if (route.url !== '/healthz') codes.push(401, 403, 429)
  if (schema.body !== undefined) codes.push(413, 415, 422)
  if (schema.params !== undefined) codes.push(404, 422)
  if (schema.querystring !== undefined) codes.push(422)
  if (route.url.includes('/proxy/') || route.url.startsWith('/p/')) codes.push(404, 405, 413, 502, 503, 504)
  const response = schema.response ?? {}
  for (const code of codes) {
    if (response[code] === undefined && response[String(code)] === undefined) response[code] = ERRORS[code]
  }
  schema.response = response
}

/** The methods OpenAPI 3.0 has; Fastify's others (QUERY, PROPFIND…) are left out of the document. */
const OPENAPI_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'])

/** Removes `propertyNames` (JSON Schema, not OpenAPI 3.0) wherever it is. */
function withoutPropertyNames (value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) withoutPropertyNames(item)
  } else if (value !== null && typeof value === 'object') {
    delete (value as Record<string, unknown>).propertyNames
    for (const item of Object.values(value)) withoutPropertyNames(item)
  }
}

type Operation = {
  operationId?: string,
  parameters?: Array<{ name: string, in: string, description?: string }>,
  requestBody?: { required?: boolean },
  responses?: Record<string, unknown>,
  [OPTIONAL_BODY]?: boolean
}

/**
 * The document as @fastify/swagger builds it, made valid OpenAPI 3.0 (swagger's
 * `transformObject`): a server, no `propertyNames`, no methods OpenAPI lacks, the
 * proxy's wildcard as a named `{path}` parameter, one operationId per method
 * where one route serves several (the proxy), and a body the service lets a
 * request leave out marked so (`requestBody.required: false`).
 */
export function validOpenApi ({ openapiObject }: { openapiObject: Record<string, unknown> }): Record<string, unknown> {
  const doc = openapiObject as { servers?: unknown[], paths?: Record<string, Record<string, Operation>> }
  if (doc.servers === undefined || doc.servers.length === 0) doc.servers = [{ url: '/', description: 'this service' }]
  withoutPropertyNames(doc)
  const paths: Record<string, Record<string, Operation>> = {}
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    const named = path.replace('{*}', '{path}')
    const kept: Record<string, Operation> = {}
    const methods = Object.keys(operations).filter((method) => OPENAPI_METHODS.has(method))
    for (const method of methods) {
      const operation = structuredClone(operations[method] as Operation)
      if (methods.length > 1 && operation.operationId !== undefined) operation.operationId = operation.operationId.replace(/^[a-z]+/, method)
      if (operation[OPTIONAL_BODY] === true && operation.requestBody !== undefined) operation.requestBody.required = false
      delete operation[OPTIONAL_BODY]
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in === 'path' && parameter.name === '*') {
          parameter.name = 'path'
          parameter.description = 'the path (and query) sent on to the provider, under its base URL'
          // Whatever the provider answers comes back as it came.
          operation.responses = { '2XX': { description: "The provider's answer: its status, headers and body as it sent them" }, ...operation.responses }
        }
      }
      kept[method] = operation
    }
    paths[named] = kept
  }
  doc.paths = paths
  return openapiObject
}
