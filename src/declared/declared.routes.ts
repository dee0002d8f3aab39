/**
 * `/api/config`: pools as code over HTTP. `plan` and `apply` take a declared state
 * (the file's content as JSON, credentials already resolved); `export` answers the
 * stored state as one, as JSON or, with `?format=yaml`, as a file to keep in git.
 * Admin only (the export shows base URLs and check paths as stored).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { stringify } from 'yaml'
import { actorOf } from '../audit/audit.js'
import { RequestValidationError } from '../errors.js'
import { errorResponses, ErrorBody } from '../http/schemas.js'
import { toValidationIssues } from '../http/pydantic-errors.js'
import { ApplyQuery, DeclaredState, Plan } from './declared.schemas.js'
import type { DeclaredService } from './declared.service.js'
import { shapeErrors } from './declared.shape.js'

const tags = ['config']

/**
 * Checks a state's shape strictly before the schema validation, which would drop
 * unknown keys: a misspelt `providers` beside `prune: true` must be a 422, not a
 * state that declares nothing and so deletes everything.
 */
async function strictShape (request: FastifyRequest): Promise<void> {
  const errors = shapeErrors(request.body)
  // In pydantic's words, as every 422 (an unknown key is `extra_forbidden`, as with extra='forbid').
  if (errors.length > 0) throw new RequestValidationError(toValidationIssues(errors, 'body', request.body))
}

export const declaredRoutes: FastifyPluginAsyncTypebox<{ declared: DeclaredService }> = async (app, { declared }) => {
  app.post('/api/config/plan', {
    preValidation: strictShape,
    schema: { tags, summary: 'What applying a declared state would change', body: DeclaredState, response: { 200: Plan, ...errorResponses } },
    config: { failure: 'Failed to plan' }
  }, async (request) => await declared.plan(request.body))

  app.post('/api/config/apply', {
    preValidation: strictShape,
    schema: {
      tags,
      summary: 'Make the stored state what a declared state says, in one transaction',
      querystring: ApplyQuery,
      body: DeclaredState,
      response: { 200: Plan, ...errorResponses, 409: ErrorBody }
    },
    config: { failure: 'Failed to apply' }
  }, async (request) => await declared.apply(request.body, actorOf(request), request.query.expect))

  app.get('/api/config/export', {
    schema: {
      tags,
      summary: 'The stored state as a declared state (credentials as placeholders)',
      querystring: Type.Object({ format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('yaml')])) }),
      response: { 200: DeclaredState, 500: errorResponses[500] }
    },
    config: { failure: 'Failed to export' }
  }, async (request, reply) => {
    const state = await declared.exportState()
    if (request.query.format !== 'yaml') return state
    return await reply.type('application/yaml; charset=utf-8').serializer((value) => value as string).send(stringify(state) as never)
  })
}
