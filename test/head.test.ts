/**
 * HEAD on every GET route answers at once (issue 26): Fastify answers HEAD for each
 * GET route by running its handler, and a handler that streams (the event stream
 * writes on the raw connection, where Node holds a HEAD answer's headers until it
 * ends) would hang. Every registered GET route is asked HEAD over a real socket and
 * must answer its status line and headers, and no body, within a second; and
 * `HEAD /api/events` with a read token, on a raw socket, answers at once, leaves its
 * connection free for the next request and takes none of the EVENTS_MAX_CLIENTS slots.
 */
import assert from 'node:assert/strict'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterEach, it } from 'node:test'
import { createPool, createProvider, addMember } from './fixtures.js'
import { buildTestApp, describeOn, dialects, type TestApp } from './helpers.js'
import { openStream, type Stream } from './event-stream.js'
import { upstream, type Upstream } from './upstreams.js'

const READ = 'read-secret-0123456789'
const ADMIN = 'admin-secret-0123456789'
const AUTH_TOKENS = `grafana:read:${READ},ops:admin:${ADMIN}`

/** How long after an answer's head a body would have shown. */
const GRACE_MS = 100

/** Every GET route's path, from Fastify's route tree (one segment per line, nested by indentation; a route's says its methods). */
function getRoutes (tree: string): string[] {
  const paths: string[] = []
  const stack: string[] = []
  for (const line of tree.split('\n')) {
    const at = line.indexOf('── ')
    if (at === -1) continue
    const depth = (at - 1) / 4
    const text = line.slice(at + 3)
    const open = text.lastIndexOf(' (')
    const segment = open === -1 ? text : text.slice(0, open)
    stack.length = depth
    stack.push(segment)
    if (open !== -1 && /\bGET\b/.test(text.slice(open))) paths.push(stack.join(''))
  }
  return paths
}

/**
 * Sends `head` on a fresh socket; answers what came until the server closed it, or for
 * GRACE_MS after the answer's head. Rejects after `ms`: a HEAD waiting for a body that
 * never ends (the event stream's) never answers, and 10 s tells that from a slow first
 * answer (the OpenAPI document is built on its first call) on a loaded machine.
 */
async function exchange (port: number, head: string, ms = 10_000): Promise<string> {
  const socket = connect(port, '127.0.0.1')
  const chunks: Buffer[] = []
  try {
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => { reject(new Error(`no answer within ${ms} ms; received: ${JSON.stringify(Buffer.concat(chunks).toString())}`)) }, ms)
      const done = () => { clearTimeout(timer); resolve(Buffer.concat(chunks).toString()) }
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk)
        // A body (which must not come) would follow at once.
        if (Buffer.concat(chunks).includes('\r\n\r\n')) setTimeout(done, GRACE_MS)
      })
      socket.on('error', reject)
      socket.on('close', done)
      socket.write(head)
    })
  } finally {
    socket.destroy()
  }
}

/** Reads the next answer's head from `socket` (up to its blank line; nothing may follow it); rejects after `ms`. */
async function nextHead (socket: Socket, ms = 1000): Promise<string> {
  let received = ''
  return await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { socket.off('data', onData); reject(new Error(`no answer within ${ms} ms; received: ${JSON.stringify(received)}`)) }, ms)
    function onData (chunk: Buffer): void {
      received += chunk.toString()
      if (!received.includes('\r\n\r\n')) return
      clearTimeout(timer)
      socket.off('data', onData)
      resolve(received)
    }
    socket.on('data', onData)
  })
}

