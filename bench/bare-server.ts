/**
 * The yardstick: a bare Fastify route answering a constant JSON object, run as
 * its own process exactly like the service, so the ratios compare like with like.
 */
import Fastify from 'fastify'

const app = Fastify({ logger: false })
const schema = { response: { 200: { type: 'object', properties: { status: { type: 'string' }, value: { type: 'integer' } } } } }
app.get('/bare', { schema }, async () => ({ status: 'ok', value: 42 }))
// The limit of a write such as rotate: the same answer to a POST.
app.post('/bare', { schema }, async () => ({ status: 'ok', value: 42 }))
const address = await app.listen({ host: '127.0.0.1', port: 0 })
process.stdout.write(`Server listening at ${address}\n`)
process.once('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
