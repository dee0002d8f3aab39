/**
 * Operations 1–5 of the spec: list, create, read, update and delete pools.
 * Status records come from the read model already serialised and are sent as
 * they are: Fastify sends a Buffer (or a stream of them) with a JSON content type
 * without serialising it again, while the declared response schemas still describe it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { actorOf } from '../audit/audit.js'
import { errorResponses } from '../http/schemas.js'
import {
  CreatePoolBody, PoolCreated, PoolDeleted, PoolList, PoolListQuery, PoolParams, PoolStatus, PoolSummaryList, PoolUpdated, UpdatePoolBody
} from './pool.schemas.js'
import type { PoolService } from './pool.service.js'
import type { ListBody } from './read-model.js'
import { COPY_MAX, createReplyBuffers, piecesStream, type ReplyBuffers } from './reply-buffers.js'

const tags = ['pools']

/** The content type Fastify gives JSON it serialises itself. */
const JSON_TYPE = 'application/json; charset=utf-8'

/** Sends JSON the service serialised (the type provider cannot tell bytes from the schema's object). */
function sendJson (reply: FastifyReply, json: Buffer): FastifyReply {
  return reply.type(JSON_TYPE).send(json)
}

/**
 * Sends a list body the read model keeps and its per-request tail: up to COPY_MAX
 * as one Buffer, taken from `buffers` and given back once the response is closed;
 * beyond, its pieces as they are, streamed with their Content-Length (see reply-buffers.ts).
 */
function sendList (reply: FastifyReply, buffers: ReplyBuffers, [body, tail]: readonly [ListBody, Buffer]): FastifyReply {
  const length = body.length + tail.length
  if (length > COPY_MAX) return reply.type(JSON_TYPE).header('content-length', length).send(piecesStream(body, tail))
  const joined = buffers.take(body, tail)
  reply.raw.once('close', () => { buffers.release(body, joined) })
  return sendJson(reply, joined)
}

export const poolRoutes: FastifyPluginAsyncTypebox<{ pools: PoolService }> = async (app, { pools }) => {
  const buffers = createReplyBuffers()
  app.get('/api/pools', {
    schema: {
      tags,
      summary: 'List pools with their status (every pool by default; limit and offset page by pool_id; fields=summary leaves out members, policy and history)',
      querystring: PoolListQuery,
      response: { 200: Type.Union([PoolList, PoolSummaryList]), 422: errorResponses[422], 500: errorResponses[500] }
    },
    config: { failure: 'Failed to list pools' }
  }, async (request, reply) => sendList(reply, buffers, await pools.listPoolStatuses(request.query)))

  app.post('/api/pools', {
    schema: { tags, summary: 'Create a pool', body: CreatePoolBody, response: { 200: PoolCreated, ...errorResponses } },
    config: { failure: 'Failed to create pool', everyFailureIs500: true }
  }, async (request) => await pools.createPool(request.body, actorOf(request)))

  app.get('/api/pools/:pool_id', {
    schema: { tags, summary: 'Get a pool status record', params: PoolParams, response: { 200: PoolStatus, ...errorResponses } },
    config: { failure: 'Failed to get pool status' }
  }, async (request, reply) => sendJson(reply, await pools.getPoolStatus(request.params.pool_id)))

  app.put('/api/pools/:pool_id', {
    schema: { tags, summary: 'Update a pool', params: PoolParams, body: UpdatePoolBody, response: { 200: PoolUpdated, ...errorResponses } },
    config: { failure: 'Failed to update pool' }
  }, async (request) => await pools.updatePool(request.params.pool_id, request.body ?? {}, actorOf(request)))

  app.delete('/api/pools/:pool_id', {
    schema: { tags, summary: 'Delete a pool with its members and history', params: PoolParams, response: { 200: PoolDeleted, ...errorResponses } },
    config: { failure: 'Failed to delete pool' }
  }, async (request) => await pools.deletePool(request.params.pool_id, actorOf(request)))
}