for (const dialect of dialects) {
  describeOn(dialect, 'HEAD', () => {
    let t: TestApp
    let port: number
    const upstreams: Upstream[] = []
    const streams: Stream[] = []
    const sockets: Socket[] = []
    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.destroy()
      for (const stream of streams.splice(0)) stream.close()
      await t.close()
      for (const u of upstreams.splice(0)) await u.close()
    })

    async function start (env: Record<string, string> = {}): Promise<void> {
      t = await buildTestApp(dialect, { healthCheckTimer: false }, { AUTH_TOKENS, ...env })
      await t.app.listen({ host: '127.0.0.1', port: 0 })
      port = (t.app.server.address() as AddressInfo).port
    }

    it('answers on every GET route at once: its status and headers, and no body', async () => {
      await start()
      const up = await upstream((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{"from":"upstream"}') })
      upstreams.push(up)
      const asAdmin: TestApp = { ...t, request: async (options) => await t.request({ ...options, headers: { authorization: `Bearer ${ADMIN}`, ...options.headers } }) }
      const provider = await createProvider(asAdmin, 'up', { base_url: up.url })
      const pool = await createPool(asAdmin, 'p')
      await addMember(asAdmin, pool, provider)
      const fill: Record<string, string> = { ':provider_id': String(provider), ':pool_id': String(pool), ':chunk_id': 'no-such-chunk' }
      const wildcard: Record<string, string> = { '/docs/static/': 'swagger-ui.css', '/ui/assets/': 'app.js', [`/api/pools/${pool}/proxy/`]: 'data' }

      const routes = getRoutes(t.app.printRoutes({ method: 'GET' }))
      assert.ok(routes.includes('/api/events') && routes.includes('/healthz') && routes.includes('/metrics'), routes.join(' '))
      assert.ok(routes.length >= 25, `${routes.length} GET routes found: ${routes.join(' ')}`)
      const answers: string[] = []
      for (const route of routes) {
        let path = route.replace(/:\w+/g, (param) => fill[param] ?? '1')
        if (path.endsWith('*')) path = path.slice(0, -1) + (wildcard[path.slice(0, -1)] ?? 'x')
        const received = await exchange(port, `HEAD ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${ADMIN}\r\nConnection: close\r\n\r\n`)
          .catch((error: Error) => { throw new Error(`HEAD ${path} (${route}): ${error.message}`) })
        const end = received.indexOf('\r\n\r\n')
        const status = /^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]
        assert.ok(status !== undefined && end !== -1, `HEAD ${path}: ${JSON.stringify(received)}`)
        assert.equal(received.slice(end + 4), '', `HEAD ${path} sent a body`)
        answers.push(`${status} ${path}`)
      }
      // The routes that answer something, answer it as GET does (a few refuse HEAD's method or its missing things on purpose).
      for (const path of ['/healthz', '/metrics', '/api/events', '/ui/assets/app.js', `/api/pools/${pool}/proxy/data`, `/api/providers/${provider}`, '/docs/static/swagger-ui.css', '/api/config/export']) {
        assert.ok(answers.includes(`200 ${path}`), answers.join('\n'))
      }
      assert.equal(up.seen.at(-1)?.method, 'HEAD', 'the proxy forwards HEAD')
    })

    it('answers HEAD /api/events with the stream\'s headers on a raw socket within a second, and takes no stream slot', async () => {
      await start({ EVENTS_MAX_CLIENTS: '1', CORS_ORIGINS: 'https://dash.example' })
      const socket = connect(port, '127.0.0.1')
      sockets.push(socket)
      await new Promise((resolve) => socket.once('connect', resolve))
      const head = `HEAD /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${READ}\r\nOrigin: https://dash.example\r\nX-Request-Id: head-1\r\n\r\n`
      socket.write(head)
      const first = await nextHead(socket)
      assert.match(first, /^HTTP\/1\.1 200 /)
      assert.ok(first.endsWith('\r\n\r\n'), 'nothing after the head')
      assert.match(first, /\r\ncontent-type: text\/event-stream/i)
      assert.match(first, /\r\nx-request-id: head-1\r\n/i)
      assert.match(first, /\r\naccess-control-allow-origin: https:\/\/dash\.example\r\n/i)
      assert.doesNotMatch(first, /\r\ncontent-length: /i, 'no length: the stream has none')
      // The connection is not held: the next request on it is answered at once.
      socket.write(head)
      assert.match(await nextHead(socket), /^HTTP\/1\.1 200 /)
      // No slot taken (EVENTS_MAX_CLIENTS=1): a stream opens, and then a second is refused.
      const stream = await openStream(`http://127.0.0.1:${port}/api/events`, { authorization: `Bearer ${READ}` })
      streams.push(stream)
      assert.equal(stream.response.statusCode, 200)
      const refused = await t.request({ method: 'GET', url: '/api/events', headers: { authorization: `Bearer ${READ}` } })
      assert.equal(refused.status, 503)
      // HEAD says what GET would: at the limit, 503 too, at once.
      socket.write(head)
      assert.match(await nextHead(socket), /^HTTP\/1\.1 503 /)
    })
  })
}
