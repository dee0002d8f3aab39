/**
 * `/api/config`: pools as code over HTTP. `plan` and `apply` take a declared state
 * (the file's content as JSON, credentials already resolved); `export` answers the
 * stored state as one, as JSON or, with `?format=yaml`, as a file to keep in git.
 * Admin only (the export shows base URLs and check paths as stored).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify'
import { Type } from 'typebox'
import { stringify } from 'yaml'
import { actorOf } from '../audit/audit.js'
import { nextTurn, paced, pacedItems } from '../db/work.js'
import { DomainError, RequestValidationError } from '../errors.js'
import { enoughIssues } from '../http/answered-issues.js'
import { errorResponses, ErrorBody } from '../http/schemas.js'
import { toValidationIssues } from '../http/pydantic-errors.js'
import { validatorCompiler } from '../http/validation.js'
import { planJson } from './declared.answer.js'
import { misshapenIssues } from './declared.desired.js'
import { ApplyQuery, DeclaredState, Plan, STATE_LIMITS, stateTooLarge, type PlanValue } from './declared.schemas.js'
import type { DeclaredService } from './declared.service.js'
import { shapeErrors } from './declared.shape.js'

const tags = ['config']

/**
 * Checks a state's size (STATE_LIMITS: 413 beyond), then its shape strictly: the
 * body's validation (see stateRoute). Unknown keys are refused, not dropped as the
 * API's validator does elsewhere: a misspelt `providers` beside `prune: true` must be
 * a 422, not a state that declares nothing and so deletes everything.
 */
async function strictShape (request: FastifyRequest): Promise<void> {
  const tooLarge = stateTooLarge(request.body)
  if (tooLarge !== undefined) throw new DomainError(413, tooLarge)
  // Parsing a large state, checking its shape and planning it are long stretches each: others are served between them.
  await nextTurn()
  const errors = shapeErrors(request.body)
  if (errors.length > 0) {
    // In pydantic's words, as every 422 (an unknown key is `extra_forbidden`, as with extra='forbid').
    const shape = toValidationIssues(errors, 'body', request.body)
    if (enoughIssues(shape)) throw new RequestValidationError(shape)
    await nextTurn()
    // Every problem in one answer: the rules and references checked wherever the state did parse.
    const rules = await paced(misshapenIssues(request.body, ['body'], shape.map((issue) => issue.loc.slice(1))))
    throw new RequestValidationError([...shape, ...rules])
  }
  await nextTurn()
}

/**
 * A plan's answer, written a piece at a time (declared.answer.ts): thousands of
 * changes are megabytes of JSON, and a socket may take them all at once.
 */
const sendPlan = async (reply: FastifyReply, plan: PlanValue) =>
  await reply.type('application/json; charset=utf-8').send(Readable.from(pacedItems(planJson(plan)), { objectMode: false }))

/**
 * What plan and apply share: a state up to STATE_LIMITS.bytes (more than other
 * bodies take), checked by strictShape. Its check is against DeclaredState itself
 * (unknown keys refused, no default to fill in), so the body is not validated a
 * second time: over a large state, that would hold the event loop once more.
 */
const stateRoute = {
  preValidation: strictShape,
  bodyLimit: STATE_LIMITS.bytes,
  validatorCompiler: ((route) => route.httpPart === 'body' ? () => true : validatorCompiler(route)) satisfies FastifySchemaCompiler<unknown>
}

export const declaredRoutes: FastifyPluginAsyncTypebox<{ declared: DeclaredService }> = async (app, { declared }) => {
  app.post('/api/config/plan', {
    ...stateRoute,
    schema: { tags, summary: 'What applying a declared state would change', body: DeclaredState, response: { 200: Plan, ...errorResponses } },
    config: { failure: 'Failed to plan' }
  }, async (request, reply) => await sendPlan(reply, await declared.plan(request.body)))

  app.post('/api/config/apply', {
    ...stateRoute,
    schema: {
      tags,
      summary: 'Make the stored state what a declared state says, in one transaction',
      querystring: ApplyQuery,
      body: DeclaredState,
      response: { 200: Plan, ...errorResponses, 409: ErrorBody }
    },
    config: { failure: 'Failed to apply' }
  }, async (request, reply) => await sendPlan(reply, await declared.apply(request.body, actorOf(request), request.query.expect)))

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
