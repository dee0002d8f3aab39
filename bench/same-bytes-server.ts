/**
 * The limit of a read: a bare Fastify route answering every GET with the bytes
 * of BODY_FILE (a response the service gave once) from memory, with its content
 * type (CONTENT_TYPE), as its own process like the service.
 */
import { readFileSync } from 'node:fs'
import Fastify from 'fastify'

const body = readFileSync(process.env.BODY_FILE ?? '')
const contentType = process.env.CONTENT_TYPE ?? 'application/json; charset=utf-8'
const app = Fastify({ logger: false })
app.get('/*', (_request, reply) => { reply.header('content-type', contentType).send(body) })
const address = await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`Server listening at ${address}\n`)
process.once('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
