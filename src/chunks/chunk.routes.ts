/**
 * `/api/chunks`: store, read, replace, delete, list and search text chunks with
 * embeddings. Write routes validate with `attachValidation`, so one 422 lists the
 * schema's findings together with the chunk rules (chunk.validation.ts); the
 * batch route reads and validates its body itself, in slices that yield to the
 * event loop, to the same answers (chunk-batch-body.ts).
 * Responses holding records are written by chunk.json.ts (exact numbers); a
 * list page arrives from the service as JSON texts, cut to its byte budget.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { Readable } from 'node:stream'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Static } from 'typebox'
import { actorOf } from '../audit/audit.js'
import { errorResponses } from '../http/schemas.js'
import { assertValidBatch, readBatchBody, receiveBody } from './chunk-batch-body.js'
import type { ChunkSearch } from './chunk-search.js'
import { chunkJson, numberJson } from './chunk.json.js'
import {
  BATCH_BODY_LIMIT, ChunkBatchBody, ChunkBatchWritten, ChunkConflict, ChunkListQuery, ChunkListResponse, ChunkParams,
  ChunkModelList, ChunkRecord, ChunkResponse, ChunkSearchBody, ChunkSearchResponse, ChunkWritten, RECORD_BODY_LIMIT, type ChunkInput
} from './chunk.schemas.js'
import type { ChunkService } from './chunk.service.js'
import { assertValidChunks } from './chunk.validation.js'

const tags = ['chunks']
const conflict = { 409: ChunkConflict }

const sendJson = (reply: FastifyReply, text: string) => reply.type('application/json; charset=utf-8').send(text)

export const chunkRoutes: FastifyPluginAsyncTypebox<{ chunks: ChunkService, search: ChunkSearch }> = async (app, { chunks, search }) => {
  app.post('/api/chunks', {
    schema: { tags, summary: 'Store one chunk', body: ChunkRecord, response: { 200: ChunkWritten, ...errorResponses, ...conflict } },
    attachValidation: true,
    bodyLimit: RECORD_BODY_LIMIT,
    config: { failure: 'Failed to store chunk' }
  }, async (request) => {
    assertValidChunks(request.validationError, [{ value: request.body, loc: ['body'] }], request.body)
    await chunks.createChunk(request.body, actorOf(request))
    return { chunk_id: request.body.chunk_id, message: `Chunk '${request.body.chunk_id}' stored successfully` }
  })

  // A batch may be 64 MiB of JSON: its body is read and validated in slices that
  // yield to the event loop (chunk-batch-body.ts), so it has its own parser (in a
  // scope of its own) and no validation by Fastify, which would be one long stretch.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers()
    const parser = async (request: FastifyRequest, payload: Readable) => await readBatchBody(await receiveBody(request.headers, payload, BATCH_BODY_LIMIT))
    scope.addContentTypeParser('application/json', { bodyLimit: BATCH_BODY_LIMIT }, parser)
    scope.addContentTypeParser(/^application\/[\w.-]+\+json$/, { bodyLimit: BATCH_BODY_LIMIT }, parser)
    scope.post('/api/chunks/batch', {
      schema: { tags, summary: 'Store up to 1,000 chunks, all or none', body: ChunkBatchBody, response: { 200: ChunkBatchWritten, ...errorResponses, ...conflict } },
      validatorCompiler: () => () => true,
      bodyLimit: BATCH_BODY_LIMIT,
      config: { failure: 'Failed to store chunks' }
    }, async (request) => {
      await assertValidBatch(request.body)
      const ids = await chunks.createChunks((request.body as Static<typeof ChunkBatchBody>).chunks, actorOf(request))
      return { inserted: ids.length, chunk_ids: ids, message: `${ids.length} chunks stored successfully` }
    })
  })

  app.post('/api/chunks/search', {
    schema: { tags, summary: 'Find the chunks most similar to an embedding (exact cosine similarity)', body: ChunkSearchBody, response: { 200: ChunkSearchResponse, ...errorResponses } },
    config: { failure: 'Failed to search chunks' }
  }, async (request, reply) => {
    const results = await search.search(request.body)
    const items = results.map(({ row, score }) =>
      `{"chunk_id":${JSON.stringify(row.chunk_id)},"score":${numberJson(score)},"content":${JSON.stringify(row.content)},"metadata":${row.metadata}}`)
    return sendJson(reply, `{"results":[${items.join(',')}]}`)
  })

  app.get('/api/chunks', {
    schema: { tags, summary: 'List chunks by parent, sequence and id, a page (at most `limit` chunks and 4 MiB of JSON) at a time', querystring: ChunkListQuery, response: { 200: ChunkListResponse, ...errorResponses } },
    config: { failure: 'Failed to list chunks' }
  }, async (request, reply) => {
    const page = await chunks.listChunks(request.query)
    return sendJson(reply, `{"chunks":[${page.chunks.join(',')}],"total":${page.total},"next_cursor":${JSON.stringify(page.nextCursor)}}`)
  })

  // Not under /api/chunks/, where any name is a chunk id.
  app.get('/api/chunk-models', {
    schema: { tags, summary: 'List the embedding models that hold chunks, with their dimension and chunk count', response: { 200: ChunkModelList, ...errorResponses } },
    config: { failure: 'Failed to list models' }
  }, async () => await chunks.listModels())

  app.get('/api/chunks/:chunk_id', {
    schema: { tags, summary: 'Get a chunk exactly as stored', params: ChunkParams, response: { 200: ChunkResponse, ...errorResponses } },
    config: { failure: 'Failed to get chunk' }
  }, async (request, reply) => sendJson(reply, chunkJson(await chunks.getChunk(request.params.chunk_id))))

  app.put('/api/chunks/:chunk_id', {
    schema: { tags, summary: 'Replace a chunk', params: ChunkParams, body: ChunkRecord, response: { 200: ChunkWritten, ...errorResponses } },
    attachValidation: true,
    bodyLimit: RECORD_BODY_LIMIT,
    config: { failure: 'Failed to replace chunk' }
  }, async (request) => {
    assertValidChunks(request.validationError, [{ value: request.body, loc: ['body'] }], request.body)
    const id = request.params.chunk_id
    await chunks.replaceChunk(id, request.body as ChunkInput, actorOf(request))
    return { chunk_id: id, message: `Chunk '${id}' replaced successfully` }
  })

  app.delete('/api/chunks/:chunk_id', {
    schema: { tags, summary: 'Delete a chunk', params: ChunkParams, response: { 200: ChunkWritten, ...errorResponses } },
    config: { failure: 'Failed to delete chunk' }
  }, async (request) => {
    const id = request.params.chunk_id
    await chunks.deleteChunk(id, actorOf(request))
    return { chunk_id: id, message: `Chunk '${id}' deleted successfully` }
  })
}
