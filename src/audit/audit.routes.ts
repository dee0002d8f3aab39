/**
 * `GET /api/audit` (admin): the audit trail, newest first, with filters, a page
 * at a time (audit.service.ts).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { AuditService } from './audit.service.js'
import { errorResponses, Nullable, Timestamp } from '../http/schemas.js'

const AuditQuery = Type.Object({
  actor: Type.Optional(Type.String({ maxLength: 64 })),
  action: Type.Optional(Type.String({ maxLength: 64 })),
  target: Type.Optional(Type.String({ maxLength: 128 })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'records at or after this time' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 4096, description: 'next_cursor of the previous page' }))
})

const AuditRecord = Type.Object({
  id: Type.Integer(),
  timestamp: Timestamp,
  actor: Type.String(),
  action: Type.String(),
  target: Type.String(),
  changes: Type.Object({}, { additionalProperties: true }),
  request_id: Type.String(),
  client_address: Nullable(Type.String({ description: 'where the change came from: the client address (with TRUST_PROXY, the one the front door reported); null for changes made outside a request' }))
})

const AuditPage = Type.Object({
  records: Type.Array(AuditRecord),
  total: Type.Integer({ description: 'records matching the filters, on every page' }),
  next_cursor: Nullable(Type.String({ description: 'pass as `cursor` for the next page; null on the last page' }))
})

export const auditRoutes: FastifyPluginAsyncTypebox<{ audit: AuditService }> = async (app, { audit }) => {
  app.get('/api/audit', {
    schema: {
      tags: ['audit'],
      summary: 'Audit trail of admin changes, newest first, a page at a time (admin scope)',
      querystring: AuditQuery,
      response: { 200: AuditPage, ...errorResponses }
    },
    config: { failure: 'Failed to read audit trail' }
  }, async (request) => {
    const { since, limit = 100, ...filter } = request.query
    const { records, total, nextCursor } = await audit.list({
      ...filter,
      limit,
      ...(since === undefined ? {} : { since: new Date(since).toISOString() })
    })
    return { records, total, next_cursor: nextCursor }
  })
}
