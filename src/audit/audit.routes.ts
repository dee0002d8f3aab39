/**
 * `GET /api/audit` (admin): the audit trail, newest first, with filters.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import type { WorkRunner } from '../db/work.js'
import { listAudit } from './audit.js'
import { errorResponses, Timestamp } from '../http/schemas.js'

const AuditQuery = Type.Object({
  actor: Type.Optional(Type.String({ maxLength: 64 })),
  action: Type.Optional(Type.String({ maxLength: 64 })),
  target: Type.Optional(Type.String({ maxLength: 128 })),
  since: Type.Optional(Type.String({ format: 'date-time', description: 'records at or after this time' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 }))
})

const AuditRecord = Type.Object({
  id: Type.Integer(),
  timestamp: Timestamp,
  actor: Type.String(),
  action: Type.String(),
  target: Type.String(),
  changes: Type.Object({}, { additionalProperties: true }),
  request_id: Type.String()
})

export const auditRoutes: FastifyPluginAsyncTypebox<{ database: WorkRunner }> = async (app, { database }) => {
  app.get('/api/audit', {
    schema: {
      tags: ['audit'],
      summary: 'Audit trail of admin changes (admin scope)',
      querystring: AuditQuery,
      response: { 200: Type.Object({ records: Type.Array(AuditRecord), total: Type.Integer() }), ...errorResponses }
    },
    config: { failure: 'Failed to read audit trail' }
  }, async (request) => {
    const { since, limit = 100, ...filter } = request.query
    const rows = await database.read((db) => listAudit(db, {
      ...filter,
      limit,
      ...(since === undefined ? {} : { since: new Date(since).toISOString() })
    }))
    const records = rows.map((row) => ({ ...row, changes: JSON.parse(row.changes) as Record<string, unknown> }))
    return { records, total: records.length }
  })
}
