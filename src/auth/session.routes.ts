/**
 * `GET /api/session`: who the caller is and what it may do. The dashboard asks it
 * first: a 401 means it must ask for a token; the scope decides which actions it
 * shows. Read scope, so a wrong token is refused here like anywhere else.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../http/schemas.js'

const Session = Type.Object({
  actor: Type.String({ description: "the token's name, or `anonymous` when no tokens are configured" }),
  scope: Type.Union([Type.Literal('read'), Type.Literal('client'), Type.Literal('admin')], { description: 'read < client < admin; admin for everyone when no tokens are configured' }),
  tokens_required: Type.Boolean({ description: 'whether the service was started with AUTH_TOKENS' })
})

export const sessionRoutes: FastifyPluginAsyncTypebox<{ tokensRequired: boolean }> = async (app, { tokensRequired }) => {
  app.get('/api/session', {
    schema: { tags: ['auth'], summary: "The caller's token name and scope", response: { 200: Session, ...errorResponses } }
  }, async (request) => ({ actor: request.actor, scope: request.callerScope ?? 'read', tokens_required: tokensRequired }))
}
