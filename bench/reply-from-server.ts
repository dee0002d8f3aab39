/**
 * The plain Node proxy of the proxy benchmark: Fastify with @fastify/reply-from
 * forwarding everything to one upstream (UPSTREAM_URL), as its own process.
 */
import replyFrom from '@fastify/reply-from'
import Fastify from 'fastify'

const app = Fastify({ logger: false })
await app.register(replyFrom, { base: process.env.UPSTREAM_URL })
app.get('/*', (request, reply) => { reply.from(request.url) })
const address = await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`Server listening at ${address}\n`)
process.once('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
