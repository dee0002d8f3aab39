/**
 * `GET /api/session`: who the caller is and what it may do. The dashboard asks it
 * first. Without an Authorization header it answers (scope null when tokens are
 * required), so a page opening for the first time logs no refused request; a
 * header is checked like anywhere else (a wrong token is a 401, and counts
 * towards AUTH_FAILURE_LIMIT).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../http/schemas.js'

const Session = Type.Object({
  actor: Type.String({ description: "the token's name, or `anonymous`" }),
  scope: Type.Union([Type.Literal('read'), Type.Literal('client'), Type.Literal('admin'), Type.Null()], {
    description: 'read < client < admin; admin for everyone when no tokens are configured; null when tokens are required and none was sent'
  }),
  tokens_required: Type.Boolean({ description: 'whether the service was started with AUTH_TOKENS' })
})

export const sessionRoutes: FastifyPluginAsyncTypebox<{ tokensRequired: boolean }> = async (app, { tokensRequired }) => {
  app.get('/api/session', {
    schema: { tags: ['auth'], summary: "The caller's token name and scope (without a token: whether one is required)", response: { 200: Session, ...errorResponses } },
    config: { optionalAuth: true }
  }, async (request) => ({ actor: request.actor, scope: request.callerScope, tokens_required: tokensRequired }))
}
